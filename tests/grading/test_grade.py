#!/usr/bin/env python3
"""Self-test of scripts/grade.py: grade a fixture project with a passing, a failing, a
skipped and a hidden test, a test that grades no task and a lab whose gate fails, and check the
scores (points come from tasks only) and the results.json schema."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GRADE = os.path.join(ROOT, "scripts", "grade.py")


class GradeFixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="grade_fixture_")
        build = os.path.join(cls.tmp, "build")
        subprocess.run(["cmake", "-S", os.path.join(HERE, "fixture"), "-B", build], check=True, capture_output=True)
        cls.out = os.path.join(cls.tmp, "out")
        cls.proc = subprocess.run([sys.executable, GRADE, "--build-dir", build, "--out", cls.out,
                                  "--points", os.path.join(HERE, "fixture", "points.json")],
                                 capture_output=True, text=True)
        with open(os.path.join(cls.out, "results.json")) as f:
            cls.results = json.load(f)
        cls.by_name = {t["name"]: t for t in cls.results["tests"]}

    def grade_fixture(self, out, *args):
        """grade.py on the fixture's build into `out`, with the fixture's points and `args`."""
        return subprocess.run([sys.executable, GRADE, "--build-dir", os.path.join(self.tmp, "build"), "--out", out,
                               "--points", os.path.join(HERE, "fixture", "points.json"), *args],
                              capture_output=True, text=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_exit_code_and_reports(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.out, "junit.xml")))

    def test_scores(self):
        t = self.by_name
        # a task's points split evenly among its tests: lab_a.one's 6 among three
        self.assertEqual((t["pass_a"]["score"], t["pass_a"]["max_score"]), (2.0, 2.0))
        self.assertEqual((t["fail_a"]["score"], t["fail_a"]["max_score"]), (0.0, 2.0))
        self.assertEqual((t["skip_b"]["score"], t["skip_b"]["max_score"]), (0.0, 2.0))
        self.assertEqual((t["pass_b"]["score"], t["pass_b"]["max_score"]), (5.0, 5.0))  # lab_b.two 3 + half of lab_b.both
        # a test that grades no task earns nothing, however it ends
        self.assertEqual((t["extra_a"]["status"], t["extra_a"]["score"], t["extra_a"]["max_score"]), ("passed", 0.0, 0.0))
        # the total is the sum of the tasks' points: 2 + 3 + 2 of 6 + 3 + 4 + 6
        self.assertEqual(self.results["score"], 7.0)
        self.assertEqual(self.results["extra_data"]["max_score"], 19.0)

    def test_every_run_draws_its_own_seed_and_the_tests_see_it(self):
        seed = self.results["extra_data"]["test_seed"]
        self.assertGreater(seed, 0)
        self.assertEqual(self.by_name["seed_a"]["status"], "passed")  # CUDALAB_TEST_SEED reached the test
        out = os.path.join(self.tmp, "out_seed")
        again = self.grade_fixture(out, "--labs", "lab_a")
        self.assertEqual(again.returncode, 0, again.stderr)
        with open(os.path.join(out, "results.json")) as f:
            self.assertNotEqual(json.load(f)["extra_data"]["test_seed"], seed)  # a new run, new inputs
        run = self.grade_fixture(out, "--labs", "lab_a", "--test-seed", "123", "--ctest-args", "-R seed_a")
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(os.path.join(out, "junit.xml")) as f:
            self.assertIn("seed=123", f.read())  # repeated on purpose: the same inputs
        for bad in ("0", "-3", "x"):
            run = subprocess.run([sys.executable, GRADE, "--test-seed", bad], capture_output=True, text=True)
            self.assertEqual(run.returncode, 2, bad)

    def test_a_failed_gate_closes_its_lab(self):
        t = self.by_name
        self.assertEqual((t["gate_c"]["max_score"], t["gate_c"]["status"]), (0.0, "failed"))  # a gate earns nothing
        self.assertEqual(t["gate_c"]["extra_data"]["gate"], True)
        # pass_c passed, but its lab's gate failed: its task earns nothing and the output says why
        self.assertEqual((t["pass_c"]["score"], t["pass_c"]["max_score"], t["pass_c"]["status"]), (0.0, 6.0, "failed"))
        self.assertIn("gate gate_c failed", t["pass_c"]["output"])
        self.assertEqual(self.results["extra_data"]["gates_failed"], {"lab_c": ["gate_c"]})
        self.assertEqual(self.results["extra_data"]["tasks"]["lab_c.three"]["score"], 0.0)
        line = [l for l in self.proc.stdout.splitlines() if l.startswith("lab_c ")][0]
        self.assertIn("gate failed: gate_c", line)
        # the other labs' gates did not fail: their tasks count
        self.assertEqual(self.results["extra_data"]["tasks"]["lab_a.one"]["score"], 2.0)

    def test_a_graded_run_names_its_tests_exactly(self):
        """The grader's ctest -R (grader.Grader.run_regex) selects exactly the names it lists, with
        ctest's own regular expressions; too long a list runs everything (ctest would match none)."""
        from cudalab.labgrade import grader
        g = grader.Grader({"tasks": {}}, ["a"], None, 1, grader.Limits(), work=self.tmp)
        build = os.path.join(self.tmp, "build")

        def selected(names):
            g.graded_run = names
            out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1", "-R", g.run_regex()],
                                 capture_output=True, text=True, check=True).stdout
            return sorted(t["name"] for t in json.loads(out)["tests"])
        self.assertEqual(selected(["pass_a", "gate_c"]), ["gate_c", "pass_a"])
        self.assertEqual(selected(["pass_"]), [])  # no prefix match
        self.assertEqual(selected(["pass.a", "pass_a|fail_a", "(pass_b)", "pass_[ab]", "skip_b*"]), [])  # no pattern
        g.graded_run = ["x" * 100] * 200
        self.assertIsNone(g.run_regex())
        g.all_tests = True
        g.keep_graded()
        self.assertIsNone(g.run_regex())

    def test_a_points_table_without_tasks_is_refused(self):
        from cudalab.labgrade import results
        for bad in ({}, {"tasks": {}}, {"tasks": {"x.y": ["pattern"]}}, {"tasks": {"x.y": {"points": 0, "tests": ["a"]}}},
                    {"tasks": {"x.y": {"points": 1, "tests": []}}}, {"tasks": {"x.y": {"points": True, "tests": ["a"]}}},
                    {"tasks": {"x.y": {"points": 1, "tests": ["a"]}}, "gates": "a"}):
            with self.assertRaises(ValueError, msg=bad):
                results.check_table(bad)

    def test_skipped_is_not_passed(self):
        skip = self.by_name["skip_b"]
        self.assertEqual(skip["status"], "failed")
        self.assertTrue(skip["output"].startswith("skipped"), skip["output"])
        self.assertEqual(self.results["extra_data"]["skipped"], 1)

    def test_failure_output_and_tags(self):
        self.assertEqual(self.by_name["fail_a"]["status"], "failed")
        self.assertEqual(self.by_name["fail_a"]["tags"], ["lab_a"])
        self.assertEqual(self.by_name["skip_b"]["tags"], ["lab_b"])
        self.assertEqual(self.by_name["pass_b"].get("visibility"), "hidden")
        self.assertNotIn("visibility", self.by_name["pass_a"])

    def test_gradescope_schema(self):
        r = self.results
        self.assertIsInstance(r["score"], (int, float))
        self.assertIsInstance(r["execution_time"], (int, float))
        self.assertEqual(len(r["tests"]), 9)
        for t in r["tests"]:
            # Gradescope's test entry; extra_data (its optional field) says skipped or timed out
            self.assertEqual(set(t) - {"visibility", "extra_data"}, {"name", "score", "max_score", "status", "output", "tags"})
            self.assertIn(t["status"], ("passed", "failed"))
            self.assertLessEqual(t["score"], t["max_score"])
            self.assertLessEqual(set(t.get("extra_data", {})), {"skipped", "timed_out_s", "seconds", "gate"})
            # every test that ran says how long it took
            self.assertGreaterEqual(t.get("extra_data", {}).get("seconds", -1), 0, t["name"])
        self.assertEqual(sum(bool(t.get("extra_data", {}).get("timed_out_s")) for t in r["tests"]),
                         r["extra_data"]["timed_out"])
        self.assertEqual(sum(bool(t.get("extra_data", {}).get("skipped")) for t in r["tests"]), r["extra_data"]["skipped"])

    def test_score_table_on_stdout(self):
        self.assertIn("lab_a", self.proc.stdout)
        self.assertIn("total", self.proc.stdout)
        line = [l for l in self.proc.stdout.splitlines() if l.startswith("lab_a")][0].split()
        self.assertEqual(line[1:], ["2.0", "6.0", "3", "2", "0"])

    def test_a_test_past_its_timeout_is_reported_as_timed_out(self):
        hang = self.by_name["hang_a"]
        self.assertEqual((hang["status"], hang["score"], hang["max_score"]), ("failed", 0.0, 2.0))
        self.assertTrue(hang["output"].startswith("failed: timed out after"), hang["output"])
        self.assertEqual(self.results["extra_data"]["timed_out"], 1)
        import xml.etree.ElementTree as ET
        case = [c for c in ET.parse(os.path.join(self.out, "junit.xml")).getroot().iter("testcase")
                if c.get("name") == "hang_a"][0]
        self.assertTrue(case.find("failure").get("message").startswith("timed out after"))

    def test_tasks(self):
        tasks = self.results["extra_data"]["tasks"]
        self.assertEqual(tasks["lab_a.one"], {"tests": 3, "passed": 1, "skipped": 0, "score": 2.0, "max_score": 6.0})
        self.assertEqual(tasks["lab_b.two"], {"tests": 1, "passed": 1, "skipped": 0, "score": 3.0, "max_score": 3.0})
        self.assertEqual(tasks["lab_b.both"], {"tests": 2, "passed": 1, "skipped": 1, "score": 2.0, "max_score": 4.0})
        line = [l for l in self.proc.stdout.splitlines() if l.startswith("lab_a.one")][0].split()
        self.assertEqual(line[1:], ["2.0", "6.0", "1", "0", "3"])
        # the total is the sum of the tasks
        self.assertEqual(self.results["score"], sum(t["score"] for t in tasks.values()))

    def test_tables_of_an_existing_results_file(self):
        run = subprocess.run([sys.executable, GRADE, "--results", os.path.join(self.out, "results.json"),
                              "--points", os.path.join(HERE, "fixture", "points.json")], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual([l for l in run.stdout.splitlines() if l.startswith("lab_a ")][0].split()[1:],
                         ["2.0", "6.0", "3", "2", "0"])
        self.assertEqual([l for l in run.stdout.splitlines() if l.startswith("lab_b ")][0].split()[1:],
                         ["5.0", "7.0", "1", "0", "1"])
        self.assertEqual([l for l in run.stdout.splitlines() if l.startswith("lab_b.two")][0].split()[1:],
                         ["3.0", "3.0", "1", "0", "1"])
        bad = subprocess.run([sys.executable, GRADE, "--results", "/nonexistent/results.json"], capture_output=True, text=True)
        self.assertEqual(bad.returncode, 2)
        self.assertEqual(len(bad.stderr.strip().splitlines()), 1)

    def test_lab_of_a_test_this_build_does_not_know(self):
        from cudalab.labgrade import results
        self.assertEqual(results.lab_of([], {"vec_add"}, "vec_add.sanitize.memcheck"), "vec_add")
        self.assertEqual(results.lab_of([], {"vec_add"}, "Unknown.Test"), "other")
        self.assertEqual(results.lab_of(["gpu", "rgba_split"], {"vec_add", "rgba_split"}, "vec_add.x"), "rgba_split")

    def test_one_lab(self):
        out = os.path.join(self.tmp, "out_b")
        run = self.grade_fixture(out, "--labs", "lab_b")
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(os.path.join(out, "results.json")) as f:
            names = {t["name"] for t in json.load(f)["tests"]}
        self.assertEqual(names, {"skip_b", "pass_b"})

    def test_bad_points_file_is_a_usage_error(self):
        run = subprocess.run([sys.executable, GRADE, "--points", "/nonexistent.json"], capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1)

    def test_bad_options_of_the_grading_commands(self):
        scripts = os.path.join(ROOT, "scripts")
        bad = [[GRADE, "--jobs", "0"],
               [os.path.join(scripts, "grade_submission.py"), ROOT, "--jobs", "0"],
               [os.path.join(scripts, "grade_submission.py"), ROOT, "--index", "1"],
               [os.path.join(scripts, "grade_submission.py"), ROOT, "--lab-timeout", "abc"],
               [os.path.join(scripts, "grade_submission.py"), "/nonexistent/submission"],
               [os.path.join(scripts, "grade_submission.py")],
               [os.path.join(scripts, "grade_submission.py"), "--prepare-base", self.tmp],
               [os.path.join(scripts, "grade_submission.py"), ROOT, "--prepare-base", os.path.join(self.tmp, "b")],
               [os.path.join(scripts, "grade_submission.py"), ROOT, "--submission-memory-gib", "-1"],
               [os.path.join(scripts, "grade_submission.py"), ROOT, "--test-seed", "0"],
               [os.path.join(scripts, "grade_submission.py"), ROOT, "--test-seed", "x"],
               [os.path.join(scripts, "grade_merge.py"), self.tmp],
               [os.path.join(scripts, "grade_baseline.py"), "--labs", "nosuch"],
               [os.path.join(scripts, "grade_baseline.py"), "--compile-only", "/nonexistent"],
               [os.path.join(scripts, "grade_baseline.py"), "--bogus"],
               [os.path.join(scripts, "student_regions.py"), "--root", "/nonexistent"]]
        for cmd in bad:
            run = subprocess.run([sys.executable] + cmd, capture_output=True, text=True)
            self.assertEqual(run.returncode, 2, cmd)
            self.assertEqual(len(run.stderr.strip().splitlines()), 1, (cmd, run.stderr))
        run = subprocess.run([os.path.join(ROOT, "grading", "slurm", "submit.sh"), self.tmp, self.out, "--throttle", "x"],
                             capture_output=True, text=True)
        self.assertEqual((run.returncode, len(run.stderr.strip().splitlines())), (2, 1), run.stderr)

    def test_a_base_that_is_missing_or_prepared_otherwise_is_refused(self):
        # --base takes a base only as prepare_base wrote it, for the same labs and options (exit 3,
        # one line), before anything is graded
        base = os.path.join(self.tmp, "base-vec_add")
        os.makedirs(base)
        with open(os.path.join(base, "base.json"), "w") as f:
            json.dump({"labs": ["vec_add"], "cmake_args": [], "gtest_batch": True, "all_tests": False, "labels": {},
                       "batches": {}, "graded_run": [], "region_files": []}, f)
        grade = os.path.join(ROOT, "scripts", "grade_submission.py")
        for where, labs, expected in ((base, ["device_query"], "was built with other labs"),
                                      (base, ["vec_add", "--per-case"], "was built with other gtest_batch"),
                                      (base, ["vec_add", "--all-tests"], "was built with other all_tests"),
                                      (os.path.join(self.tmp, "no-base"), ["vec_add"], "no prepared base")):
            out = os.path.join(self.tmp, "out-base")
            run = subprocess.run([sys.executable, grade, ROOT, "--base", where, "--unsafe-no-sandbox", "--out", out,
                                  "--labs"] + labs, capture_output=True, text=True)
            self.assertEqual(run.returncode, 3, run.stderr)
            self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
            self.assertIn(expected, run.stderr)
            self.assertFalse(os.path.exists(os.path.join(out, "results.json")))


    def test_a_base_serves_any_of_its_labs_on_its_own_inputs(self):
        # a base of two labs grades either; its own tests' results are reused only on the inputs
        # they ran on: its seed becomes the run's, unless another was given (then they run again)
        from cudalab.labgrade import grader, results
        base = os.path.join(self.tmp, "base-two")
        os.makedirs(base)
        naive = "Variants/VecAddAllSizes.FloatMatchesReference/naive_n1"
        ran = {"n": 1, "results": {naive: ["passed", "", 0.1]}}
        with open(os.path.join(base, "base.json"), "w") as f:
            json.dump({"labs": ["device_query", "vec_add"], "cmake_args": [], "gtest_batch": True, "all_tests": False,
                       "labels": {naive: ["gpu", "vec_add"], "VecAddReference.AddsElementwise": ["cpu", "vec_add"],
                                  "Residency.H200With256Threads": ["cpu", "device_query"]},
                       "batches": {}, "graded_run": [naive], "region_files": [], "test_seed": 123,
                       "base_results": [ran["results"], {}]}, f)
        points = results.load_points(os.path.join(ROOT, "grading", "points.json"))
        limits = grader.Limits(60, 60, 60, None, None)
        for seed, kept in ((None, True), (123, True), (5, False)):
            g = grader.Grader(points, ["vec_add"], None, 1, limits, test_seed=seed, log=lambda *a: None,
                              gtest_batch=True)
            g.base_tests_in_copy = lambda: ran.update(n=ran["n"] + 1)
            before = ran["n"]
            g.load_base(base)
            # vec_add's tests that grade a task (not its reference's, which grades none)
            self.assertEqual([t.name for t in g.listed], [naive])
            self.assertEqual(g.test_seed, 123 if kept else 5)
            self.assertEqual(g.base_results is not None, kept, seed)
            self.assertEqual(ran["n"] - before, 0 if kept else 1, seed)  # run again, once, on the new inputs
            g.cleanup()


class Stopped(unittest.TestCase):
    """A stopped grading run exits 128 + the signal that stopped it, also where the signal's
    KeyboardInterrupt was lost (Python ignores exceptions in at-fork hooks and __del__) and the run
    ended at its next bounded step with ctest.Stopped instead."""

    def test_the_status_is_the_first_signals(self):
        import signal
        import grade_submission as gs
        from cudalab.labgrade import ctest
        try:
            try:  # where Python swallows the handler's exception
                gs.stop(signal.SIGTERM, None)
            except KeyboardInterrupt:
                pass
            self.assertTrue(ctest.STOP.is_set())
            self.assertEqual(gs.stopped_status(ctest.Stopped()), 128 + signal.SIGTERM)
            with self.assertRaises(KeyboardInterrupt):
                gs.stop(signal.SIGINT, None)  # a second signal does not change what stopped the run
            self.assertEqual(gs.stopped_status(KeyboardInterrupt(signal.SIGINT)), 128 + signal.SIGTERM)
            gs.STOPPED_BY.clear()
            self.assertEqual(gs.stopped_status(KeyboardInterrupt(signal.SIGINT)), 128 + signal.SIGINT)
            self.assertEqual(gs.stopped_status(ctest.Stopped()), 128 + signal.SIGINT)
        finally:
            gs.STOPPED_BY.clear()
            ctest.STOP.clear()


class Baseline(unittest.TestCase):
    """scripts/grade_baseline.py's verdict on graded baselines (their grading needs a GPU): a task
    a body earns points on, a body refused and a lab that does not compile are each a problem."""

    def test_what_the_baseline_refuses(self):
        import grade_baseline
        from cudalab.labgrade import baselines
        tmp = tempfile.mkdtemp(prefix="baseline_")
        try:
            def write(kind, tasks, regions, not_compiling=()):
                os.makedirs(os.path.join(tmp, "submissions", kind), exist_ok=True)
                with open(os.path.join(tmp, "submissions", kind, "results.json"), "w") as f:
                    json.dump({"extra_data": {"tasks": tasks, "regions": regions,
                                              "not_compiling": list(not_compiling)}}, f)
            zero = {"score": 0.0, "max_score": 5.0, "tests": 4, "passed": 0}
            TAKEN = {"outcome": "taken", "why": None}
            for kind in baselines.ALL_KINDS:
                write(kind, {"vec_add.naive": zero, "latency_hiding.copy": zero, "transfers.issue_chunk": zero},
                      {"vec_add.naive": TAKEN, "latency_hiding.copy": TAKEN, "transfers.issue_chunk": TAKEN})
            rows, wrong = grade_baseline.check(tmp, ["vec_add", "latency_hiding", "transfers"])
            self.assertEqual(wrong, [])
            self.assertEqual(rows["vec_add.naive"]["zeros"], "0/5")
            self.assertEqual(rows["latency_hiding.copy"]["copy"], "n/a")  # its copy is its answer
            self.assertEqual(rows["vec_add.naive"]["index"], "n/a")  # an extra kind: only its tasks
            self.assertEqual(rows["transfers.issue_chunk"]["index"], "0/5")
            # the answer made from the index earning points is caught like the three kinds
            write("index", {"transfers.issue_chunk": dict(zero, score=10.0, passed=4)}, {"transfers.issue_chunk": TAKEN})
            _, wrong = grade_baseline.check(tmp, ["transfers"])
            self.assertEqual(wrong, ["index: transfers.issue_chunk earned 10 of 5 (4 of 4 tests passed)"])
            write("index", {"transfers.issue_chunk": zero}, {"transfers.issue_chunk": TAKEN})
            write("copy", {"vec_add.naive": dict(zero, score=1.25, passed=1)}, {"vec_add.naive": TAKEN})
            write("constant", {"vec_add.naive": zero}, {"vec_add.naive": {"outcome": "rejected", "why": "fmt::print"}},
                  ["hello"])
            _, wrong = grade_baseline.check(tmp, ["vec_add"])
            self.assertEqual(len(wrong), 3, wrong)
            self.assertTrue(any("copy: vec_add.naive earned 1.25 of 5" in w for w in wrong), wrong)
            self.assertTrue(any("not taken (rejected: fmt::print)" in w for w in wrong), wrong)
            self.assertTrue(any("hello does not compile" in w for w in wrong), wrong)
            if not grade_baseline.has_gpu():  # where there is none: skipped, exit 0, nothing built
                run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "grade_baseline.py"), "--out",
                                      os.path.join(tmp, "out")], capture_output=True, text=True)
                self.assertEqual(run.returncode, 0, run.stderr)
                self.assertIn("skipped: no GPU", run.stdout)
                self.assertFalse(os.path.exists(os.path.join(tmp, "out")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Pipeline(unittest.TestCase):
    """results.run_and_collect, the one ctest -> JUnit -> cases pipeline, where ctest runs in a
    sandbox that sees the build and the report at other paths than the grader does."""

    def test_the_report_is_read_where_the_grader_sees_it(self):
        from cudalab.labgrade import results
        tmp = tempfile.mkdtemp(prefix="pipeline_")
        try:
            host_junit = os.path.join(tmp, "junit.xml")
            with open(host_junit, "w") as f:
                f.write('<testsuite><testcase name="lab.smoke.run" time="0.5"/>'
                        '<testcase name="lab_gpu_test" time="1"/></testsuite>')
            os.makedirs(os.path.join(tmp, "gtest-batch"))
            with open(os.path.join(tmp, "gtest-batch", "lab_gpu_test.xml"), "w") as f:
                f.write('<testsuite><testcase name="Lab.Hangs" status="fail" timed_out_s="60">'
                        '<failure message="timed out after 60 s"/></testcase></testsuite>')
            seen = []

            def runner(cmd, timeout):  # the sandboxed ctest: it was told the /grade paths
                seen.append(cmd)
                return type("Run", (), {"stdout": "", "timed_out": False})()
            labels = {"lab_gpu_test": ["gpu", "lab", "gtest_batch"]}
            run, cases, timed_out = results.run_and_collect("/grade/build", "/grade/out/junit.xml", None, 1, 60, 600,
                                                            dict(labels), runner=runner, seen_as=(tmp, host_junit))
            self.assertIn("/grade/out/junit.xml", seen[0])
            self.assertEqual(sorted(cases), ["Lab.Hangs", "lab.smoke.run"])
            self.assertEqual(timed_out, {"Lab.Hangs": 60.0})
            # read at ctest's own paths instead, nothing is found: every test would be "did not run"
            _, cases, _ = results.run_and_collect("/grade/build", "/grade/out/junit.xml", None, 1, 60, 600, dict(labels),
                                                  runner=runner)
            self.assertEqual(cases, {})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class Leaderboard(unittest.TestCase):
    """--leaderboard's measurement and ranking, with a stand-in lab run (no GPU needed)."""

    class FakeWorkspace:
        def __init__(self, gbps):
            self.gbps, self.ran = gbps, []

        def path(self, which):
            return "/grade/" + which

        def run(self, cmd, timeout, build_writable=True, extra_env=None, pass_fds=()):
            # the lab writes its report to the grader's pipe (CUDALAB_REPORT_FD), not to stdout
            self.ran.append(cmd)
            rows = [{"variant": v, "gbps": g if g > 0 else None, "percent_of_copy": g / 40.0, "correct": g > 0,
                     "suspect": False, "baseline": False} for v, g in self.gbps.items()]
            fd = int(extra_env["CUDALAB_REPORT_FD"])
            assert fd in pass_fds
            os.write(fd, json.dumps({"copy_ceiling_gbps": 4000.0, "variants": rows}).encode())
            return type("Run", (), {"stdout": json.dumps({"copy_ceiling_gbps": 1.0, "variants": [
                {"variant": "naive", "gbps": 1e9, "correct": True, "suspect": False, "baseline": False}]})})()

    def test_measure_keeps_correct_tasks_and_the_best_variant(self):
        from cudalab.labgrade import leaderboard
        ws = self.FakeWorkspace({"naive": 3000.0, "coarsened2": 3500.0, "coarsened4": 3900.0, "grid_stride": 0.0,
                                 "vectorized": 3800.0})
        full = {"tests": 3, "passed": 3}
        tasks = {"vec_add.naive": full, "vec_add.coarsened": full, "vec_add.grid_stride": full,
                 "vec_add.vectorized": {"tests": 3, "passed": 2}}
        got = leaderboard.measure(ws, ["vec_add", "device_query"], tasks)
        self.assertEqual(len(ws.ran), 1)  # labs without a ladder: not run
        self.assertEqual((ws.ran[0][0], ws.ran[0][2]), ("/grade/build/labs/vec_add", "--json"))
        self.assertLessEqual(abs(int(ws.ran[0][1]) - (1 << 26)), 1 << 22)  # a size drawn for this run
        self.assertEqual(got["vec_add.naive"]["gbps"], 3000.0)  # from the pipe, not what stdout claimed
        self.assertEqual(got["vec_add.naive"]["size"], ws.ran[0][1])
        self.assertEqual(sorted(got), ["vec_add.coarsened", "vec_add.naive"])  # wrong or failing tasks do not rank
        self.assertEqual((got["vec_add.coarsened"]["variant"], got["vec_add.coarsened"]["gbps"]), ("coarsened4", 3900.0))
        self.assertEqual(got["vec_add.naive"]["copy_ceiling_gbps"], 4000.0)

    def test_write_ranks_per_task(self):
        from cudalab.labgrade import leaderboard
        tmp = tempfile.mkdtemp(prefix="leaderboard_")
        try:
            graded = {}
            for name, pct in (("ann", 80.0), ("bo", 95.0), ("cy", None)):
                folder = os.path.join(tmp, name)
                os.makedirs(folder)
                board = {} if pct is None else {"vec_add.naive": {"variant": "naive", "gbps": pct * 40,
                                                                  "percent_of_copy": pct, "copy_ceiling_gbps": 4000.0}}
                with open(os.path.join(folder, "results.json"), "w") as f:
                    json.dump({"extra_data": {"leaderboard": board}}, f)
                graded[name] = folder
            rows = leaderboard.write(graded, tmp)
            self.assertEqual([(r["rank"], r["submission"]) for r in rows], [(1, "bo"), (2, "ann")])
            with open(os.path.join(tmp, "leaderboard.md")) as f:
                md = f.read()
            self.assertIn("| 1 | bo | naive |  | 3800.0 | 95.0 | 95.0 |", md)
            self.assertNotIn("cy", md)
            with open(os.path.join(tmp, "leaderboard.csv")) as f:
                self.assertEqual(f.readline().strip(), "task,rank,submission,variant,size,gbps,percent_of_copy,"
                                                       "copy_ceiling_gbps,percent_of_roof,roof")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_a_flop_lab_ranks_by_its_share_of_the_fp32_peak_whatever_the_size(self):
        from cudalab.labgrade import leaderboard
        data = {"copy_ceiling_gbps": 4000.0, "peak_gbps": 4800.0, "peak_fp32_gflops": 60000.0}
        row = {"variant": "smem32", "correct": True, "suspect": False, "baseline": False}
        # a bigger matrix moves its bytes faster at the same FLOP/s: bandwidth would rank it first
        small = dict(row, gbps=30.0, gflops=8000.0)
        big = dict(row, gbps=45.0, gflops=7000.0)
        self.assertGreater(leaderboard.share_of_roof(small, data)[0], leaderboard.share_of_roof(big, data)[0])
        self.assertEqual(leaderboard.share_of_roof(small, data), (100.0 * 8000 / 60000, "FP32 peak"))
        self.assertFalse(leaderboard.believable(dict(row, gbps=30.0, gflops=61000.0), data))  # above the peak
        self.assertFalse(leaderboard.believable(dict(row, gbps=30.0, gflops=None), data))
        self.assertTrue(leaderboard.believable(small, data))
        vec = {"copy_ceiling_gbps": 4000.0}
        self.assertEqual(leaderboard.share_of_roof(dict(row, gbps=3000.0), vec), (75.0, "copy ceiling"))
        tmp = tempfile.mkdtemp(prefix="leaderboard_")
        try:
            graded = {}
            for name, r in (("ann", big), ("bo", small)):
                folder = os.path.join(tmp, name)
                os.makedirs(folder)
                pct, roof = leaderboard.share_of_roof(r, data)
                board = {"matmul.smem_tile": {"variant": "smem32", "gbps": r["gbps"], "percent_of_copy": 1.0,
                                              "copy_ceiling_gbps": 4000.0, "size": "2100", "percent_of_roof": pct,
                                              "roof": roof}}
                with open(os.path.join(folder, "results.json"), "w") as f:
                    json.dump({"extra_data": {"leaderboard": board}}, f)
                graded[name] = folder
            rows = leaderboard.write(graded, tmp)
            self.assertEqual([r["submission"] for r in rows], ["bo", "ann"])
            with open(os.path.join(tmp, "leaderboard.md")) as f:
                self.assertIn("% of FP32 peak", f.read())
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
