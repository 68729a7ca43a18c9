#!/usr/bin/env python3
"""Run every lab with --json (and the --sweep modes) and store the results, with the GPU's
name and the date, in one JSON file: <out>/<gpu>-<date>.json. scripts/plot.py draws it.

  scripts/bench.py [--build-dir build] [--out bench] [--repeat 10]
  scripts/bench.py --only matmul --merge docs/bench/nvidia-h200-2026-12-01.json
                        # one lab's runs again, into an earlier result (its run_dates say when)

Without a GPU it prints "skipped: no GPU" and exits 0. Exit 1 if a lab reports a wrong result.
"""
import datetime
import json
import os
import re
import subprocess
import sys

from cudalab import lab_manifest
from cudalab import script_cli

RUNS = lab_manifest.bench_runs()  # from labs/manifest.json


TIMED = {lab["name"]: lab_manifest.timed(lab) for lab in lab_manifest.load()}  # takes --repeat


def main():
    ap = script_cli.Parser(prog="bench", description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--out", default="bench")
    ap.add_argument("--repeat", type=int, default=10, help="timed launches per measurement")
    ap.add_argument("--only", default="", help="comma-separated labs: run only their bench entries")
    ap.add_argument("--merge", default="", help="an earlier result: replace its runs of these labs, write it back")
    args = ap.parse_args()
    only = {x for x in args.only.split(",") if x}
    unknown = only - set(TIMED)
    if unknown:
        ap.error(f"--only: not a lab: {', '.join(sorted(unknown))}")
    if args.merge and not only:
        ap.error("--merge needs --only (the labs whose runs it replaces)")
    if args.repeat < 1:
        ap.error(f"--repeat must be at least 1, got {args.repeat}")
    labs = os.path.join(args.build_dir, "labs")
    if not os.path.isdir(labs):
        script_cli.fail("bench", 2, f"{labs} not found (build first)")
    probe = subprocess.run([os.path.join(labs, "device_query")], capture_output=True, text=True)
    if probe.returncode == 77:
        print("bench: skipped: no GPU")
        return 0
    now = datetime.datetime.now().isoformat(timespec="seconds")
    results = {"date": now, "runs": {}}
    if args.merge:
        try:
            with open(args.merge) as f:
                results = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            script_cli.fail("bench", 2, f"cannot read {args.merge}: {e}")
    status = 0
    for name, cmd in RUNS:
        if only and cmd[0] not in only:
            continue
        exe = os.path.join(labs, cmd[0])
        argv = [exe] + cmd[1:]
        if TIMED[cmd[0]]:
            argv += ["--repeat", str(args.repeat)]
        print(f"bench: {' '.join(cmd)}", flush=True)
        run = subprocess.run(argv, capture_output=True, text=True)
        if run.returncode not in (0, 1):
            print(f"bench: {name} failed with exit code {run.returncode}: {run.stderr.strip()}", file=sys.stderr)
            status = 1
            continue
        if run.returncode == 1:
            status = 1
        results["runs"][name] = json.loads(run.stdout)
        if args.merge:
            results.setdefault("run_dates", {})[name] = now  # later than the file's own date
    if args.merge:
        path = args.merge
    else:
        gpu = results["runs"]["device_query"]["devices"][0]["name"] if "device_query" in results["runs"] else "gpu"
        results["gpu"] = gpu
        slug = re.sub(r"[^A-Za-z0-9]+", "-", gpu).strip("-").lower()
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, f"{slug}-{datetime.date.today().isoformat()}.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"bench: wrote {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
