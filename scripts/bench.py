#!/usr/bin/env python3
"""Run every lab with --json (and the --sweep modes) and store the results, with the GPU's
name and the date, in one JSON file: <out>/<gpu>-<date>.json. scripts/plot.py draws it.

  scripts/bench.py [--build-dir build] [--out bench] [--repeat 10]
  scripts/bench.py --only matmul --merge docs/bench/nvidia-h200-2026-12-01.json
                        # one lab's runs again, into an earlier result (its run_dates say when)
  scripts/bench.py --ratios bench/nvidia-h200-<date>.json --against docs/bench/nvidia-h200-2026-12-01.json
                        # the headline ratios of a result (each against the same run's ceiling:
                        # copy, CUB, cuBLAS), beside an earlier result's; runs nothing

The result file is written after every run, so a bench stopped part way (a time limit) keeps the
runs it finished. Without a GPU it prints "skipped: no GPU" and exits 0. Exit 1 if a lab reports a
wrong result.
"""
import datetime
import json
import os
import re
import subprocess
import sys
import time

from cudalab import lab_manifest
from cudalab import script_cli

RUNS = lab_manifest.bench_runs()  # from labs/manifest.json


TIMED = {lab["name"]: lab_manifest.timed(lab) for lab in lab_manifest.load()}  # takes --repeat

# The ratios a report states against a ceiling of its own run, where higher is the better kernel
# (the best over the copy ceiling, over CUB or cuBLAS, the overlap over its bound): --ratios marks
# one that fell by more than RATIO_DROP against the earlier result. The others (divergence's
# ratio, latency's DRAM over shared) are facts of the GPU and are listed without a verdict.
BETTER_HIGHER = ("best_over_copy", "best_over_baseline", "best_over_baseline n=", "best_quarter_over_copy", "overlap_over_bound",
                 "rmsnorm_over_copy", "tensor_over_theoretical", "best_fma_percent_of_peak")
RATIO_DROP = 0.03


def ratios(result):
    """{(run, key): value} of every scalar ratio of a bench result: the keys named *_over_* or
    ratio, and the best variant's name beside them."""
    out = {}
    for run, report in sorted(result.get("runs", {}).items()):
        if not isinstance(report, dict):
            continue
        for key, value in sorted(report.items()):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if "_over_" in key or key == "ratio" or key == "best_fma_percent_of_peak":
                out[(run, key)] = float(value)
        # a sweep against a library (reduction's CUB): the best correct kernel over it, per size
        best = {}
        for row in report.get("sweep", []) if isinstance(report.get("sweep"), list) else []:
            if (isinstance(row, dict) and row.get("correct") is True and row.get("baseline") is False
                    and row.get("suspect") is not True and isinstance(row.get("over_baseline"), (int, float))
                    and isinstance(row.get("n"), int)):
                best[row["n"]] = max(best.get(row["n"], 0.0), float(row["over_baseline"]))
        for n, value in sorted(best.items()):
            size = f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)
            out[(run, f"best_over_baseline n={size}")] = value
    return out


def ratio_table(new, old=None):
    """(lines, dropped): a row per ratio of `new`, with `old`'s value and the change where it has
    the same one; dropped counts the better-higher ratios that fell by more than RATIO_DROP."""
    now, before = ratios(new), ratios(old or {})
    lines = [f"{'run':<24} {'ratio':<48} {'now':>9} {'before':>9} {'change':>8}"]
    dropped = 0
    for (run, key), value in now.items():
        best = new["runs"][run].get("best_variant", "")
        prev = before.get((run, key))
        change, mark = "", ""
        if prev:
            change = f"{100.0 * (value / prev - 1):+.1f}%"
            if key.startswith(BETTER_HIGHER) and value < prev * (1 - RATIO_DROP):
                mark, dropped = "  LOWER", dropped + 1
        prev_text = f"{prev:9.3f}" if prev is not None else f"{'-':>9}"
        label = key if key == "ratio" or not best or not key.startswith("best") else f"{key} ({best})"
        lines.append(f"{run:<24} {label:<48} {value:9.3f} {prev_text} {change:>8}{mark}")
    return lines, dropped


def print_ratios(path, against):
    def read(p):
        try:
            with open(p) as f:
                return json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            script_cli.fail("bench", 2, f"cannot read {p}: {e}")
    new = read(path)
    old = read(against) if against else None
    lines, dropped = ratio_table(new, old)
    print(f"bench: ratios of {path} ({new.get('gpu', '?')}, {new.get('date', '?')})"
          + (f" against {against} ({old.get('date', '?')})" if old else ""))
    print("\n".join(lines))
    if dropped:
        print(f"bench: {dropped} ratio(s) fell by more than {100 * RATIO_DROP:.0f}%: a change that lowers one needs a reason")
    return 0


def main():
    ap = script_cli.Parser(prog="bench", description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default="build")
    ap.add_argument("--out", default="bench")
    ap.add_argument("--repeat", type=int, default=10, help="timed launches per measurement")
    ap.add_argument("--only", default="", help="comma-separated labs: run only their bench entries")
    ap.add_argument("--merge", default="", help="an earlier result: replace its runs of these labs, write it back")
    ap.add_argument("--ratios", default="", help="a result: print its ratios to the same run's ceilings and stop")
    ap.add_argument("--against", default="", help="with --ratios: an earlier result to set beside it")
    args = ap.parse_args()
    if args.against and not args.ratios:
        ap.error("--against needs --ratios")
    if args.ratios:
        return print_ratios(args.ratios, args.against)
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
    probe = subprocess.run([os.path.join(labs, "device_query"), "--json"], capture_output=True, text=True)
    if probe.returncode == 77:
        print("bench: skipped: no GPU")
        return 0
    try:
        gpu = json.loads(probe.stdout)["devices"][0]["name"]
    except (ValueError, KeyError, IndexError, TypeError):
        gpu = "gpu"
    now = datetime.datetime.now().isoformat(timespec="seconds")
    results = {"date": now, "runs": {}}
    if args.merge:
        try:
            with open(args.merge) as f:
                results = json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            script_cli.fail("bench", 2, f"cannot read {args.merge}: {e}")
    if args.merge:
        path = args.merge
    else:
        results["gpu"] = gpu
        slug = re.sub(r"[^A-Za-z0-9]+", "-", gpu).strip("-").lower()
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, f"{slug}-{datetime.date.today().isoformat()}.json")
    status = 0
    for name, cmd in RUNS:
        if only and cmd[0] not in only:
            continue
        exe = os.path.join(labs, cmd[0])
        argv = [exe] + cmd[1:]
        if TIMED[cmd[0]]:
            argv += ["--repeat", str(args.repeat)]
        print(f"bench: {' '.join(cmd)}", end="", flush=True)
        start = time.monotonic()
        run = subprocess.run(argv, capture_output=True, text=True)
        print(f" ({time.monotonic() - start:.1f} s)", flush=True)
        if run.returncode not in (0, 1):
            print(f"bench: {name} failed with exit code {run.returncode}: {run.stderr.strip()}", file=sys.stderr)
            status = 1
            continue
        if run.returncode == 1:
            status = 1
        results["runs"][name] = json.loads(run.stdout)
        if args.merge:
            results.setdefault("run_dates", {})[name] = now  # later than the file's own date
        write(path, results)  # after every run: a bench stopped part way keeps what it measured
    write(path, results)
    print(f"bench: wrote {path}")
    return status


def write(path, results):
    """The result file, replaced whole (a reader never sees half of one)."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(results, f, indent=1)
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
