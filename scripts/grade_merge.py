#!/usr/bin/env python3
"""Merge the rows of a graded class (one per Slurm array task, OUT/rows/*.csv) into
OUT/summary.csv and a class report, OUT/class-report.md: the score distribution, and per task how
many submissions got full marks, some marks or none.

  scripts/grade_merge.py OUT

Exit codes: 0 merged, 2 usage error (no rows to merge).
"""
import csv
import glob
import json
import os
import statistics
import sys

from cudalab import script_cli
from cudalab.labgrade import grader


def main():
    ap = script_cli.Parser(prog="grade_merge", description="Merge array-task rows into summary.csv and a class report.")
    ap.add_argument("out")
    args = ap.parse_args()
    rows = []
    for path in sorted(glob.glob(os.path.join(args.out, "rows", "*.csv"))):
        with open(path, newline="") as f:
            rows += list(csv.DictReader(f))
    if not rows:
        script_cli.fail("grade_merge", 2, f"no rows in {os.path.join(args.out, 'rows')} (did the array run?)")
    rows.sort(key=lambda r: r["submission"])
    summary = grader.Summary(os.path.join(args.out, "summary.csv"))
    for r in rows:
        summary.add(r)
    tasks = {}
    for r in rows:
        try:
            with open(os.path.join(args.out, "submissions", r["submission"], "results.json")) as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        for task, t in data["extra_data"].get("tasks", {}).items():
            counts = tasks.setdefault(task, [0, 0, 0, t["max_score"]])
            counts[0 if t["score"] >= t["max_score"] > 0 else 1 if t["score"] > 0 else 2] += 1
    graded = [r for r in rows if r["status"] == "graded"]
    scores = [float(r["score"]) for r in graded]
    with open(os.path.join(args.out, "class-report.md"), "w") as f:
        f.write(f"# Class report\n\n{len(rows)} submissions: {len(graded)} graded, "
                f"{len(rows) - len(graded)} not (unreadable or failed; see summary.csv).\n\n")
        if scores:
            top = graded[0]["max_score"]
            f.write(f"| score | min | median | mean | max | of |\n|---|---:|---:|---:|---:|---:|\n"
                    f"| | {min(scores):.1f} | {statistics.median(scores):.1f} | {statistics.mean(scores):.1f} | "
                    f"{max(scores):.1f} | {top} |\n\n")
        f.write("| task | max | full marks | some | none |\n|---|---:|---:|---:|---:|\n")
        for task, (full, some, none, max_score) in sorted(tasks.items()):
            f.write(f"| {task} | {max_score} | {full} | {some} | {none} |\n")
        not_compiling = [r["submission"] + ": " + r["not_compiling"] for r in rows if r.get("not_compiling")]
        if not_compiling:
            f.write("\nLabs that do not compile:\n\n" + "".join(f"- {x}\n" for x in not_compiling))
    print(f"grade_merge: {len(rows)} rows -> {summary.path}, {os.path.join(args.out, 'class-report.md')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
