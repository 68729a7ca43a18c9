#!/usr/bin/env python3
"""The baseline of the grade: per task, three bodies that do no work (one writes zeros, one copies
its input, one writes a constant: scripts/cudalab/labgrade/baselines.py) are graded as three
submissions, each with that body in every region, and each must score 0 on every task; so must
the extra kinds some tasks have (index: the answer made from the element's index alone). A task
one of them earns points on has tests that do not check its answer.

  scripts/grade_baseline.py [--out baseline-out] [--labs L...] [-- grade_submission options]
  scripts/grade_baseline.py --compile-only BUILD [--arch 75-real]

Grading needs a GPU (without one every GPU test is skipped and every body scores 0, whatever the
tests check): where nvidia-smi lists none, it prints "skipped: ..." and exits 0, as the suite's
other GPU scripts do. The submissions are OUT/submissions/{zeros,copy,constant,index}, graded with
scripts/grade_submission.py --batch --require-gpu into OUT/graded; the table of every task's
score per body is printed and written to OUT/baseline.txt. Each body must also be taken (not
refused) and its lab must compile, or its 0 would prove nothing.

--compile-only BUILD compiles each region file of the three submissions with BUILD's own compile
commands (a configured and built suite; no GPU needed) and stops: the bodies still fit the code.

Exit codes: 0 every task scored 0 (or, --compile-only, every file compiled), 1 a task earned
points, a body was refused or its lab did not compile (or a file did not compile), 2 usage error,
4 a GPU is listed but the grader finds it unusable, 3 or 5 the grader's own (the grading tree does not build; no sandbox).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

from cudalab import script_cli
from cudalab.labgrade import baselines, regions, results, suite

PROG = "grade_baseline"


def has_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def write_submissions(root, labs):
    """OUT/submissions/<kind>: the suite with the kind's body in every region of `labs` (a task
    without one, its stub). Returns {kind: folder}."""
    found = suite.find_regions(suite.ROOT)
    made = {}
    for kind in baselines.ALL_KINDS:
        sub = os.path.join(root, kind)
        suite.copy_tree(suite.ROOT, sub)
        chosen = baselines.bodies(kind)
        for rel, rs in found.items():
            path = os.path.join(sub, rel)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            bodies = {r.id: chosen.get(r.id) or regions.stub_body(r) for r in rs if r.lab in labs}
            with open(path, "w", encoding="utf-8") as f:
                f.write(regions.rewrite(text, regions.parse(rel, text), bodies))
        made[kind] = sub
    return made, found


def compile_only(made, found, build, arch, out):
    failed = []
    for kind, sub in made.items():
        objects = os.path.join(out, "objects", kind)
        os.makedirs(objects, exist_ok=True)
        jobs = suite.region_compile_jobs(build, sub, found, arch, objects)
        failed += [f"{kind}: {rel}:\n{log}" for rel, log in suite.compile_jobs(jobs, os.cpu_count() or 2)]
        print(f"{PROG}: {kind}: {len(jobs)} compiles, {len([f for f in failed if f.startswith(kind)])} failed")
    for f in failed:
        print(f, file=sys.stderr)
    return 1 if failed else 0


def check(graded, labs):
    """The table of scores (task x kind) and the list of what is wrong."""
    rows, wrong = {}, []
    for kind in baselines.ALL_KINDS:
        try:
            with open(os.path.join(graded, "submissions", kind, "results.json")) as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            wrong.append(f"{kind}: no results ({e})")
            continue
        extra = data["extra_data"]
        for lab in extra.get("not_compiling", []):
            wrong.append(f"{kind}: {lab} does not compile")
        chosen = baselines.bodies(kind)
        for task, t in extra["tasks"].items():
            if task.split(".")[0] not in labs:
                continue
            if task not in chosen:
                rows.setdefault(task, {})[kind] = "n/a"
                continue
            outcome = extra["regions"].get(task)
            if outcome is None or not regions.is_taken(outcome):
                wrong.append(f"{kind}: {task}: the body was not taken "
                             f"({regions.describe(outcome) if outcome else 'missing'})")
            rows.setdefault(task, {})[kind] = f"{t['score']:g}/{t['max_score']:g}"
            if t["score"] > 0:
                wrong.append(f"{kind}: {task} earned {t['score']:g} of {t['max_score']:g} "
                             f"({t['passed']} of {t['tests']} tests passed)")
    return rows, wrong


def main():
    ap = script_cli.Parser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="baseline-out")
    ap.add_argument("--labs", nargs="*", default=[])
    ap.add_argument("--compile-only", metavar="BUILD", default=None)
    ap.add_argument("--arch", default="75-real", help="--compile-only: the one GPU architecture")
    ap.add_argument("grade_args", nargs="*", help="after --: options for grade_submission.py")
    args = ap.parse_args()
    points = results.load_points(os.path.join(suite.ROOT, "grading", "points.json"))
    all_labs = sorted({t.split(".")[0] for t in points["tasks"]})
    labs = args.labs or all_labs
    unknown = [lab for lab in labs if lab not in all_labs]
    if unknown:
        script_cli.fail(PROG, 2, f"no tasks in lab(s) {', '.join(unknown)}")
    if args.compile_only and not os.path.exists(os.path.join(args.compile_only, "compile_commands.json")):
        script_cli.fail(PROG, 2, f"{args.compile_only}: no compile_commands.json (configure and build the suite there)")
    if not args.compile_only and not has_gpu():
        print(f"{PROG}: skipped: no GPU here (nvidia-smi lists none); the baseline needs one")
        return 0
    out = os.path.abspath(args.out)
    if os.path.exists(out):
        shutil.rmtree(out)
    made, found = write_submissions(os.path.join(out, "submissions"), labs)
    if args.compile_only:
        return compile_only(made, found, os.path.abspath(args.compile_only), args.arch, out)
    graded = os.path.join(out, "graded")
    run = subprocess.run([sys.executable, os.path.join(suite.ROOT, "scripts", "grade_submission.py"),
                          os.path.join(out, "submissions"), "--batch", "--require-gpu", "--out", graded,
                          "--labs"] + labs + args.grade_args)
    if run.returncode == 4:
        script_cli.fail(PROG, 4, "no usable GPU: the baseline needs one (without it every body scores 0, "
                                 "whatever the tests check)")
    if run.returncode != 0:
        script_cli.fail(PROG, run.returncode, f"grade_submission.py exited {run.returncode}")
    rows, wrong = check(graded, labs)
    lines = [f"{'task':28} " + " ".join(f"{k:>10}" for k in baselines.ALL_KINDS)]
    lines += [f"{task:28} " + " ".join(f"{rows[task].get(k, '-'):>10}" for k in baselines.ALL_KINDS) for task in sorted(rows)]
    lines.append(f"{PROG}: " + ("every body scored 0 on every task" if not wrong else f"{len(wrong)} problem(s):"))
    lines += [f"  {w}" for w in wrong]
    with open(os.path.join(out, "baseline.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
