#!/usr/bin/env python3
"""A/B of source changes on a GPU, in one command: the lab built from this tree (the base arm)
and from a copy of it per patch, each arm's test binaries of the lab run first (an arm whose
tests fail is not timed), then the lab's --json run once per arm in turn, ROUNDS times over
(interleaved, the arms' order rotated each round, so a drift of the clocks or of the machine
shows in every arm alike). Prints each timed row's median over the rounds per arm with its
spread and its speed against the base arm; writes OUT/ab.json.

  scripts/ab.py --lab sort --patch docs/experiments/onesweep-window4.patch [--patch ...]
                [--args "2^28 --variant onesweep" [--args "2^28 --pairs" ...]] [--rounds 5] [--out build/ab]
                [--cmake-args "-DCMAKE_CUDA_ARCHITECTURES=90"] [--no-tests] [--timeout 300]

Every arm, the base too, is a copy of this tree's files (tracked, and new ones in its source
folders: as the grader copies it) under OUT/<arm>/src, its patch applied with `git apply`, configured into
OUT/<arm>/build (Release; the CUDA architectures of the default configure, native on a GPU
machine, unless --cmake-args says otherwise) and built for the lab's targets only: the arms
differ in their patches alone. A row is a table's row of the lab's --json report ("variants/
onesweep", "conv/conv_register_tile"): its median_ms of each run, and whether it was right.

Several --args: each set runs once per arm in every round, from the same builds; its rows are
named "[i] table/variant" (i from 0, in the order given).

Each test binary and each timed run has --timeout seconds (default 300): an arm past it is
failed and not run again, so a patch that hangs costs one timeout, not the others' rounds.

Exit codes: 0 every arm built, passed its tests and was timed with every row right; 1 an arm did
not build, failed its tests, or a run failed or reported a wrong row (named; the other arms are
still timed); 2 usage error (an unknown lab, a patch that cannot be read or does not apply to
this tree, a bad count); 77 no GPU (nvidia-smi lists none; the patches were checked first).
"""
import concurrent.futures
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys

from cudalab import lab_manifest, script_cli
from cudalab.labgrade import suite
from cudalab.labgrade.grader import lab_targets
from cudalab.report_schema import MAX_REPORT_BYTES, timed_rows

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROG = "ab"


def fail(code, message):
    script_cli.fail(PROG, code, message)


def arm_name(patch):
    """An arm's name from its patch file: the file name without .patch / .diff."""
    base = os.path.basename(patch)
    for ext in (".patch", ".diff"):
        if base.endswith(ext):
            return base[: -len(ext)]
    return base


def apply_patch(src, patch):
    """Applies `patch` to the tree at src; "" or why it does not apply."""
    run = subprocess.run(["git", "apply", "--whitespace=nowarn", os.path.abspath(patch)], cwd=src,
                         capture_output=True, text=True)
    return "" if run.returncode == 0 else (run.stderr.strip().splitlines() or ["git apply failed"])[0]


def have_gpu():
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return any(line.startswith("GPU") for line in listed.splitlines())


def summarize(samples, base):
    """{row: {arm: {median_ms, min_ms, max_ms, runs, vs_base}}} from {arm: {row: [ms, ...]}};
    vs_base is the base arm's median over this arm's (above 1: this arm is faster)."""
    rows = sorted({row for by_row in samples.values() for row in by_row})
    out = {}
    for row in rows:
        out[row] = {}
        base_ms = statistics.median(samples[base][row]) if samples.get(base, {}).get(row) else None
        for arm, by_row in samples.items():
            times = by_row.get(row)
            if not times:
                continue
            med = statistics.median(times)
            out[row][arm] = {"median_ms": med, "min_ms": min(times), "max_ms": max(times), "runs": len(times),
                             "vs_base": base_ms / med if base_ms and med > 0 else None}
    return out


def table(summary, arms):
    lines = [f"{'row':44} {'arm':28} {'median ms':>10} {'min':>10} {'max':>10} {'vs base':>8}"]
    for row, by_arm in summary.items():
        first = True
        for arm in arms:
            if arm not in by_arm:
                continue
            s = by_arm[arm]
            vs = f"{s['vs_base']:.3f} x" if s["vs_base"] is not None else "-"
            lines.append(f"{row if first else '':44} {arm:28} {s['median_ms']:10.4f} {s['min_ms']:10.4f} "
                         f"{s['max_ms']:10.4f} {vs:>8}")
            first = False
    return "\n".join(lines)


def log_tail(why, lines=15):
    """The last lines of the log a failure names ("... (OUT/arm/x.log)"), indented; "" without one."""
    if not why.endswith(".log)"):
        return ""
    path = why[why.rindex("(") + 1:-1]
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            tail = f.read().splitlines()[-lines:]
    except OSError:
        return ""
    return "\n".join("    " + line for line in tail)


def row_name(i, row, sets):
    """A report row's name in the table: as the report names it with one set of --args; with
    several, prefixed by the set's number ("[1] decode/decode_split")."""
    return row if sets == 1 else f"[{i}] {row}"


def in_sources(path):
    """True where path lies inside this tree and is not ignored: a folder the grader, the copies of
    the tree and the tests running beside would list as the suite's own files."""
    rel = os.path.relpath(path, ROOT)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return False
    try:
        ignored = subprocess.run(["git", "-C", ROOT, "check-ignore", "-q", rel], capture_output=True).returncode
    except OSError:
        ignored = 128
    if ignored in (0, 1):
        return ignored == 1
    return not rel.split(os.sep)[0].startswith(("build", "."))  # no git: build folders only


def run_logged(cmd, log, cwd=None, timeout=None):
    with open(log, "w") as f:
        try:
            return subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT, timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return 124


def main():
    ap = script_cli.Parser(prog=PROG, description="A/B of source changes: a lab from this tree and from each patch, "
                                                  "tested, then timed in interleaved rounds.",
                           verbatim=("--args", "--cmake-args"))
    ap.add_argument("--lab", required=True)
    ap.add_argument("--patch", action="append", default=[], help="a patch of this tree: one arm each (repeatable)")
    ap.add_argument("--args", action="append", default=[],
                    help="the lab's arguments (--json is added); repeatable: each set is run in every round, "
                         "its rows named [i] table/variant, so one build of the arms serves several runs")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--out", default=os.path.join("build", "ab"))
    ap.add_argument("--cmake-args", default="")
    ap.add_argument("--no-tests", action="store_true", help="time without running the lab's test binaries first")
    ap.add_argument("--timeout", type=int, default=300,
                    help="seconds each test binary and each timed run may take; past it the arm is failed (a hang "
                         "of one patch never holds the others)")
    args = ap.parse_args()
    names = [lab["name"] for lab in lab_manifest.load()]
    if args.lab not in names:
        fail(2, f"--lab: not a lab: {args.lab} (one of {', '.join(names)})")
    if not args.patch:
        fail(2, "give at least one --patch")
    if not 1 <= args.rounds <= 100:
        fail(2, f"--rounds must be 1 to 100, got {args.rounds}")
    if not 10 <= args.timeout <= 7200:
        fail(2, f"--timeout must be 10 to 7200 seconds, got {args.timeout}")
    arms = ["base"]
    for patch in args.patch:
        if not os.path.isfile(patch) or not os.access(patch, os.R_OK):
            fail(2, f"cannot read the patch {patch}")
        name = arm_name(patch)
        if name in arms:
            fail(2, f"two arms named {name}: rename one patch")
        arms.append(name)
    out = os.path.abspath(args.out)
    if in_sources(out):
        fail(2, f"--out {args.out} is a source folder of this tree (git does not ignore it): every tool that "
                "lists the tree would see the copies; use build/ab or a folder outside the tree")
    if os.path.lexists(out) and os.listdir(out):
        fail(2, f"--out needs a new or empty folder; {args.out} has files")

    # the copies, and every patch checked before anything is built or asks for a GPU (a patch
    # that does not apply leaves no copy behind)
    made = not os.path.lexists(out)
    for arm, patch in zip(arms, [None] + args.patch):
        src = os.path.join(out, arm, "src")
        suite.copy_tree(ROOT, src)  # OUT is not among the files it lists: in_sources refused that above
        why = apply_patch(src, patch) if patch else ""
        if why:
            for a in arms:
                shutil.rmtree(os.path.join(out, a), ignore_errors=True)
            if made:
                shutil.rmtree(out, ignore_errors=True)
            fail(2, f"{patch} does not apply to this tree: {why}")
    if not have_gpu():
        print(f"{PROG}: skipped: no GPU (nvidia-smi lists none); the patches apply")
        return 77

    failed = {}  # arm: why
    targets = [t for t in lab_targets([args.lab])]

    def build_arm(arm):
        """Configures and builds one arm's lab targets: (the targets built, "") or (None, why)."""
        src, build = os.path.join(out, arm, "src"), os.path.join(out, arm, "build")
        conf = ["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"] + shlex.split(args.cmake_args)
        if run_logged(conf, os.path.join(out, arm, "configure.log")) != 0:
            return None, f"does not configure ({os.path.join(out, arm, 'configure.log')})"
        # the lab's test binaries where it has them (a lab without CPU tests has no such target)
        listed = subprocess.run(["cmake", "--build", build, "--target", "help"], capture_output=True, text=True).stdout
        wanted = [t for t in targets if t == args.lab or f"{t}:" in listed]
        if run_logged(["cmake", "--build", build, "--target"] + wanted, os.path.join(out, arm, "build.log")) != 0:
            return None, f"does not build ({os.path.join(out, arm, 'build.log')})"
        return wanted, ""

    # The arms build side by side (a lab is a few large translation units: one arm alone leaves
    # most cores idle); their tests and timed runs then take the GPU one at a time.
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(arms)) as pool:
        built = dict(zip(arms, pool.map(build_arm, arms)))
    for arm in arms:
        wanted, why = built[arm]
        if wanted is None:
            failed[arm] = why
        elif not args.no_tests:
            for t in wanted[1:]:
                log = os.path.join(out, arm, f"{t}.log")
                rc = run_logged([os.path.join(out, arm, "build", "tests", t), "--gtest_brief=1"], log, timeout=args.timeout)
                if rc != 0:
                    failed[arm] = f"{t} " + (f"ran past {args.timeout} s" if rc == 124 else "failed") + f" ({log})"
                    break
        print(f"{PROG}: {arm}: " + (f"NOT TIMED: {failed[arm]}" if arm in failed else "built" +
                                    ("" if args.no_tests else ", its tests passed")), flush=True)
        if arm in failed:  # the end of the log that says why, where the caller sees it
            print(log_tail(failed[arm]), flush=True)

    timed = [a for a in arms if a not in failed]
    arg_sets = args.args or [""]
    samples = {arm: {} for arm in timed}
    wrong = {}
    hung = set()
    def write_result(rounds_left):
        """OUT/ab.json from the rounds so far (after each round: a run stopped by a time limit
        keeps what it measured)."""
        summary = summarize(samples, "base")
        result = {"lab": args.lab, "args": arg_sets, "rounds": args.rounds - rounds_left, "arms": arms,
                  "patches": {arm_name(p): os.path.abspath(p) for p in args.patch},
                  "failed": failed, "wrong": {a: sorted(r) for a, r in wrong.items()}, "rows": summary}
        with open(os.path.join(out, "ab.json"), "w") as f:
            json.dump(result, f, indent=1)
        return summary

    for r in range(args.rounds):
        if r > 0:
            write_result(args.rounds - r)
        for arm in timed[r % len(timed):] + timed[: r % len(timed)] if timed else []:
            exe = os.path.join(out, arm, "build", "labs", args.lab)
            for i, lab_args in enumerate(arg_sets):
                if arm in hung:
                    break
                try:
                    run = subprocess.run([exe] + shlex.split(lab_args) + ["--json"], stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    hung.add(arm)
                    failed.setdefault(arm, f"round {r + 1}: {lab_args!r} ran past {args.timeout} s (not run again)")
                    break
                try:
                    report = json.loads(run.stdout[:MAX_REPORT_BYTES].decode("utf-8", "replace"))
                except ValueError:
                    report = None
                if run.returncode != 0 or not isinstance(report, dict):  # a wrong result exits 1: its rows still say which
                    failed.setdefault(arm, f"round {r + 1}: {lab_args!r}: exit {run.returncode}: "
                                           f"{run.stderr.decode('utf-8', 'replace').strip()[-200:]}")
                for row, cells in (timed_rows(report) if isinstance(report, dict) else {}).items():
                    row = row_name(i, row, len(arg_sets))
                    if cells.get("correct") is False:
                        wrong.setdefault(arm, set()).add(row)
                    elif isinstance(cells.get("median_ms"), (int, float)):
                        samples[arm].setdefault(row, []).append(float(cells["median_ms"]))
    summary = write_result(0)
    for arm, why in failed.items():
        print(f"{PROG}: {arm}: {why}")
    for arm, rows in wrong.items():
        print(f"{PROG}: {arm}: WRONG result in {', '.join(sorted(rows))} (not timed there)")
    print(table(summary, arms))
    return 1 if failed or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
