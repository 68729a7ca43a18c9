#!/usr/bin/env python3
"""scripts/ab.py without a GPU: the rows it reads from a lab's report, its medians and their
ratio to the base arm, and its usage errors; a patch that applies is checked in a copy of the
tree and then the run says "skipped" (exit 77) where nvidia-smi lists no GPU."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "ab.py")
spec = importlib.util.spec_from_file_location("ab", SCRIPT)
ab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ab)
from cudalab.report_schema import timed_rows  # noqa: E402

# a change of one line of a lab's source: it applies to this tree
GOOD_PATCH = """diff --git a/labs/sort/README.md b/labs/sort/README.md
--- a/labs/sort/README.md
+++ b/labs/sort/README.md
@@ -1,3 +1,3 @@
-{0}
+{0} (changed)
 {1}
 {2}
"""
BAD_PATCH = """diff --git a/labs/sort/sort.cu b/labs/sort/sort.cu
--- a/labs/sort/sort.cu
+++ b/labs/sort/sort.cu
@@ -1,1 +1,1 @@
-a line that is not there
+x
"""


class Rows(unittest.TestCase):
    def test_timed_rows_of_every_table(self):
        report = {"lab": "stencil", "notes": ["n"], "conv": [{"variant": "conv_naive", "median_ms": 1.5, "correct": True},
                                                             {"variant": "copy", "gbps": 4000.0}],
                  "heat2d": [{"variant": "heat2d_naive", "median_ms": 2.0}], "device": {"name": "x"}}
        self.assertEqual(sorted(timed_rows(report)), ["conv/conv_naive", "heat2d/heat2d_naive"])
        self.assertEqual(timed_rows(report)["conv/conv_naive"]["median_ms"], 1.5)
        self.assertEqual(timed_rows({"x": 3, "y": ["a", 1]}), {})

    def test_medians_and_the_base_over_each_arm(self):
        samples = {"base": {"t/a": [2.0, 1.0, 3.0], "t/b": [4.0]},
                   "fast": {"t/a": [1.0, 1.1, 0.9]},
                   "other": {"t/c": [5.0]}}
        s = ab.summarize(samples, "base")
        self.assertEqual(sorted(s), ["t/a", "t/b", "t/c"])
        self.assertEqual(s["t/a"]["base"], {"median_ms": 2.0, "min_ms": 1.0, "max_ms": 3.0, "runs": 3, "vs_base": 1.0})
        self.assertAlmostEqual(s["t/a"]["fast"]["vs_base"], 2.0)
        self.assertEqual(sorted(s["t/b"]), ["base"])
        self.assertIsNone(s["t/c"]["other"]["vs_base"])  # no base row to compare with
        text = ab.table(s, ["base", "fast", "other"])
        self.assertIn("2.000 x", text)
        self.assertEqual(len(text.splitlines()), 1 + 4)

    def test_row_names_carry_the_argument_set_only_when_there_are_several(self):
        self.assertEqual(ab.row_name(0, "variants/onesweep", 1), "variants/onesweep")
        self.assertEqual(ab.row_name(1, "decode/decode_split", 2), "[1] decode/decode_split")

    def test_a_failure_shows_the_end_of_its_log(self):
        log = os.path.join(tempfile.mkdtemp(prefix="ab_log_"), "t.log")
        self.addCleanup(subprocess.run, ["rm", "-rf", os.path.dirname(log)])
        with open(log, "w") as f:
            f.write("".join(f"line {i}\n" for i in range(40)))
        tail = ab.log_tail(f"sort_gpu_test failed ({log})", lines=3)
        self.assertEqual(tail.splitlines(), ["    line 37", "    line 38", "    line 39"])
        self.assertEqual(ab.log_tail("round 1: exit 1: wrong"), "")
        self.assertEqual(ab.log_tail("x failed (/nonexistent/x.log)"), "")

    def test_arm_names(self):
        self.assertEqual(ab.arm_name("docs/experiments/onesweep-window4.patch"), "onesweep-window4")
        self.assertEqual(ab.arm_name("x.diff"), "x")
        self.assertEqual(ab.arm_name("plain"), "plain")


class Usage(unittest.TestCase):
    def run_ab(self, *args, path=None):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scripts"))
        if path:
            env["PATH"] = path + os.pathsep + env["PATH"]
        return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True, env=env)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ab_test_")
        self.addCleanup(subprocess.run, ["rm", "-rf", self.tmp])
        with open(os.path.join(ROOT, "labs", "sort", "README.md")) as f:
            lines = [f.readline().rstrip("\n") for _ in range(3)]
        self.good = os.path.join(self.tmp, "good.patch")
        with open(self.good, "w") as f:
            f.write(GOOD_PATCH.format(*lines))
        self.bad = os.path.join(self.tmp, "bad.patch")
        with open(self.bad, "w") as f:
            f.write(BAD_PATCH)
        # an nvidia-smi that lists no GPU, found first on PATH: the machine has none, whatever it has
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        with open(os.path.join(self.bin, "nvidia-smi"), "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(os.path.join(self.bin, "nvidia-smi"), 0o755)

    def test_usage_errors_are_one_line_and_exit_2(self):
        out = os.path.join(self.tmp, "out")
        for args, says in ((["--lab", "nope", "--patch", self.good], "not a lab: nope"),
                           (["--lab", "sort"], "at least one --patch"),
                           (["--lab", "sort", "--patch", self.good, "--rounds", "0"], "--rounds must be 1 to 100"),
                           (["--lab", "sort", "--patch", self.good, "--timeout", "5"], "--timeout must be 10 to 7200"),
                           (["--lab", "sort", "--patch", os.path.join(self.tmp, "missing.patch")], "cannot read the patch"),
                           (["--lab", "sort", "--patch", self.good, "--patch", self.good], "two arms named good"),
                           (["--lab", "sort", "--patch", self.bad, "--out", out], "does not apply to this tree"),
                           (["--lab", "sort", "--bogus"], "unrecognized arguments")):
            r = self.run_ab(*args, path=self.bin)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(says, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertFalse(os.path.exists(out))  # the patch that did not apply left no copy

    def test_a_patch_that_applies_then_no_gpu_is_skipped(self):
        out = os.path.join(self.tmp, "out")
        # lab arguments and cmake arguments that start with "-" are the flags' values, not options
        r = self.run_ab("--lab", "sort", "--patch", self.good, "--out", out, "--args", "--pairs --variant onesweep",
                        "--args", "--variant onesweep", "--cmake-args", "-DCMAKE_CUDA_ARCHITECTURES=90", path=self.bin)
        self.assertEqual(r.returncode, 77, r.stderr)
        self.assertIn("skipped: no GPU", r.stdout)
        with open(os.path.join(out, "good", "src", "labs", "sort", "README.md")) as f:
            self.assertTrue(f.readline().rstrip("\n").endswith("(changed)"))  # applied in the arm's copy
        with open(os.path.join(out, "base", "src", "labs", "sort", "README.md")) as f:
            self.assertFalse(f.readline().rstrip("\n").endswith("(changed)"))  # not in the base's
        # an --out among this tree's sources is refused before anything is written: the copies would be
        # listed as the suite's files by whatever reads the tree beside it (the grader, regions)
        inside = os.path.join(ROOT, "docs", f"ab_out_{os.getpid()}")
        r = self.run_ab("--lab", "sort", "--patch", self.good, "--out", inside, path=self.bin)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("is a source folder of this tree", r.stderr)
        self.assertFalse(os.path.lexists(inside))
        self.assertTrue(ab.in_sources(os.path.join(ROOT, "labs", "sort", "x")))
        self.assertFalse(ab.in_sources(os.path.join(ROOT, "build", "ab")))  # ignored: the default
        self.assertFalse(ab.in_sources(os.path.join(self.tmp, "out")))
        # an --out that already holds files is refused: a second run never mixes with the first
        r = self.run_ab("--lab", "sort", "--patch", self.good, "--out", out, path=self.bin)
        self.assertEqual(r.returncode, 2)
        self.assertIn("new or empty folder", r.stderr)


if __name__ == "__main__":
    unittest.main()
