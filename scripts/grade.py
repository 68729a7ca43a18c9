#!/usr/bin/env python3
"""Grade the test suite: run ctest (all labs or the ones named) and write

  <out>/junit.xml     ctest's own JUnit report
  <out>/results.json  a Gradescope results file (score, execution_time, tests[])
  a score table per lab on stdout.

Points per test come from grading/points.json (first matching pattern, else the lab's
per_test, else default_per_test). A test that did not run (a GPU test without a GPU) scores 0
and is reported as skipped: its Gradescope status is "failed" with output "skipped: ...",
and extra_data.skipped counts them.

  scripts/grade.py                          # every lab, build folder ./build
  scripts/grade.py --labs vec_add rgba_split --out grading-out
  scripts/grade.py --junit old/junit.xml    # grade an existing report without running ctest
  scripts/grade.py --results out/results.json   # the lab and task tables of a graded run

The "tasks" section of the points table names the tests of each student region (task); the
score per task is printed after the labs and stored in results.json as extra_data.tasks.

Exit codes: 0 graded (whatever the score), 2 usage error, 3 ctest could not be run.
"""
import fnmatch
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import script_cli  # noqa: E402

HIDDEN_LABEL = "hidden"  # tests with this ctest label are hidden from students on Gradescope


def fail(code, message):
    script_cli.fail("grade", code, message)


def test_labels(build_dir):
    """ctest's view of every test: name -> labels. Raises RuntimeError if ctest cannot list them."""
    try:
        out = subprocess.run(["ctest", "--test-dir", build_dir, "--show-only=json-v1"],
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError(f"cannot list the tests in {build_dir}: {e}") from e
    labels = {}
    for test in json.loads(out).get("tests", []):
        names = []
        for prop in test.get("properties", []):
            if prop.get("name") == "LABELS":
                names = prop.get("value", [])
        labels[test["name"]] = names
    return labels


def lab_of(labels, known_labs, name=""):
    if not labels:  # a test this build does not know (a report from another machine): its name
        prefix = name.split(".")[0]
        if prefix in known_labs:
            return prefix
    for label in labels:
        if label in known_labs:
            return label
    for label in labels:
        if label not in ("cpu", "gpu", "smoke", "sanitize", HIDDEN_LABEL):
            return label
    return "other"


def points_for(name, lab, table):
    for pattern, points in table.get("tests", {}).items():
        if fnmatch.fnmatchcase(name, pattern):
            return float(points)
    lab_entry = table.get("labs", {}).get(lab, {})
    return float(lab_entry.get("per_test", table.get("default_per_test", 1)))


def task_summary(tests, table):
    """{task id: {"tests", "passed", "score", "max_score"}} for every task in the points table's
    "tasks" section that at least one of `tests` (results.json entries) belongs to."""
    summary = {}
    for task, patterns in table.get("tasks", {}).items():
        mine = [t for t in tests if any(fnmatch.fnmatchcase(t["name"], p) for p in patterns)]
        if mine:
            summary[task] = {"tests": len(mine), "passed": sum(t["status"] == "passed" for t in mine),
                             "skipped": sum(is_skipped(t) for t in mine),
                             "score": round(sum(t["score"] for t in mine), 3),
                             "max_score": round(sum(t["max_score"] for t in mine), 3)}
    return summary


def print_tasks(tasks):
    if not tasks:
        return
    print(f"{'task':<28} {'score':>9} {'max':>9} {'passed':>7} {'skipped':>8} {'tests':>7}")
    for task, s in tasks.items():
        print(f"{task:<28} {s['score']:>9.1f} {s['max_score']:>9.1f} {s['passed']:>7} {s.get('skipped', 0):>8} {s['tests']:>7}")


def is_skipped(test):
    """A results.json entry for a test that did not run (grade() writes its output as "skipped: ...")."""
    return test["status"] != "passed" and test.get("output", "").startswith("skipped")


def print_labs(tests, notes=None):
    """The score table per lab of results.json entries; `notes` adds a remark per lab."""
    notes = notes or {}
    per_lab = {}
    for t in tests:
        s = per_lab.setdefault(t["tags"][0] if t.get("tags") else "other", [0.0, 0.0, 0, 0, 0])
        s[0] += t["score"]
        s[1] += t["max_score"]
        s[2 if t["status"] == "passed" else 4 if is_skipped(t) else 3] += 1
    note_head = "  note" if notes else ""
    print(f"{'lab':<16} {'score':>9} {'max':>9} {'passed':>7} {'failed':>7} {'skipped':>8}{note_head}")
    for lab in sorted(per_lab):
        score, max_score, passed, failed, skipped = per_lab[lab]
        note = f"  {notes[lab]}" if lab in notes else ""
        print(f"{lab:<16} {score:>9.1f} {max_score:>9.1f} {passed:>7} {failed:>7} {skipped:>8}{note}")
    print(f"{'total':<16} {sum(s[0] for s in per_lab.values()):>9.1f} {sum(s[1] for s in per_lab.values()):>9.1f}")


def parse_junit(path):
    """[(name, status, output)] with status passed | failed | skipped."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        fail(2, f"cannot read JUnit report {path}: {e}")
    cases = []
    for case in root.iter("testcase"):
        name = case.get("name")
        out = (case.findtext("system-out") or "").strip()
        if case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            reason = case.find("skipped").get("message", "") if case.find("skipped") is not None else ""
            status = "skipped"
            out = f"skipped: {reason}\n{out}".strip()
        elif case.find("failure") is not None or case.get("status") == "fail":
            status = "failed"
            failure = case.find("failure")
            message = failure.get("message", "") if failure is not None else ""
            out = f"{message}\n{out}".strip()
        else:
            status = "passed"
        cases.append((name, status, out[-4000:]))  # keep the end, where failures are printed
    return cases


def main():
    ap = script_cli.Parser(prog="grade", description="Grade the suite with ctest and write JUnit + Gradescope results.")
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--labs", nargs="*", default=[], help="labs to grade (default: all)")
    ap.add_argument("--points", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "grading", "points.json"))
    ap.add_argument("--out", default="grading-out")
    ap.add_argument("--junit", help="grade this JUnit report instead of running ctest")
    ap.add_argument("--ctest-args", default="", help="extra arguments for ctest, e.g. '-j 8'")
    ap.add_argument("--results", help="print the lab and task tables of an existing results.json and stop")
    args = ap.parse_args()

    try:
        with open(args.points) as f:
            table = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        fail(2, f"cannot read points table {args.points}: {e}")
    if args.results:
        try:
            with open(args.results) as f:
                tests = json.load(f)["tests"]
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
            fail(2, f"cannot read results file {args.results}: {e}")
        print_labs(tests)
        print_tasks(task_summary(tests, table))
        return 0
    if not os.path.isdir(args.build_dir):
        fail(2, f"build folder {args.build_dir} does not exist (configure and build first)")
    os.makedirs(args.out, exist_ok=True)

    try:
        labels = test_labels(args.build_dir)
    except RuntimeError as e:
        fail(3, str(e))
    known_labs = set(table.get("labs", {}).keys())
    start = time.time()
    junit = args.junit
    if junit is None:
        junit = os.path.join(args.out, "junit.xml")
        cmd = ["ctest", "--test-dir", args.build_dir, "--output-junit", os.path.abspath(junit)]
        if args.labs:
            cmd += ["-L", "^(" + "|".join(args.labs) + ")$"]
        cmd += args.ctest_args.split()
        try:
            subprocess.run(cmd, capture_output=True, text=True)  # failing tests are expected
        except OSError as e:
            fail(3, f"cannot run ctest: {e}")
        if not os.path.exists(junit):
            fail(3, "ctest wrote no JUnit report")
    elapsed = time.time() - start

    tests = []
    for name, status, output in parse_junit(junit):
        test_label_list = labels.get(name, [])
        lab = lab_of(test_label_list, known_labs, name)
        if args.labs and lab not in args.labs:
            continue
        max_score = points_for(name, lab, table)
        score = max_score if status == "passed" else 0.0
        entry = {"name": name, "score": score, "max_score": max_score,
                 "status": "passed" if status == "passed" else "failed",
                 "output": output if status != "passed" else "",
                 "tags": [lab]}
        if HIDDEN_LABEL in test_label_list:
            entry["visibility"] = "hidden"
        tests.append(entry)

    skipped = sum(is_skipped(t) for t in tests)
    results = {
        "score": round(sum(t["score"] for t in tests), 3),
        "execution_time": round(elapsed, 1),
        "output": f"{len(tests)} tests; {skipped} skipped (not run)",
        "tests": tests,
        "extra_data": {"skipped": skipped,
                       "max_score": round(sum(t["max_score"] for t in tests), 3),
                       "tasks": task_summary(tests, table)},
    }
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=2)

    print_labs(tests)
    print_tasks(results["extra_data"]["tasks"])
    print(f"reports: {os.path.abspath(junit)}, {os.path.abspath(os.path.join(args.out, 'results.json'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
