#!/usr/bin/env python3
"""scripts/grade_bench.py's accounting without a GPU: test-seconds by category, by lab and the
slowest tests, averaged over the copies of a kind, from results.json files made here; and its
usage errors."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "grade_bench.py")
spec = importlib.util.spec_from_file_location("grade_bench", SCRIPT)
grade_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(grade_bench)


def write_results(out, name, tests):
    folder = os.path.join(out, "submissions", name)
    os.makedirs(folder)
    with open(os.path.join(folder, "results.json"), "w") as f:
        json.dump({"tests": [{"name": n, "tags": [lab], "extra_data": {} if s is None else {"seconds": s}}
                             for n, lab, s in tests]}, f)


class TestSeconds(unittest.TestCase):
    def test_categories_labs_and_the_slowest_averaged_over_copies(self):
        with tempfile.TemporaryDirectory() as out:
            write_results(out, "a-0", [("vec_add.sanitize.memcheck", "vec_add", 4.0), ("vec_add.smoke.run", "vec_add", 1.0),
                                       ("vec_add.smoke.smallest.0", "vec_add", 0.5), ("VecAdd.Exact", "vec_add", 2.0),
                                       ("reduction.sanitize.racecheck", "reduction", 10.0), ("Unrun.Case", "reduction", None)])
            write_results(out, "a-1", [("vec_add.sanitize.memcheck", "vec_add", 6.0), ("vec_add.smoke.run", "vec_add", 1.0),
                                       ("vec_add.smoke.smallest.0", "vec_add", 0.5), ("VecAdd.Exact", "vec_add", 4.0),
                                       ("reduction.sanitize.racecheck", "reduction", 12.0)])
            got = grade_bench.test_seconds_of(out, ["a-0", "a-1"], slowest=3)
        self.assertEqual(got["by_category"], {"sanitize": 16.0, "cases": 3.0, "smoke": 1.0, "smallest": 0.5})
        self.assertEqual(list(got["by_category"]), ["sanitize", "cases", "smoke", "smallest"])  # largest first
        self.assertEqual(got["by_lab"], {"reduction": 11.0, "vec_add": 9.5})
        self.assertEqual(got["slowest"], [["reduction.sanitize.racecheck", 11.0], ["vec_add.sanitize.memcheck", 5.0],
                                          ["VecAdd.Exact", 3.0]])

    def test_ties_in_the_slowest_are_ordered_by_name(self):
        with tempfile.TemporaryDirectory() as out:
            write_results(out, "k", [("b.case", "x", 1.0), ("a.case", "x", 1.0), ("c.case", "x", 2.0)])
            got = grade_bench.test_seconds_of(out, ["k"])
        self.assertEqual(got["slowest"], [["c.case", 2.0], ["a.case", 1.0], ["b.case", 1.0]])

    def test_categories(self):
        self.assertEqual(grade_bench.category_of("matmul.sanitize.initcheck"), "sanitize")
        self.assertEqual(grade_bench.category_of("matmul.smoke.smallest.1"), "smallest")
        self.assertEqual(grade_bench.category_of("matmul.smoke.bad_args.3"), "smoke")
        self.assertEqual(grade_bench.category_of("MatmulGpu.EveryVariant/naive"), "cases")


class ChangedRate(unittest.TestCase):
    def test_the_handout_copies_do_not_count(self):
        # 4 kinds x 4 copies in 170 s: 12 change every lab, 254 an hour (339 with the handouts)
        self.assertEqual(grade_bench.changed_rate(["handout", "hostile", "solutions", "wrong"], 4, 170.0), 254.1)
        self.assertEqual(grade_bench.changed_rate(["solutions"], 2, 3600.0), 2.0)
        self.assertEqual(grade_bench.changed_rate(["handout"], 4, 10.0), 0.0)
        self.assertEqual(grade_bench.changed_rate(["solutions"], 1, 0.0), 0.0)


class TogetherElsewhere(unittest.TestCase):
    """--stage together in a DIR whose serial stage ran on another machine (copied without its
    base/): the base is prepared again, with the same arguments, before the copies are graded."""

    def test_a_missing_base_is_prepared_with_the_stage_arguments(self):
        calls = []

        class Done:
            returncode, stdout, stderr = 0, "", ""

        def fake_run(cmd, **kw):
            calls.append(cmd)
            return Done()

        with tempfile.TemporaryDirectory() as out:
            with open(os.path.join(out, "serial.json"), "w") as f:
                json.dump({"base_s": 1.0, "seconds": 2.0, "kinds": []}, f)
            args = grade_bench.script_cli.Parser(prog="t").parse_args([])
            args.copies, args.per_gpu, args.jobs, args.labs, args.cmake_args = 1, 1, 3, ["vec_add"], ""
            real_run, real_grade = grade_bench.subprocess.run, grade_bench.grade
            grade_bench.subprocess.run = fake_run
            grade_bench.grade = lambda batch, o, base, per_gpu, common: calls.append(["grade", base] + common) or 1.0
            try:
                self.assertEqual(grade_bench.together(args, out), 0)
            finally:
                grade_bench.subprocess.run, grade_bench.grade = real_run, real_grade
        base = os.path.join(out, "base")
        self.assertEqual(calls[0][1:4], [grade_bench.GRADE, "--prepare-base", base])
        self.assertEqual(calls[0][4:], ["--jobs", "3", "--labs", "vec_add"])
        self.assertEqual(calls[1], ["grade", base, "--jobs", "3", "--labs", "vec_add"])


class BusySampling(unittest.TestCase):
    def test_the_busy_share_of_the_cores_from_proc_stat(self):
        before = grade_bench.cpu_times("cpu  100 0 100 700 100 0 0 0 0 0")
        after = grade_bench.cpu_times("cpu  400 0 200 1100 100 0 0 0 0 0")
        self.assertEqual(before, (1000, 800))
        self.assertAlmostEqual(grade_bench.cpu_busy(before, after), 100 * 400 / 800)
        self.assertEqual(grade_bench.cpu_busy(after, after), 0.0)  # no time passed

    def test_means_of_the_samples_and_no_gpu(self):
        ticks = iter([(0, 0), (100, 50), (200, 50), (300, 150)] + [(300, 150)] * 100)
        gpus = iter([10.0, 30.0] + [None] * 100)
        with grade_bench.Busy(every=0.01, cpu=lambda: next(ticks), gpu=lambda: next(gpus)) as busy:
            while len(busy.cpu_samples) < 3:
                time.sleep(0.01)
        means = busy.means()
        self.assertEqual(busy.cpu_samples[:3], [50.0, 100.0, 0.0])
        self.assertEqual(busy.gpu_samples[:2], [10.0, 30.0])
        self.assertGreaterEqual(means["samples"], 3)
        self.assertEqual(grade_bench.Busy().means(), {"cpu_percent": None, "gpu_percent": None, "samples": 0})


class Usage(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)

    def test_bad_counts_and_a_missing_serial_stage_exit_2(self):
        with tempfile.TemporaryDirectory() as d:
            r = self.run_script("--out", os.path.join(d, "o"), "--copies", "0")
            self.assertEqual(r.returncode, 2, r.stderr)
            r = self.run_script("--out", d, "--stage", "together")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("serial.json", r.stderr)
            r = self.run_script("--out", d)  # exists
            self.assertEqual(r.returncode, 2, r.stderr)


if __name__ == "__main__":
    unittest.main()
