#!/usr/bin/env python3
"""scripts/cudalab/script_cli.py: a usage error is one line and exit 2, and an option named
verbatim takes the next word as its value even where that word starts with "-"
(`--cmake-args -DCMAKE_CUDA_ARCHITECTURES=90`, as grade_submission.py's usage writes it)."""
import contextlib
import io
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from cudalab import script_cli  # noqa: E402


def parser(**kw):
    ap = script_cli.Parser(prog="t", **kw)
    ap.add_argument("--cmake-args", default="")
    ap.add_argument("--args", action="append", default=[])
    ap.add_argument("--out", default="o")
    ap.add_argument("rest", nargs="*")
    return ap


class Verbatim(unittest.TestCase):
    def usage_error(self, ap, argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as raised:
            ap.parse_args(argv)
        return raised.exception.code, err.getvalue()

    def test_a_value_that_starts_with_a_dash_is_the_flags(self):
        ap = parser(verbatim=("--cmake-args", "--args"))
        got = ap.parse_args(["--cmake-args", "-DCMAKE_CUDA_ARCHITECTURES=90", "--args", "--variant onesweep",
                             "--args", "-3", "--out", "x"])
        self.assertEqual(got.cmake_args, "-DCMAKE_CUDA_ARCHITECTURES=90")
        self.assertEqual(got.args, ["--variant onesweep", "-3"])
        self.assertEqual(got.out, "x")

    def test_joined_with_equals_still_works(self):
        got = parser(verbatim=("--cmake-args",)).parse_args(["--cmake-args=-DA=1 -DB=2"])
        self.assertEqual(got.cmake_args, "-DA=1 -DB=2")

    def test_without_verbatim_argparse_refuses_the_same_words(self):
        code, err = self.usage_error(parser(), ["--cmake-args", "-DCMAKE_CUDA_ARCHITECTURES=90"])
        self.assertEqual(code, 2)
        self.assertIn("expected one argument", err)

    def test_words_after_the_double_dash_are_left_alone(self):
        got = parser(verbatim=("--cmake-args",)).parse_args(["--out", "y", "--", "--cmake-args", "-DX"])
        self.assertEqual(got.rest, ["--cmake-args", "-DX"])
        self.assertEqual(got.cmake_args, "")

    def test_a_flag_with_no_word_after_it_is_one_line_and_exit_2(self):
        code, err = self.usage_error(parser(verbatim=("--cmake-args",)), ["--cmake-args"])
        self.assertEqual(code, 2)
        self.assertEqual(err.count("\n"), 1)
        self.assertTrue(err.startswith("t: error: argument --cmake-args"), err)


class Scripts(unittest.TestCase):
    def run_script(self, name, *argv):
        return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", name), *argv],
                              capture_output=True, text=True, timeout=120)

    def test_grade_submission_takes_its_usage_as_written(self):
        # no SUBMISSION: the error is the missing submission, so --cmake-args took its value
        r = self.run_script("grade_submission.py", "--cmake-args", "-DCMAKE_CUDA_ARCHITECTURES=90")
        self.assertEqual(r.returncode, 2)
        self.assertIn("give a SUBMISSION", r.stderr)
        self.assertNotIn("expected one argument", r.stderr)

    def test_grade_bench_takes_cmake_args_as_written(self):
        r = self.run_script("grade_bench.py", "--out", "/nonexistent/x", "--copies", "0",
                            "--cmake-args", "-DCMAKE_CUDA_ARCHITECTURES=90")
        self.assertEqual(r.returncode, 2)
        self.assertIn("must be positive", r.stderr)
        self.assertNotIn("expected one argument", r.stderr)


if __name__ == "__main__":
    unittest.main()
