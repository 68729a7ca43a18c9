#!/usr/bin/env python3
"""The labs' --json reports against docs/schema/lab-report.schema.json: every report recorded from
a real run (tests/data/reports/, one or more per lab, from the GPU) validates; reports broken the
ways the old format was (verdicts as "yes"/"NO", copy_gbps, numbers as text, a wrong row with a
speed) do not, for the jsonschema package and the built-in validator alike; and the smoke runs'
--run mode passes a lab's exit status on and fails a report that does not validate."""
import copy
import glob
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
from cudalab import lab_manifest  # noqa: E402
from cudalab import report_schema  # noqa: E402

SCHEMA = report_schema.load_schema()
RECORDED = sorted(glob.glob(os.path.join(ROOT, "tests", "data", "reports", "*.json")))
try:
    import jsonschema  # noqa: F401
    HAVE_PACKAGE = True
except ImportError:
    HAVE_PACKAGE = False


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def both(report):
    """(the built-in validator's complaints, the package's or None without it)."""
    mini = report_schema.problems(report, SCHEMA, prefer_package=False)
    package = report_schema.problems(report, SCHEMA) if HAVE_PACKAGE else None
    return mini, package


class Recorded(unittest.TestCase):
    def test_there_is_a_recorded_report_of_every_lab(self):
        # every lab but one marked recorded: false in labs/manifest.json (a lab written where no
        # GPU was at hand, until its first run on the reference GPU); and a marked lab has none,
        # so the mark goes when its report comes
        labs = {load(p)["lab"] for p in RECORDED}
        manifest = lab_manifest.load()
        self.assertEqual(sorted({lab["name"] for lab in manifest if lab_manifest.recorded(lab)} - labs), [])
        self.assertEqual(sorted({lab["name"] for lab in manifest if not lab_manifest.recorded(lab)} & labs), [])

    def test_every_recorded_report_validates(self):
        for path in RECORDED:
            mini, package = both(load(path))
            self.assertEqual(mini, [], path)
            if package is not None:
                self.assertEqual(package, [], path)

    def test_every_measurement_table_has_the_rows_of_the_one_renderer(self):
        # a table of measurements (rows with a variant and a median time) is the driver's: every
        # row has its verdicts as booleans and the standard keys, in every lab that times kernels
        tables = {}
        for p in RECORDED:
            report = load(p)
            for key, value in report.items():
                if isinstance(value, list) and value and all(isinstance(r, dict) and "median_ms" in r and "variant" in r
                                                             for r in value):
                    tables[f"{report['lab']}.{key}"] = value
        for lab in ("vec_add", "rgba_split", "coalescing", "transpose", "mem_spaces", "divergence", "roofline",
                    "reduction"):  # occupancy's smoke run is its what-if mode: no timed table
            self.assertTrue(any(name.startswith(lab + ".") for name in tables), lab)
        for name, rows in tables.items():
            for r in rows:
                for key in ("correct", "suspect", "baseline"):
                    self.assertIsInstance(r[key], bool, name)
                self.assertIn("speedup", r, name)


def a_ladder_report():
    for path in RECORDED:
        r = load(path)
        if r.get("variants") and "copy_ceiling_gbps" in r:
            return r
    raise AssertionError("no recorded ladder report with a copy ceiling")


class Broken(unittest.TestCase):
    def assert_refused(self, report, why):
        mini, package = both(report)
        self.assertNotEqual(mini, [], f"the built-in validator passed: {why}")
        if package is not None:
            self.assertNotEqual(package, [], f"jsonschema passed: {why}")

    def test_each_way_the_old_format_was_is_refused(self):
        base = a_ladder_report()

        def broken(change):
            r = copy.deepcopy(base)
            change(r)
            return r
        cases = {
            "a verdict as text": lambda r: r["variants"][0].update(correct="yes"),
            "the old copy key": lambda r: r.update(copy_gbps=r.pop("copy_ceiling_gbps")),
            "a time as text": lambda r: r["variants"][0].update(median_ms="1.0"),
            "a wrong row with a speed": lambda r: r["variants"][0].update(correct=False, gbps=1000.0, median_ms=1.0),
            "no schema version": lambda r: r.pop("schema_version"),
            "another schema version": lambda r: r.update(schema_version=2),
            "a yes/no field": lambda r: r.update(pinned="yes"),
            "a key that is not snake case": lambda r: r.update(BestVariant="x"),
            "a row without its verdict": lambda r: r["variants"][0].pop("correct"),
            "bytes as text": lambda r: r.update(moved_bytes="1.5 MiB"),
            "a negative time": lambda r: r["variants"][0].update(median_ms=-1.0),
            "a number as text": lambda r: r.update(resident_blocks="8"),
            "two numbers as one string": lambda r: r.update(sums="606.2940 / 606.2939"),
            "a count with its expectation": lambda r: r.update(blocks="8 (expected 8)"),
            "a shape as text": lambda r: r.update(shape="8192 x 333"),
            "a word where null belongs": lambda r: r["variants"][0].update(fallback="-"),
            "exact for 0 ulp": lambda r: r.update(max_ulp="exact"),
        }
        for why, change in cases.items():
            self.assert_refused(broken(change), why)
        self.assertEqual(both(base)[0], [])

    def test_the_built_in_validator_refuses_a_schema_it_does_not_know(self):
        with self.assertRaises(ValueError):
            report_schema.MiniValidator({"type": "string", "maxLength": 3})


class RunMode(unittest.TestCase):
    def lab(self, body):
        d = tempfile.mkdtemp(prefix="fake_lab_")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", d]))
        path = os.path.join(d, "lab")
        with open(path, "w") as f:
            f.write("#!/usr/bin/env python3\nimport sys, json\nassert sys.argv[-1] == '--json'\n" + body)
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return path

    def run_it(self, path):
        return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report_schema.py"), "--run", "--", path, "7"],
                              capture_output=True, text=True).returncode

    def test_a_valid_report_passes_and_the_labs_exit_status_is_passed_on(self):
        good = json.dumps(a_ladder_report())
        self.assertEqual(self.run_it(self.lab(f"print({good!r})\n")), 0)
        self.assertEqual(self.run_it(self.lab("sys.exit(77)\n")), 77)  # no GPU: skipped
        self.assertEqual(self.run_it(self.lab(f"print({good!r}); sys.exit(1)\n")), 1)  # a wrong result

    def test_a_failing_lab_says_why_from_its_report(self):
        report = a_ladder_report()
        report["notes"] = ["  fast: suspect, not ranked: host clock"]
        report["variants"] = [{"variant": "fast", "correct": True, "suspect": True},
                              {"variant": "broken", "correct": False, "suspect": False},
                              {"variant": "fine", "correct": True, "suspect": False}]
        path = self.lab(f"print({json.dumps(report)!r}); sys.exit(1)\n")
        run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report_schema.py"), "--run", "--", path],
                             capture_output=True, text=True)
        self.assertEqual(run.returncode, 1)
        self.assertIn("exited 1", run.stderr)
        self.assertIn("fast: suspect, not ranked: host clock", run.stderr)
        self.assertIn("variants: fast: suspect", run.stderr)
        self.assertIn("variants: broken: wrong", run.stderr)
        self.assertNotIn("fine", run.stderr)
        quiet = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "report_schema.py"), "--run", "--",
                                self.lab("print('{not json'); sys.exit(1)\n")], capture_output=True, text=True)
        self.assertEqual(quiet.returncode, 1)
        self.assertEqual(quiet.stderr.strip().count("\n"), 0, quiet.stderr)  # just the exit line

    def test_an_invalid_or_unreadable_report_fails(self):
        self.assertEqual(self.run_it(self.lab("print(json.dumps({'schema_version': 1, 'lab': 'x', 'ok': 'yes'}))\n")), 1)
        self.assertEqual(self.run_it(self.lab("print('{not json')\n")), 1)
        self.assertEqual(self.run_it(self.lab("sys.stdout.write('[' * 100000)\n")), 1)


if __name__ == "__main__":
    unittest.main()
