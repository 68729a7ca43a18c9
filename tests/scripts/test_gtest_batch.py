#!/usr/bin/env python3
"""Self-test of scripts/gtest_batch.py: a GoogleTest binary whose cases pass, fail, skip, hang and
crash, run in as few processes as the hang and the crash allow, one result per case."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BATCH = os.path.join(ROOT, "scripts", "gtest_batch.py")
from cudalab.labgrade import results  # noqa: E402


class GtestBatch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gtest_batch_")
        cls.exe = os.path.join(cls.tmp, "cases")
        main = os.path.join(ROOT, "tests", "support", "verdict_main.cpp")  # the suite's test main
        cls.early = os.path.join(cls.tmp, "exit_early")
        cls.hangs = os.path.join(cls.tmp, "hangs")
        for src, exe in (("cases.cpp", cls.exe), ("exit_early.cpp", cls.early), ("hangs.cpp", cls.hangs)):
            subprocess.run([os.environ.get("CXX", "c++"), "-std=c++17", os.path.join(HERE, "gtest_fixture", src), main,
                            "-o", exe, "-lgtest", "-pthread"], check=True)
        cls.junit = os.path.join(cls.tmp, "out.xml")
        # the cases after the hang one after another (what the process count below follows)
        cls.proc = subprocess.run([sys.executable, BATCH, "--junit", cls.junit, "--timeout", "2", "--", cls.exe],
                                  capture_output=True, text=True, timeout=120,
                                  env=dict(os.environ, CUDALAB_GTEST_BATCH_JOBS="1"))
        cls.cases = results.parse_junit(cls.junit)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_one_result_per_case(self):
        self.assertEqual(self.proc.returncode, 1, self.proc.stderr)
        status = {name: c[0] for name, c in self.cases.items()}
        self.assertEqual(status, {
            "Batch.Passes": "passed", "Batch.Fails": "failed", "Batch.Skips": "skipped", "Batch.Hangs": "failed",
            "Batch.PassesAfterTheHang": "passed", "Batch.Crashes": "failed", "Batch.PassesAfterTheCrash": "passed",
            "Batch.PrintsAPassAndFails": "failed",
            "Odd/Sizes.Positive/0": "passed", "Odd/Sizes.Positive/1": "passed", "Odd/Sizes.Positive/2": "failed"})

    def test_a_hang_is_a_field_of_its_case_not_only_a_message(self):
        # the graders read the limit from the attribute (results.timed_out_cases), never from the text
        self.assertEqual(results.timed_out_cases(self.junit), {"Batch.Hangs": 2.0})

    def test_messages(self):
        self.assertIn("timed out after 2 s", self.cases["Batch.Hangs"][1])
        self.assertIn("process ended during this case", self.cases["Batch.Crashes"][1])
        self.assertIn("arithmetic", self.cases["Batch.Fails"][1])
        self.assertIn("3 process(es)", self.proc.stdout)  # the first, after the hang, after the crash

    def test_exit_codes_when_all_pass_or_all_skip(self):
        # a filter passes through to the binary: only passing cases -> 0; only skipped ones -> 77
        # (ctest's SKIP_RETURN_CODE: a GPU binary without a GPU is reported skipped, with the reason)
        junit = os.path.join(self.tmp, "part.xml")
        passing = subprocess.run([sys.executable, BATCH, "--junit", junit, "--timeout", "5", "--", self.exe,
                                  "--gtest_filter=Batch.Passes*"], capture_output=True, text=True, timeout=60)
        self.assertEqual(passing.returncode, 0, passing.stdout + passing.stderr)
        skipping = subprocess.run([sys.executable, BATCH, "--junit", junit, "--timeout", "5", "--", self.exe,
                                   "--gtest_filter=Batch.Skips"], capture_output=True, text=True, timeout=60)
        self.assertEqual(skipping.returncode, 77, skipping.stdout + skipping.stderr)
        self.assertRegex(skipping.stdout, r"every case skipped: .*Skipped no device")

    def test_printed_verdicts_are_not_verdicts(self):
        # the channel, not stdout, says which case ran and how it ended
        self.assertIn("[       OK ] Batch.PrintsAPassAndFails", self.proc.stdout + "".join(c[1] for c in self.cases.values())
                      + open(self.junit).read())
        self.assertEqual(self.cases["Batch.PrintsAPassAndFails"][0], "failed")

    def test_a_process_that_exits_early_passes_nothing(self):
        junit = os.path.join(self.tmp, "early.xml")
        run = subprocess.run([sys.executable, BATCH, "--junit", junit, "--timeout", "5", "--", self.early],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 3, run.stdout + run.stderr)  # its listing is empty too: nothing to pass
        self.assertFalse(os.path.exists(junit))
        # one case per process (ctest's --per-case mode): the exit status 0 is not believed either
        single = subprocess.run([sys.executable, BATCH, "--single", "--", self.early, "--gtest_filter=Early.Fails"],
                                capture_output=True, text=True, timeout=60)
        self.assertEqual(single.returncode, 1, single.stdout + single.stderr)
        self.assertIn("PASSED", single.stdout)  # it printed a pass; it did not get one
        for case, code in (("Batch.Passes", 0), ("Batch.Fails", 1), ("Batch.PrintsAPassAndFails", 1), ("Batch.Skips", 0)):
            one = subprocess.run([sys.executable, BATCH, "--single", "--", self.exe, f"--gtest_filter={case}"],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(one.returncode, code, (case, one.stdout))
        listing = subprocess.run([sys.executable, BATCH, "--single", "--", self.exe, "--gtest_list_tests"],
                                 capture_output=True, text=True, timeout=60)
        self.assertIn("PassesAfterTheHang", listing.stdout)

    def hang_run(self, jobs):
        folder = tempfile.mkdtemp(dir=self.tmp)
        junit = os.path.join(folder, "hangs.xml")
        run = subprocess.run([sys.executable, BATCH, "--junit", junit, "--timeout", "1.5", "--", self.hangs],
                             capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, HANG_DIR=folder, CUDALAB_GTEST_BATCH_JOBS=jobs))
        return run, results.parse_junit(junit), os.path.exists(os.path.join(folder, "overlap"))

    def test_after_a_hang_the_rest_run_side_by_side(self):
        # every case hangs but the last: after the first, the others run three at once (each in a
        # process of its own here), so they are alive together; with one job never
        run, cases, overlapped = self.hang_run("4")
        self.assertEqual(run.returncode, 1, run.stdout)
        self.assertEqual({n: c[0] for n, c in cases.items()},
                         {"Hang.A": "failed", "Hang.B": "failed", "Hang.C": "failed", "Hang.D": "failed",
                          "Hang.PassesAtTheEnd": "passed"})
        self.assertEqual(list(cases), ["Hang.A", "Hang.B", "Hang.C", "Hang.D", "Hang.PassesAtTheEnd"])  # listing order
        self.assertTrue(overlapped)
        self.assertIn("5 process(es)", run.stdout)  # the first; B, C and D each hang in their own; the last
        run, cases, overlapped = self.hang_run("1")
        self.assertEqual({n: c[0] for n, c in cases.items()}["Hang.PassesAtTheEnd"], "passed")
        self.assertFalse(overlapped)
        self.assertIn("5 process(es)", run.stdout)

    def test_list_and_bad_input(self):
        listed = subprocess.run([sys.executable, BATCH, "--list", "--", self.exe], capture_output=True, text=True)
        self.assertEqual(listed.returncode, 0)
        self.assertEqual(len(listed.stdout.split()), 11)
        for bad in ([], ["--timeout", "0", "--junit", "x", "--", self.exe], ["--junit", "x", "--", "/nonexistent"]):
            run = subprocess.run([sys.executable, BATCH] + bad, capture_output=True, text=True)
            self.assertIn(run.returncode, (2, 3), bad)
            self.assertEqual(len(run.stderr.strip().splitlines()), 1, (bad, run.stderr))


if __name__ == "__main__":
    unittest.main()
