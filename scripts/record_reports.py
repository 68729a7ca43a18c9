#!/usr/bin/env python3
"""Record every lab's --json report of its smoke run (the run ctest's <lab>.smoke.run makes) into
a folder, one <lab>.json each, validated against docs/schema/lab-report.schema.json. The CPU test
scripts.report_schema checks the recorded reports in tests/data/reports/; refresh them on a GPU
after a change to what a lab reports:

  scripts/record_reports.py BUILD_DIR tests/data/reports
  scripts/record_reports.py BUILD_DIR tests/data/reports --unrecorded --mark-recorded

--labs L... records only those labs; --unrecorded only the labs labs/manifest.json marks
`recorded: false` (written where no GPU was at hand); --mark-recorded then removes that mark from
each lab whose report was recorded and valid (the CPU test then requires the report).

Exit codes: 0 every report recorded and valid, 1 a lab failed or its report is invalid, 2 usage,
77 no GPU (nothing recorded).
"""
import json
import os
import subprocess
import sys

from cudalab import lab_manifest
from cudalab import report_schema
from cudalab import script_cli


def smoke_runs(build):
    """{lab: [executable, args...]} from ctest's <lab>.smoke.run tests of `build`."""
    listing = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build, capture_output=True, text=True, check=True)
    runs = {}
    for test in json.loads(listing.stdout)["tests"]:
        name = test["name"]
        if name.endswith(".smoke.run"):
            cmd = test["command"]
            runs[name[:-len(".smoke.run")]] = cmd[cmd.index("--") + 1:]
    return runs


def main():
    ap = script_cli.Parser(prog="record_reports", description="Record each lab's smoke-run --json report.")
    ap.add_argument("build_dir")
    ap.add_argument("out")
    ap.add_argument("--labs", nargs="+", default=[], help="record only these labs")
    ap.add_argument("--unrecorded", action="store_true", help="record only the labs marked recorded: false")
    ap.add_argument("--mark-recorded", action="store_true",
                    help="remove recorded: false from labs/manifest.json for each lab recorded and valid")
    args = ap.parse_args()
    if not os.path.isdir(args.build_dir):
        script_cli.fail("record_reports", 2, f"{args.build_dir} is not a build folder")
    names = {lab["name"] for lab in lab_manifest.load()}
    unknown = sorted(set(args.labs) - names)
    if unknown:
        script_cli.fail("record_reports", 2, f"--labs: not a lab: {', '.join(unknown)}")
    wanted = set(args.labs)
    if args.unrecorded:
        wanted |= {lab["name"] for lab in lab_manifest.load() if not lab_manifest.recorded(lab)}
        if not wanted:
            print("record_reports: every lab is recorded")
            return 0
    runs = smoke_runs(args.build_dir)
    if wanted:
        runs = {lab: cmd for lab, cmd in runs.items() if lab in wanted}
    os.makedirs(args.out, exist_ok=True)
    status = 0
    recorded = []
    for lab, cmd in sorted(runs.items()):
        run = subprocess.run(cmd + ["--json"], capture_output=True, text=True, timeout=600)
        if run.returncode == 77:
            print("record_reports: skipped: no GPU")
            return 77
        try:
            report = json.loads(run.stdout)
        except ValueError:
            print(f"record_reports: {lab}: exit {run.returncode}, no JSON: {run.stderr.strip()[-300:]}", file=sys.stderr)
            status = 1
            continue
        found = report_schema.problems(report)
        for line in found[:10]:
            print(f"record_reports: {lab}: {line}", file=sys.stderr)
        if run.returncode != 0 or found:
            status = 1
        with open(os.path.join(args.out, f"{lab}.json"), "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")
        print(f"record_reports: {lab}: exit {run.returncode}, {'valid' if not found else 'INVALID'} ({' '.join(cmd[1:])})")
        if run.returncode == 0 and not found:
            recorded.append(lab)
    if args.mark_recorded:
        marked = lab_manifest.mark_recorded(recorded)
        for lab in marked:
            print(f"record_reports: {lab}: the recorded: false mark removed from labs/manifest.json")
    return status


if __name__ == "__main__":
    sys.exit(main())
