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
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from labgrade import results  # noqa: E402


class GtestBatch(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="gtest_batch_")
        cls.exe = os.path.join(cls.tmp, "cases")
        subprocess.run([os.environ.get("CXX", "c++"), "-std=c++17", os.path.join(HERE, "gtest_fixture", "cases.cpp"),
                        "-o", cls.exe, "-lgtest", "-lgtest_main", "-pthread"], check=True)
        cls.junit = os.path.join(cls.tmp, "out.xml")
        cls.proc = subprocess.run([sys.executable, BATCH, "--junit", cls.junit, "--timeout", "2", "--", cls.exe],
                                 capture_output=True, text=True, timeout=120)
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
            "Odd/Sizes.Positive/0": "passed", "Odd/Sizes.Positive/1": "passed", "Odd/Sizes.Positive/2": "failed"})

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

    def test_list_and_bad_input(self):
        listed = subprocess.run([sys.executable, BATCH, "--list", "--", self.exe], capture_output=True, text=True)
        self.assertEqual(listed.returncode, 0)
        self.assertEqual(len(listed.stdout.split()), 10)
        for bad in ([], ["--timeout", "0", "--junit", "x", "--", self.exe], ["--junit", "x", "--", "/nonexistent"]):
            run = subprocess.run([sys.executable, BATCH] + bad, capture_output=True, text=True)
            self.assertIn(run.returncode, (2, 3), bad)
            self.assertEqual(len(run.stderr.strip().splitlines()), 1, (bad, run.stderr))


if __name__ == "__main__":
    unittest.main()
