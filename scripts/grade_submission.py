#!/usr/bin/env python3
"""Grade a student submission against a pristine copy of the suite.

  scripts/grade_submission.py SUBMISSION [--labs vec_add rgba_split] [--out grading-out]

SUBMISSION is a folder or an archive (.zip, .tar.gz, .tgz, .tar) holding the student's tree
(the handout, edited). Only the files that contain student regions are taken from it -- the
kernels, never the tests or the build files -- and copied onto a fresh copy of this suite, so
an edited test changes nothing. Each lab is built on its own: a lab whose student code does
not compile scores 0 and the other labs are graded as usual, with scripts/grade.py (JUnit,
results.json, score table). The tests of a lab that does not compile are those of the solutions
(the lab is built once more with the suite's own files to list them), each reported failed
with the compiler's last lines, so every submission has the same maximum score.

  scripts/grade_submission.py --batch submissions/ --out results/   # a folder of submissions

With --batch, every entry of the folder (a folder or an archive per student) is graded into
OUT/<name>/ and OUT/summary.csv lists submission, score, max_score and the labs that do not
compile; an unreadable archive is reported and scores 0 without stopping the others.
Options: --labs (default: every lab with student regions), --out, --points, --cmake-args
(e.g. "-DCMAKE_CUDA_ARCHITECTURES=90" to build for one GPU), --reference RESULTS.json (a
results.json of the solutions, graded on the same kind of machine: the tests of a lab that does
not compile are taken from it instead of from a build of the solutions), --keep (keep the work
folder).
Exit codes: 0 graded, 2 usage error (unreadable submission, unknown lab), 3 the suite itself
could not be configured.
"""
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import script_cli  # noqa: E402
import grade  # noqa: E402
import student_regions  # noqa: E402


def fail(code, message):
    script_cli.fail("grade_submission", code, message)


class UnreadableSubmission(Exception):
    pass


def unpack(submission, work):
    if os.path.isdir(submission):
        return submission
    dest = os.path.join(work, "submission")
    os.makedirs(dest)
    try:
        if zipfile.is_zipfile(submission):
            with zipfile.ZipFile(submission) as z:
                z.extractall(dest)
        elif tarfile.is_tarfile(submission):
            with tarfile.open(submission) as t:
                t.extractall(dest, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(dest)
        else:
            raise UnreadableSubmission(f"{submission} is neither a folder nor a .zip/.tar archive")
    except (OSError, zipfile.BadZipFile, tarfile.TarError) as e:
        raise UnreadableSubmission(f"cannot unpack {submission}: {e}") from e
    return dest


def find_in_submission(sub_root, rel):
    """The submitted copy of `rel`: at the same path, or below one top-level folder."""
    direct = os.path.join(sub_root, rel)
    if os.path.isfile(direct):
        return direct
    entries = [e for e in os.listdir(sub_root) if os.path.isdir(os.path.join(sub_root, e))]
    if len(entries) == 1:
        nested = os.path.join(sub_root, entries[0], rel)
        if os.path.isfile(nested):
            return nested
    return None


def build_lab(build, lab, jobs):
    """Builds a lab's executable and its test binaries; the finished cmake process."""
    return subprocess.run(["cmake", "--build", build, "-j", jobs, "--target", lab, f"{lab}_cpu_test", f"{lab}_gpu_test"],
                          capture_output=True, text=True)


def solution_tests(suite, build, lab, regions, points, jobs):
    """The tests of `lab` as the solutions have them, as (name, max score, visibility or None):
    the lab's student files are put back to the suite's own and its targets built, so that ctest
    can list them. None if that build fails too."""
    for rel, rs in regions.items():
        if any(r.lab == lab for r in rs):
            shutil.copy2(os.path.join(ROOT, rel), os.path.join(suite, rel))
    if build_lab(build, lab, jobs).returncode != 0:
        return None
    try:
        labels = grade.test_labels(build)
    except RuntimeError:
        return None
    known = set(points.get("labs", {}))
    return [(name, grade.points_for(name, lab, points), "hidden" if grade.HIDDEN_LABEL in lbl else None)
            for name, lbl in labels.items() if grade.lab_of(lbl, known, name) == lab]


def grade_one(submission, out, labs, regions, args):
    """Grades one submission into `out`; returns (score, max_score, labs that do not compile)."""
    work = tempfile.mkdtemp(prefix="grade_submission_")
    try:
        sub_root = unpack(submission, work)
        suite = os.path.join(work, "suite")
        student_regions.copy_tree(ROOT, suite)
        taken, missing = [], []
        for rel, rs in regions.items():
            if not any(r.lab in labs for r in rs):
                continue
            src = find_in_submission(sub_root, rel)
            if src:
                shutil.copy2(src, os.path.join(suite, rel))
                taken.append(rel)
            else:
                missing.append(rel)
        print(f"grade_submission: taken from the submission: {', '.join(taken) or 'nothing'}")
        if missing:
            print(f"grade_submission: not in the submission (solution-free handout files used): {', '.join(missing)}")
            # A file the student did not hand in counts as not done: use the handout's stubs.
            for rel in missing:
                with open(os.path.join(suite, rel), encoding="utf-8") as f:
                    text = f.read()
                chosen = {r.id for r in regions[rel]}
                with open(os.path.join(suite, rel), "w", encoding="utf-8") as f:
                    f.write(student_regions.stub_text(text, regions[rel], chosen))

        build = os.path.join(suite, "build")
        conf = subprocess.run(["cmake", "-S", suite, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"]
                              + args.cmake_args.split(), capture_output=True, text=True)
        if conf.returncode != 0:
            fail(3, f"the suite does not configure: {conf.stderr.strip()[-400:]}")
        common = subprocess.run(["cmake", "--build", build, "-j", args.jobs, "--target", "cudalab_common"],
                                capture_output=True, text=True)
        if common.returncode != 0:
            fail(3, f"the suite's common library does not build: {common.stdout[-400:]}")
        built, broken = [], {}
        for lab in labs:
            b = build_lab(build, lab, args.jobs)
            if b.returncode == 0:
                built.append(lab)
            else:
                errors = [l for l in (b.stdout + b.stderr).splitlines() if "error" in l.lower()]
                broken[lab] = "\n".join(errors[-15:]) or (b.stdout + b.stderr)[-1500:]
            print(f"grade_submission: {lab}: {'built' if b.returncode == 0 else 'DOES NOT COMPILE'}")

        os.makedirs(out, exist_ok=True)
        results = {"score": 0.0, "execution_time": 0.0, "tests": [], "extra_data": {"skipped": 0, "max_score": 0.0}}
        if built:
            g = subprocess.run([sys.executable, os.path.join(HERE, "grade.py"), "--build-dir", build, "--out", out,
                                "--points", args.points, "--labs"] + built + ["--ctest-args", f"-j {args.jobs}"],
                               capture_output=True, text=True)
            if g.returncode != 0:
                fail(3, f"grading failed: {g.stderr.strip()}")
            with open(os.path.join(out, "results.json")) as f:
                results = json.load(f)
        reference = {}
        if args.reference:
            with open(args.reference) as f:
                for t in json.load(f)["tests"]:
                    reference.setdefault(t["tags"][0] if t.get("tags") else "", []).append(t)
        with open(args.points) as f:
            points = json.load(f)
        for lab, log in broken.items():
            output = f"{lab} does not compile:\n{log}"
            if reference.get(lab):
                listed = [(t["name"], t["max_score"], t.get("visibility")) for t in reference[lab]]
            else:
                listed = solution_tests(suite, build, lab, regions, points, args.jobs)
            if listed:
                for name, max_score, visibility in listed:
                    entry = {"name": name, "score": 0.0, "max_score": max_score, "status": "failed",
                             "output": output, "tags": [lab]}
                    if visibility:
                        entry["visibility"] = visibility
                    results["tests"].append(entry)
            else:
                max_score = float(points.get("labs", {}).get(lab, {}).get("build_points", 1))
                results["tests"].append({"name": f"{lab}: build", "score": 0.0, "max_score": max_score,
                                         "status": "failed", "output": output, "tags": [lab]})
        results["score"] = round(sum(t["score"] for t in results["tests"]), 3)
        results["extra_data"]["max_score"] = round(sum(t["max_score"] for t in results["tests"]), 3)
        results["extra_data"]["not_compiling"] = sorted(broken)
        tasks = grade.task_summary(results["tests"], points)
        for task in points.get("tasks", {}):
            if task.split(".")[0] in broken and task not in tasks:  # no tests ran: 0 of an unknown maximum
                tasks[task] = {"tests": 0, "passed": 0, "skipped": 0, "score": 0.0, "max_score": 0.0}
        results["extra_data"]["tasks"] = tasks
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump(results, f, indent=2)

        grade.print_labs(results["tests"], {lab: "does not compile" for lab in broken})
        grade.print_tasks(tasks)
        print(f"results: {os.path.abspath(os.path.join(out, 'results.json'))}")
    finally:
        if args.keep:
            print(f"grade_submission: work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return results["score"], results["extra_data"]["max_score"], sorted(broken)


def main():
    ap = script_cli.Parser(prog="grade_submission", description="Grade a submission on a pristine copy of the suite.")
    ap.add_argument("submission")
    ap.add_argument("--labs", nargs="*", default=[])
    ap.add_argument("--out", default="grading-out")
    ap.add_argument("--points", default=os.path.join(ROOT, "grading", "points.json"))
    ap.add_argument("--cmake-args", default="")
    ap.add_argument("--reference")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--jobs", default=str(os.cpu_count() or 2))
    ap.add_argument("--batch", action="store_true",
                    help="SUBMISSION is a folder of submissions (folders or archives), each graded into OUT/<name>/")
    args = ap.parse_args()
    if not os.path.exists(args.submission):
        fail(2, f"{args.submission} does not exist")
    if args.batch and not os.path.isdir(args.submission):
        fail(2, f"--batch needs a folder of submissions, not {args.submission}")

    regions = student_regions.find_regions(ROOT)
    labs_with_regions = sorted({r.lab for rs in regions.values() for r in rs})
    labs = args.labs or labs_with_regions
    for lab in labs:
        if lab not in labs_with_regions:
            fail(2, f"unknown lab '{lab}' (labs with student regions: {', '.join(labs_with_regions)})")

    if not args.batch:
        try:
            grade_one(args.submission, args.out, labs, regions, args)
        except UnreadableSubmission as e:
            fail(2, str(e))
        return 0
    names = sorted(e for e in os.listdir(args.submission) if not e.startswith("."))
    if not names:
        fail(2, f"{args.submission} holds no submissions")
    summary, used = [], set()
    for entry in names:
        name = entry
        for ext in (".tar.gz", ".tgz", ".tar", ".zip"):
            if name.endswith(ext):
                name = name[: -len(ext)]
                break
        if name in used:  # alice/ and alice.zip: keep both, by their full names
            name = entry
        used.add(name)
        print(f"==== {name}")
        try:
            summary.append((name,) + grade_one(os.path.join(args.submission, entry), os.path.join(args.out, name),
                                               labs, regions, args))
        except UnreadableSubmission as e:
            # one unreadable archive does not stop the others; it scores nothing
            print(f"grade_submission: {e}", file=sys.stderr)
            summary.append((name, 0.0, 0.0, ["unreadable"]))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "summary.csv"), "w") as f:
        f.write("submission,score,max_score,not_compiling\n")
        for name, score, max_score, broken in summary:
            f.write(f"{name},{score},{max_score},{' '.join(broken)}\n")
    print("==== summary")
    print(f"{'submission':<24} {'score':>9} {'max':>9}  does not compile")
    for name, score, max_score, broken in summary:
        print(f"{name:<24} {score:>9.1f} {max_score:>9.1f}  {', '.join(broken)}")
    print(f"summary: {os.path.abspath(os.path.join(args.out, 'summary.csv'))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
