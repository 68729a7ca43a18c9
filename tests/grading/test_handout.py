#!/usr/bin/env python3
"""Handout mode, end to end on the CPU:
  - the generated student tree contains no solution text, configures and builds, and its
    stubbed tasks fail their CPU tests;
  - the handout as generated scores 0, the solutions every point (on a GPU, the whole total), the
    handout with one task written exactly that task;
  - grading a submission takes only the student files: the repository's own solutions score
    every test that runs, a lab that does not compile scores 0 without stopping the others,
    and an edited test file changes nothing; a folder of submissions is graded with --batch
    (an unreadable archive scores 0 and does not stop the others);
  - the Gradescope bundle holds no solution and, unpacked as Gradescope would, grades a handout
    with run_autograder.
Builds use one GPU architecture (sm_75) to keep the time down; set CUDALAB_HANDOUT_ARCH to change it.
Under ctest the graders share one base, the handout of device_query and vec_add built once
(shared_base.py); HandoutBuilds checks that the handout of every lab compiles, on the suite's own build.
"""
import csv
import fnmatch
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, HERE)
from cudalab.labgrade import regions, results, suite  # noqa: E402
import shared_base  # noqa: E402

ARCH = os.environ.get("CUDALAB_HANDOUT_ARCH", "75-real")
JOBS = str(os.cpu_count() or 2)


def text_files(root):
    for dirpath, _, names in os.walk(root):
        if "/build" in dirpath:
            continue
        for n in names:
            p = os.path.join(dirpath, n)
            try:
                with open(p, encoding="utf-8") as f:
                    yield p, f.read()
            except (UnicodeDecodeError, OSError):
                continue


class Handout(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="handout_test_")
        cls.handout = os.path.join(cls.tmp, "handout")
        run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "handout.py"), "--out", cls.handout],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        cls.regions = suite.find_regions(ROOT)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_no_solution_text_anywhere(self):
        leaks = []
        joined = {p: "\n".join(l.strip() for l in t.split("\n")) for p, t in text_files(self.handout)}
        for rel, regions in self.regions.items():
            with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
                lines = f.read().split("\n")
            inside = set()
            for r in regions:
                inside.update(range(r.begin, r.end + 1))
            outside = {l.strip() for n, l in enumerate(lines, 1) if n not in inside}
            with open(os.path.join(self.handout, rel), encoding="utf-8") as f:
                handout_lines = {l.strip() for l in f.read().split("\n")}
            for r in regions:
                # The body as a whole appears in no file of the handout (READMEs and docs included) ...
                block = "\n".join(l.strip() for l in r.solution if l.strip())
                leaks += [f"{r.id}: its solution is in {os.path.relpath(p, self.handout)}"
                          for p, text in joined.items() if block in text]
                # ... and no line of it is left in its own file, except lines the file also has
                # outside the regions (a closing brace, an index computation another kernel shares).
                for line in r.solution:
                    line = line.strip()
                    if line and line not in outside and line in handout_lines:
                        leaks.append(f"{r.id}: '{line}' is still in {rel}")
        self.assertEqual(leaks, [])

    def test_every_region_is_a_task(self):
        for rel, regions in self.regions.items():
            with open(os.path.join(self.handout, rel), encoding="utf-8") as f:
                text = f.read()
            for r in regions:
                self.assertIn(f"STUDENT-BEGIN({r.id})", text)
                self.assertIn("// TODO: your code here", text)

    def test_instructor_material_is_left_out(self):
        self.assertFalse(os.path.exists(os.path.join(self.handout, "docs", "student-regions.md")))
        self.assertFalse(os.path.exists(os.path.join(self.handout, "labs", "rgba_split", "evidence")))
        with open(os.path.join(self.handout, "labs", "vec_add", "README.md")) as f:
            self.assertNotIn("<details>", f.read())

    def test_answers_leave_every_readme(self):
        src = os.path.join(self.tmp, "readmes")
        answer = "<details><summary>Answer</summary>the answer</details>"
        for rel in ("README.md", "README.zh-CN.md", "labs/x/README.md", "docs/README.en.md", "docs/notes.md"):
            os.makedirs(os.path.dirname(os.path.join(src, rel)), exist_ok=True)
            with open(os.path.join(src, rel), "w", encoding="utf-8") as f:
                f.write(f"text\n{answer}\nmore\n")
        out = os.path.join(self.tmp, "readmes-out")
        suite.write_handout(src, out, set(), {})
        for rel in ("README.md", "README.zh-CN.md", "labs/x/README.md", "docs/README.en.md"):
            with open(os.path.join(out, rel), encoding="utf-8") as f:
                text = f.read()
            self.assertNotIn("the answer", text, rel)
            self.assertIn("more", text, rel)
        with open(os.path.join(out, "docs/notes.md"), encoding="utf-8") as f:
            self.assertIn("the answer", f.read())  # not a README: left as it is

    def test_the_handout_of_device_query_scores_zero_on_the_base(self):
        # The grading base is the handout of the labs these tests grade (regions stubbed, no
        # solutions) configured, built and listed: the one ctest prepared, or one built here.
        base = shared_base.BASE
        if not base:
            base = os.path.join(self.tmp, "base")
            run = shared_base.prepare(base)
            self.assertEqual(run.returncode, 0, (run.stdout + run.stderr)[-3000:])
        with open(os.path.join(base, "base.json")) as f:
            info = json.load(f)
        self.assertEqual(sorted(info["labs"]), sorted(shared_base.LABS))
        self.assertTrue([n for n in info["labels"] if n.startswith("Residency.")])  # its cases, listed in the sandbox
        # The handout as generated, graded on that base: the CPU tests of the stubbed host-side
        # task fail (the kernel tasks' tests need a GPU: see docs/instructors.md).
        out = os.path.join(self.tmp, "handout-grade")
        g = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "grade_submission.py"), self.handout,
                            "--labs", "device_query", "--out", out] + shared_base.grader_args(),
                           capture_output=True, text=True)
        self.assertEqual(g.returncode, 0, g.stderr + g.stdout[-2000:])
        with open(os.path.join(out, "results.json")) as f:
            data = json.load(f)
        tests = {t["name"]: t for t in data["tests"]}
        self.assertEqual(tests["Residency.H200With256Threads"]["status"], "failed")
        self.assertEqual(tests["Residency.ReadmeExerciseThree"]["status"], "failed")
        residency = data["extra_data"]["tasks"]["device_query.residency"]
        self.assertEqual((residency["score"], residency["passed"]), (0.0, 0))
        self.assertGreaterEqual(residency["tests"], 7)
        self.assertEqual(data["score"], 0.0)


class HandoutBuilds(unittest.TestCase):
    """The handout of every lab builds, and the points table fits the suite's tests, checked on the
    build ctest runs in (CUDALAB_BUILD_DIR) instead of a second build of the whole suite: the
    handout differs from the suite only in its region files, so each of them is compiled with the
    suite's own compile command (compile_commands.json) for one architecture (CUDALAB_HANDOUT_ARCH),
    and the listing is the suite's (ctest's tests, each GoogleTest binary by its cases)."""

    @classmethod
    def setUpClass(cls):
        cls.build = os.environ.get("CUDALAB_BUILD_DIR", "")
        if not os.path.exists(os.path.join(cls.build, "compile_commands.json")):
            raise RuntimeError("set CUDALAB_BUILD_DIR to a configured and built suite (ctest sets it)")
        cls.tmp = tempfile.mkdtemp(prefix="handout_builds_")
        cls.handout = os.path.join(cls.tmp, "handout")
        run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "handout.py"), "--out", cls.handout],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        cls.regions = suite.find_regions(ROOT)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @staticmethod
    def one_arch(args):
        """args with their GPU architectures replaced by CUDALAB_HANDOUT_ARCH's one (a file built
        for one architecture of its own, such as sm_90a, keeps its flags)."""
        if any("90a" in a for a in args):
            return args
        out, skip = [], False
        for a in args:
            if skip:
                skip = False
                continue
            if a in ("-gencode", "-arch", "--gpu-architecture", "--generate-code"):
                skip = True
                continue
            if a.startswith(("--generate-code=", "-gencode=", "-arch=", "--gpu-architecture=")):
                continue
            out.append(a)
        arch = ARCH.split("-")[0]
        out.append("-arch=native" if arch == "native" else f"--generate-code=arch=compute_{arch},code=[sm_{arch}]")
        return out

    def test_every_region_file_of_the_handout_compiles(self):
        import concurrent.futures
        import shlex
        with open(os.path.join(self.build, "compile_commands.json")) as f:
            commands = json.load(f)
        jobs = []
        for rel in sorted(self.regions):
            source = os.path.realpath(os.path.join(ROOT, rel))
            mine = [c for c in commands if os.path.realpath(os.path.join(c["directory"], c["file"])) == source]
            self.assertTrue(mine, f"{rel}: not compiled by the suite's build")
            for k, c in enumerate(mine):
                args = shlex.split(c["command"]) if "command" in c else list(c["arguments"])
                args = [os.path.join(self.handout, rel) if os.path.realpath(os.path.join(c["directory"], a)) == source
                        else a for a in args]
                # the handout's own headers (it has them all): its labs' folders and its root
                args = [a.replace("-I" + ROOT, "-I" + self.handout, 1)
                        if a.startswith("-I" + ROOT) and not a.startswith("-I" + self.build) else a for a in args]
                o = args.index("-o")
                args[o + 1] = os.path.join(self.tmp, f"{rel.replace('/', '_')}.{k}.o")
                self.assertIn(os.path.join(self.handout, rel), args)
                jobs.append((rel, c["directory"], self.one_arch(args)))
        self.assertEqual(sorted({j[0] for j in jobs}), sorted(self.regions))

        def compile_one(job):
            rel, cwd, args = job
            # at a lower priority: the grading base beside it is the suite's critical path
            run = subprocess.run(["nice", "-n", "10"] + args, cwd=cwd, capture_output=True, text=True)
            return rel, run.returncode, (run.stdout + run.stderr)[-1500:]

        with concurrent.futures.ThreadPoolExecutor(int(JOBS)) as pool:
            failed = [f"{rel}: {log}" for rel, rc, log in pool.map(compile_one, jobs) if rc != 0]
        self.assertEqual(failed, [])

    def test_the_points_table_names_the_suites_tests(self):
        from cudalab.labgrade import ctest
        labels = ctest.list_tests(self.build)

        def list_cases(name):
            run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gtest_batch.py"), "--list",
                                  "--", os.path.join(self.build, "tests", name)], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr[-500:])
            return run.stdout.split()
        results.expand_listing(labels, list_cases)
        names = list(labels)
        self.assertGreater(len(names), 500)  # every case of every binary
        with open(os.path.join(ROOT, "grading", "points.json")) as f:
            tasks = results.task_tests(json.load(f))
        region_ids = {r.id for rs in self.regions.values() for r in rs}
        self.assertEqual(sorted(region_ids - set(tasks)), [], "regions without a tasks entry in grading/points.json")
        self.assertEqual(sorted(set(tasks) - region_ids), [], "tasks entries that are not regions")
        unmatched = [f"{task}: {p}" for task, patterns in tasks.items() for p in patterns
                     if not any(fnmatch.fnmatchcase(n, p) for n in names)]
        self.assertEqual(unmatched, [])

    def test_every_gpu_test_starts_with_one_queue(self):
        # Every GPU test process starts with one hardware work queue (CUDALAB_TEST_MAX_CONNECTIONS:
        # contexts are made far faster when many test processes start at once); no CPU test is
        # given it, nor one labelled "streams" (streams side by side keep the driver's default).
        listed = subprocess.run(["ctest", "--test-dir", self.build, "--show-only=json-v1"],
                                capture_output=True, text=True)
        props = {t["name"]: {p["name"]: p["value"] for p in t.get("properties", [])}
                 for t in json.loads(listed.stdout)["tests"]}
        queues = {n: "CUDA_DEVICE_MAX_CONNECTIONS=1" in p.get("ENVIRONMENT", []) for n, p in props.items()}
        gpu = [n for n, p in props.items() if "gpu" in p.get("LABELS", []) and "streams" not in p["LABELS"]]
        self.assertGreater(len(gpu), 50)
        self.assertEqual([n for n in gpu if not queues[n]], [])
        self.assertEqual(sorted(n for n in props if queues[n] and n not in gpu), [])
        self.assertIn("common_streams_gpu_test", [n for n in props if not queues[n]])


class SubmissionGrading(unittest.TestCase):
    def test_solutions_broken_lab_and_edited_test(self):
        tmp = tempfile.mkdtemp(prefix="submission_test_")
        try:
            # A folder of submissions, graded with --batch: alice's tree, and two files that are
            # not archives at all (one of them named like alice's folder).
            batch = os.path.join(tmp, "submissions")
            sub = os.path.join(batch, "alice")
            suite.copy_tree(ROOT, sub)
            with open(os.path.join(batch, "bob.zip"), "w") as f:
                f.write("not a zip file\n")
            with open(os.path.join(batch, "alice.tgz"), "w") as f:  # the same name as alice/
                f.write("not a tar file either\n")
            # vec_add does not compile (inside a region: only regions are taken) ...
            rel = "labs/vec_add/vec_add.cu"
            with open(os.path.join(sub, rel)) as f:
                text = f.read()
            text = regions.rewrite(text, regions.parse(rel, text), {"vec_add.naive": ["  this is not C++;"]})
            with open(os.path.join(sub, rel), "w") as f:
                f.write(text)
            # ... and a test is edited to fail: grading must run the original.
            test = os.path.join(sub, "tests", "device_query", "device_query_cpu_test.cpp")
            with open(test, "a") as f:
                f.write("\nTEST(Edited, AlwaysFails) { FAIL() << \"edited test\"; }\n")
            out = os.path.join(tmp, "out")
            run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "grade_submission.py"), batch, "--batch",
                                  "--labs", "device_query", "vec_add", "--out", out] + shared_base.grader_args(),
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr + run.stdout[-2000:])
            with open(os.path.join(out, "summary.csv"), newline="") as f:
                summary = list(csv.DictReader(f))
            self.assertEqual([r["submission"] for r in summary], ["alice", "alice.tgz", "bob"])
            self.assertEqual(summary[0]["not_compiling"], "vec_add")
            for row in summary[1:]:
                self.assertTrue(row["status"].startswith("unreadable"), row)
                self.assertEqual(float(row["score"]), 0.0)
            self.assertIn("bob.zip", run.stderr)
            with open(os.path.join(out, "submissions", "alice", "results.json")) as f:
                data = json.load(f)
            self.assertEqual(float(summary[0]["score"]), data["score"])
            by_lab = {}
            for t in data["tests"]:
                by_lab.setdefault(t["tags"][0], []).append(t)
            self.assertEqual(data["extra_data"]["not_compiling"], ["vec_add"])
            # The lab that does not compile has the fixed list's tests, every one failed at 0 with
            # its points-table maximum, so the maximum does not depend on what the student broke.
            points = results.load_points(os.path.join(ROOT, "grading", "points.json"))
            vec_add = {t["name"]: t for t in by_lab["vec_add"]}
            shares = results.task_shares([t["name"] for t in data["tests"]], points)
            self.assertGreater(len(vec_add), 100)
            for name in ("VecAddReference.AddsElementwise", "vec_add.smoke.help",
                         "Variants/VecAddAllSizes.FloatMatchesReference/naive_n1"):
                self.assertIn(name, vec_add)
            for t in vec_add.values():
                self.assertEqual((t["score"], t["status"]), (0.0, "failed"), t["name"])
                self.assertIn("does not compile", t["output"])
                self.assertEqual(t["max_score"], sum(shares.get(t["name"], {}).values()), t["name"])
            ran = [t for t in by_lab["device_query"] if not t["output"].startswith("skipped")]
            self.assertTrue(ran)
            self.assertEqual([t["name"] for t in ran if t["score"] < t["max_score"]], [])
            self.assertNotIn("Edited.AlwaysFails", {t["name"] for t in data["tests"]})
            tasks = data["extra_data"]["tasks"]
            for task in ("vec_add.naive", "vec_add.coarsened", "vec_add.grid_stride", "vec_add.vectorized"):
                self.assertEqual(tasks[task]["score"], 0.0, task)  # the lab does not compile ...
                self.assertGreater(tasks[task]["max_score"], 0.0, task)  # ... and its tasks keep their maximum
            self.assertGreater(tasks["device_query.residency"]["passed"], 0)  # its CPU tests ran and passed
            self.assertEqual(data["extra_data"]["regions"]["vec_add.naive"], "taken")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)




class ThreeGrades(unittest.TestCase):
    """The grades a class's total rests on: the handout as generated scores 0, the solutions every
    point, and the handout with one task written exactly that task (graded one process per test
    binary, the default; AutograderBundle grades one process per case)."""

    def test_handout_solutions_and_one_task(self):
        tmp = tempfile.mkdtemp(prefix="three_grades_")
        try:
            batch = os.path.join(tmp, "submissions")
            suite.copy_tree(ROOT, os.path.join(batch, "solutions"))
            for name in ("handout", "one_task"):
                gen = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "handout.py"), "--out",
                                      os.path.join(batch, name), "--labs", "vec_add"],
                                     capture_output=True, text=True)
                self.assertEqual(gen.returncode, 0, gen.stderr)
            rel = "labs/vec_add/vec_add.cu"
            solved = {r.id: r for rs in suite.find_regions(ROOT).values() for r in rs}["vec_add.naive"]
            one = os.path.join(batch, "one_task", rel)
            with open(one) as f:
                text = f.read()
            with open(one, "w") as f:
                f.write(regions.rewrite(text, regions.parse(rel, text), {"vec_add.naive": solved.solution}))
            out = os.path.join(tmp, "out")
            run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "grade_submission.py"), batch, "--batch",
                                  "--labs", "vec_add", "--out", out] + shared_base.grader_args(),
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr + run.stdout[-2000:])
            with open(os.path.join(out, "summary.csv"), newline="") as f:
                summary = {r["submission"]: r for r in csv.DictReader(f)}
            self.assertEqual(sorted(summary), ["handout", "one_task", "solutions"])
            self.check_three(out, summary, results.load_points(os.path.join(ROOT, "grading", "points.json")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def check_three(self, out, summary, points):
        """The handout scores 0 of the total, the solutions every point of the tests that ran (all of
        them on a GPU), and the handout with one task written exactly what that task earned in the
        solutions. summary.csv, results.json and its task table agree."""
        graded = {}
        for name in ("handout", "one_task", "solutions"):
            with open(os.path.join(out, "submissions", name, "results.json")) as f:
                graded[name] = json.load(f)
            data = graded[name]
            tasks = data["extra_data"]["tasks"]
            self.assertEqual(float(summary[name]["score"]), data["score"], name)
            self.assertEqual(float(summary[name]["max_score"]), data["extra_data"]["max_score"], name)
            self.assertAlmostEqual(data["score"], sum(t["score"] for t in tasks.values()), 6, name)
            self.assertAlmostEqual(data["score"], sum(t["score"] for t in data["tests"]), 6, name)
            # the maximum is the tasks' points of the labs graded, whatever was written
            want_max = sum(e["points"] for task, e in points["tasks"].items() if task.split(".")[0] == "vec_add")
            self.assertAlmostEqual(data["extra_data"]["max_score"], want_max, 6, name)
            # a test that grades no task earns nothing
            shares = results.task_shares([t["name"] for t in data["tests"]], points)
            self.assertEqual([t["name"] for t in data["tests"] if t["name"] not in shares and t["max_score"]], [], name)
        self.assertEqual(graded["handout"]["score"], 0.0)
        self.assertEqual({k: v["score"] for k, v in graded["handout"]["extra_data"]["tasks"].items() if v["score"]}, {})
        full = graded["solutions"]
        ran = [t for t in full["tests"] if not results.is_skipped(t)]
        self.assertTrue(ran)
        self.assertEqual([t["name"] for t in ran if t["status"] != "passed"], [])  # every test that ran, passed
        gpu = any(t["max_score"] for t in ran)
        if gpu:  # on a GPU nothing is skipped: the solutions score the whole total
            self.assertAlmostEqual(full["score"], full["extra_data"]["max_score"], 6)
        else:  # without one every test of a task was skipped (vec_add's tasks are GPU work), none failed
            self.assertEqual([t["name"] for t in full["tests"] if t["max_score"] and not results.is_skipped(t)], [])
        one = graded["one_task"]["extra_data"]["tasks"]
        self.assertEqual({k: v["score"] for k, v in one.items() if v["score"] and k != "vec_add.naive"}, {})
        self.assertEqual(one["vec_add.naive"]["score"], full["extra_data"]["tasks"]["vec_add.naive"]["score"])
        self.assertEqual(graded["one_task"]["score"], one["vec_add.naive"]["score"])
        if gpu:
            self.assertEqual(graded["one_task"]["score"], points["tasks"]["vec_add.naive"]["points"])


class AutograderBundle(unittest.TestCase):
    def test_bundle_grades_a_handout_as_gradescope_would(self):
        tmp = tempfile.mkdtemp(prefix="autograder_test_")
        try:
            bundle = os.path.join(tmp, "autograder.zip")
            run = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make_autograder.py"), "--out", bundle,
                                  "--labs", "device_query"], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            ag = os.path.join(tmp, "autograder")
            with zipfile.ZipFile(bundle) as z:
                names = set(z.namelist())
                for name in ("setup.sh", "run_autograder"):
                    self.assertEqual((z.getinfo(name).external_attr >> 16) & 0o111, 0o111, name)  # executable
                z.extractall(ag)
            self.assertIn("source/labs/vec_add/vec_add.cu", names)
            with open(os.path.join(ag, "source", "labs", "vec_add", "vec_add.cu")) as f:  # stubs, no solution
                self.assertIn("// TODO: your code here", f.read())
            self.assertNotIn("source/tests/grading/test_handout.py", names)
            self.assertFalse(any(n.startswith("source/build") or "/.git/" in n for n in names))
            for name in ("setup.sh", "run_autograder"):
                os.chmod(os.path.join(ag, name), 0o755)
            # The submission: the handout as generated, nothing written. Gradescope runs
            # run_autograder with no arguments; here the build is limited to one architecture.
            gen = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "handout.py"), "--out",
                                  os.path.join(ag, "submission"), "--labs", "device_query"], capture_output=True, text=True)
            self.assertEqual(gen.returncode, 0, gen.stderr)
            # (graded one process per case, the grader's other mode; the others grade one per binary)
            # at a lower priority: the grading base beside it is the suite's critical path
            grade = subprocess.run(["nice", "-n", "10", "bash", os.path.join(ag, "run_autograder"), f"--cmake-args=-DCMAKE_CUDA_ARCHITECTURES={ARCH}",
                                    "--jobs", JOBS, "--per-case"], capture_output=True, text=True, env=dict(os.environ, AUTOGRADER_ROOT=ag))
            self.assertEqual(grade.returncode, 0, grade.stderr + grade.stdout[-2000:])
            with open(os.path.join(ag, "results", "results.json")) as f:
                results = json.load(f)
            self.assertEqual({t["tags"][0] for t in results["tests"]}, {"device_query"})
            self.assertEqual(results["extra_data"]["tasks"]["device_query.residency"]["score"], 0.0)
            self.assertEqual(results["score"], 0.0)  # the tests of code that is not a task pass, and earn nothing
            self.assertTrue([t for t in results["tests"] if t["status"] == "passed" and not t["max_score"]])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
