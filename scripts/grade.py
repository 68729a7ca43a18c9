#!/usr/bin/env python3
"""Grade the test suite of a build you trust (your own solutions, a CI build): run ctest (all labs
or the ones named) and write

  <out>/junit.xml     ctest's own JUnit report
  <out>/results.json  a Gradescope results file (score, execution_time, tests[])
  a score table per lab and per task on stdout.

A student's submission is graded with scripts/grade_submission.py, which builds and runs it in a
sandbox; this command runs the build folder as it is.

Points come from the tasks of grading/points.json: a task's points are split evenly among the
tests that grade it, a test that grades no task earns nothing, and a lab whose gate failed (--help,
bad arguments) earns nothing. The total is the sum of the tasks. A test that did not run (a GPU test without a GPU) scores 0 and is
reported as skipped: its Gradescope status is "failed" with output "skipped: ...", and
extra_data.skipped counts them. A test that ran past its limit fails with "failed: timed out
after N s" (extra_data.timed_out counts them). The tests draw their inputs from a seed drawn for
the run (--test-seed N to repeat one), written to results.json as extra_data.test_seed.

  scripts/grade.py                          # every lab, build folder ./build
  scripts/grade.py --labs vec_add rgba_split --out grading-out
  scripts/grade.py --junit old/junit.xml    # grade an existing report without running ctest
  scripts/grade.py --results out/results.json   # the lab and task tables of a graded run

Limits: each test has its TIMEOUT from the build (CUDALAB_TIMEOUT_* cache variables); --timeout
applies to tests without one, and --wall-timeout bounds the whole ctest run.
Exit codes: 0 graded (whatever the score), 2 usage error, 3 ctest could not be run.
"""
import json
import os
import secrets
import sys
import time

from cudalab import script_cli
from cudalab.labgrade import ctest, results

POINTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "grading", "points.json")


def fail(code, message):
    script_cli.fail("grade", code, message)


def main():
    ap = script_cli.Parser(prog="grade", description="Grade the suite with ctest and write JUnit + Gradescope results.")
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--labs", nargs="*", default=[], help="labs to grade (default: all)")
    ap.add_argument("--points", default=POINTS)
    ap.add_argument("--out", default="grading-out")
    ap.add_argument("--junit", help="grade this JUnit report instead of running ctest")
    ap.add_argument("--jobs", type=int, default=1, help="tests run at once (ctest -j)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds for a test that has no TIMEOUT of its own")
    ap.add_argument("--wall-timeout", type=float, default=7200, help="seconds for the whole ctest run")
    ap.add_argument("--ctest-args", default="", help="extra arguments for ctest")
    ap.add_argument("--results", help="print the lab and task tables of an existing results.json and stop")
    ap.add_argument("--test-seed", type=int, default=None,
                    help="the seed the tests draw their inputs from (CUDALAB_TEST_SEED; default: drawn for this run)")
    args = ap.parse_args()
    if args.jobs < 1 or args.timeout <= 0 or args.wall_timeout <= 0:
        fail(2, "--jobs, --timeout and --wall-timeout must be positive")
    if args.test_seed is not None and not 0 < args.test_seed < 2 ** 63:
        fail(2, "--test-seed must be a positive integer below 2^63")
    seed = args.test_seed if args.test_seed is not None else secrets.randbits(62) + 1
    try:
        table = results.load_points(args.points)
    except ValueError as e:
        fail(2, str(e))
    if args.results:
        try:
            with open(args.results) as f:
                tests = json.load(f)["tests"]
        except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
            fail(2, f"cannot read results file {args.results}: {e}")
        results.print_labs(tests)
        results.print_tasks({k: v for k, v in results.task_summary(tests, table).items() if v["tests"]})
        return 0
    if not os.path.isdir(args.build_dir):
        fail(2, f"build folder {args.build_dir} does not exist (configure and build first)")
    os.makedirs(args.out, exist_ok=True)

    try:
        labels = ctest.list_tests(args.build_dir)
    except RuntimeError as e:
        fail(3, str(e))
    start = time.time()
    junit, timed_out = args.junit, {}
    if junit is None:
        junit = os.path.abspath(os.path.join(args.out, "junit.xml"))
        regex = "^(" + "|".join(args.labs) + ")$" if args.labs else None
        os.environ["CUDALAB_TEST_SEED"] = str(seed)  # ctest and every test it starts draw from it
        try:  # the graders' one pipeline: ctest, its JUnit report, each GoogleTest binary's cases
            run, cases, timed_out = results.run_and_collect(args.build_dir, junit, regex, args.jobs, args.timeout,
                                                            args.wall_timeout, labels, extra=args.ctest_args.split())
        except OSError as e:
            fail(3, f"cannot run ctest: {e}")
        if run.timed_out:
            print(f"grade: the ctest run passed its limit of {args.wall_timeout:g} s; unfinished tests fail",
                  file=sys.stderr)
        if not os.path.exists(junit):
            fail(3, "ctest wrote no JUnit report")
        results.mark_timeouts(junit, timed_out)
    else:
        try:
            cases = results.parse_junit(junit)
        except ValueError as e:
            fail(2, str(e))
    elapsed = time.time() - start
    # A report from another machine may hold tests this build does not list: grade those too.
    for name in cases:
        labels.setdefault(name, [])
    listed = results.fixed_list(labels, table, set(args.labs) if args.labs else None)
    if args.junit:
        listed = [t for t in listed if t.name in cases]
    tests = results.score(listed, cases, timed_out)
    data = results.results_json(tests, table, elapsed, None if args.junit else {"test_seed": seed})
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(data, f, indent=2)
    results.print_labs(tests)
    results.print_tasks(data["extra_data"]["tasks"])
    print(f"reports: {os.path.abspath(junit)}, {os.path.abspath(os.path.join(args.out, 'results.json'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
