#!/usr/bin/env python3
"""Grade student submissions, safely: in sandboxes, within time limits, from a tree that holds no
solutions (docs/grading-security.md says what a submission cannot do, and why).

  scripts/grade_submission.py SUBMISSION [--labs vec_add rgba_split] [--out grading-out]
  scripts/grade_submission.py --batch submissions/ --out results/   # a folder of submissions
  scripts/grade_submission.py --prepare-base results/base [--labs ...]  # the base alone, once
  scripts/grade_submission.py --batch submissions/ --index 7 --base results/base --out results/

SUBMISSION is a folder or an archive (.zip, .tar.gz, .tgz, .tar) holding the student's tree (the
handout, edited). From it only the bodies of the student regions are taken: each one is checked
(it must stay inside its function and bring no preprocessor lines, process-control, file or
output calls) and spliced into the pristine, solution-free grading tree; anything else the
student changed is ignored. The feedback says, per region, whether it was taken.

The grading tree is configured, built and listed once per run (the base); that listing fixes the
tests and their maxima before any student code is built. Per submission only the spliced files
are rebuilt and each lab's tests run with ctest in a sandbox, each test in a nested sandbox of its
own. A lab that does not compile, or whose tests pass their limit, scores 0 on each of its tests,
which keep their maxima.

Writes OUT/results.json (Gradescope format) and OUT/junit-<lab>.xml; with --batch,
OUT/submissions/<name>/ per entry and OUT/summary.csv (one row per submission, in name order at
the end; written as each
finishes; an unreadable archive or a failing submission is recorded and the batch goes on).

Options:
  --labs L...           labs to grade (default: every lab with student regions)
  --jobs N              parallel build jobs and tests (default: all cores)
  --gpus N              --batch: spread the submissions over N GPUs (CUDA_VISIBLE_DEVICES per slot)
  --per-gpu K           --batch: K submissions at once on each GPU (default: a quarter of the cores,
                        1 to 4): one's build overlaps another's tests, and their correctness tests
                        share the GPU; a timed leaderboard run waits until it has the GPU alone.
                        Build and test jobs are shared out among them
  --index I             --batch: only the I-th entry (sorted), its row in OUT/rows/ (a Slurm array
                        task: grading/slurm/; scripts/grade_merge.py writes summary.csv)
  --require-gpu         stop (exit 4) on a node with no usable GPU instead of scoring GPU tests 0
  --build-timeout S     wall seconds for one build (default 900)
  --lab-timeout S       wall seconds for one lab's tests (default 600)
  --submission-timeout S  wall seconds for one whole submission (default 1800)
  --test-timeout S      seconds for a test without a TIMEOUT of its own
  --submission-memory-gib G  memory of all of one submission's processes together (default: the
                        host's memory less a reserve for the grader and the system, 15% or 4 GiB,
                        shared among the submissions graded at once; 0: none). Bounded by a control
                        group where the host allows one, else by the grader adding up the resident
                        memory of the submission's uid and stopping it past the limit
  --memory-gib G        memory (data segment) per sandboxed process (default: the submission's,
                        at most 32). Limits above what the host has are refused (exit 2)
  --unsafe-no-sandbox   grade without bubblewrap (only for your own, trusted solutions)
  --cmake-args "..."    extra configure arguments (e.g. -DCMAKE_CUDA_ARCHITECTURES=90)
  --leaderboard         also rank the correct submissions per task by their kernels' bandwidth against
                        the copy ceiling of the same run: OUT/leaderboard.md and .csv
  --per-case            one process per GoogleTest case (CUDALAB_GTEST_BATCH=OFF) instead of the default,
                        one process per binary (scripts/gtest_batch.py): the same cases, results and
                        per-case limits, but a CUDA context per case (on the H200 about 3.7x slower)
  --gtest-batch         the default; accepted for older command lines
  --no-reuse            run every lab's tests for every submission; by default the base's own
                        tests run once and a lab whose region files a submission leaves as handed
                        out (or whose every region is refused) gets the base's results for it
  --all-tests           also run the tests that grade no task and gate no lab (smoke runs,
                        compute-sanitizer runs, the references' CPU tests), as feedback: they earn
                        nothing, and by default are not run (on the H200 they are most of a
                        submission's test time). A base is prepared and loaded with the same choice
  --test-seed N         the seed every test draws its inputs from (CUDALAB_TEST_SEED); by default one
                        drawn at random for this run, and written to each results.json as
                        extra_data.test_seed, so a grade can be repeated on the same inputs
  --keep                keep the work folders
  --prepare-base DIR    build and list the base into DIR (a new folder) and stop: no submission is
                        graded. Give the graders' --cmake-args and --per-case, and their --labs or
                        more. With --no-reuse the base's own tests are not run here: each grader
                        that loads it runs them once for its labs, in a copy
  --base DIR            grade against the base prepared in DIR instead of building one (a Slurm
                        array builds it once: grading/slurm/submit.sh; graders side by side share
                        it read-only), for any of its labs; refused when it was prepared with
                        other --cmake-args or --per-case, or without a lab asked for. Its seed
                        (the one its own tests ran on) is this run's unless --test-seed is given
Exit codes: 0 graded, 2 usage error (or an unreadable single submission), 3 the grading tree
itself does not build, 4 --require-gpu and no usable GPU, 5 no sandbox is possible here and
--unsafe-no-sandbox was not given, 130 / 143 stopped by SIGINT / SIGTERM (every sandbox, memory
group, uid lease and work folder of the run is gone; rows already written stay).
"""
import os
import signal
import sys


def _stopped_while_starting(signum, _frame):
    """SIGINT / SIGTERM before the grader is loaded: nothing was started, nothing is left to clean."""
    print(f"grade_submission: stopped by signal {signum} while starting; nothing was started", file=sys.stderr)
    os._exit(128 + signum)


if __name__ == "__main__":  # first of all, until stop() takes over below: an interrupt while the modules load
    signal.signal(signal.SIGINT, _stopped_while_starting)
    signal.signal(signal.SIGTERM, _stopped_while_starting)

import argparse  # noqa: E402  (after the handlers: os, signal and sys are loaded with the interpreter)
import concurrent.futures  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

from cudalab import script_cli  # noqa: E402
from cudalab.labgrade import ctest, grader, leaderboard, regions, results, submission, suite  # noqa: E402
from cudalab.labgrade.sandbox import GiB, Limits as BoxLimits, Sandbox, host_memory_bytes, memory_budget  # noqa: E402


def fail(code, message):
    script_cli.fail("grade_submission", code, message)


def parse_args():
    ap = script_cli.Parser(prog="grade_submission", description=__doc__,
                           formatter_class=argparse.RawDescriptionHelpFormatter, verbatim=("--cmake-args",))
    ap.add_argument("submission", nargs="?")
    ap.add_argument("--prepare-base", default=None)
    ap.add_argument("--base", default=None)
    ap.add_argument("--labs", nargs="*", default=[])
    ap.add_argument("--out", default="grading-out")
    ap.add_argument("--points", default=os.path.join(suite.ROOT, "grading", "points.json"))
    ap.add_argument("--cmake-args", default="")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--no-reuse", action="store_true")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--gpus", type=int, default=1)
    ap.add_argument("--per-gpu", type=int, default=max(1, min(4, (os.cpu_count() or 2) // 4)))
    ap.add_argument("--batch", action="store_true")
    ap.add_argument("--index", type=int, default=None,
                    help="--batch: grade only this entry (0-based, sorted; one Slurm array task)")
    ap.add_argument("--require-gpu", action="store_true")
    ap.add_argument("--build-timeout", type=float, default=900)
    ap.add_argument("--lab-timeout", type=float, default=600)
    ap.add_argument("--submission-timeout", type=float, default=1800)
    ap.add_argument("--test-timeout", type=float, default=None)
    ap.add_argument("--memory-gib", type=float, default=None)
    ap.add_argument("--submission-memory-gib", type=float, default=None)
    ap.add_argument("--unsafe-no-sandbox", action="store_true")
    ap.add_argument("--leaderboard", action="store_true")
    ap.add_argument("--gtest-batch", action="store_true")
    ap.add_argument("--per-case", action="store_true")
    ap.add_argument("--test-seed", type=int, default=None)
    ap.add_argument("--all-tests", action="store_true")
    args = ap.parse_args()
    if args.test_seed is not None and not 0 < args.test_seed < 2 ** 63:
        fail(2, "--test-seed must be a positive integer below 2^63")
    for name in ("jobs", "gpus", "per_gpu", "build_timeout", "lab_timeout", "submission_timeout"):
        if getattr(args, name) <= 0:
            fail(2, f"--{name.replace('_', '-')} must be positive")
    if args.memory_gib is not None and args.memory_gib <= 0:
        fail(2, "--memory-gib must be positive")
    if args.submission_memory_gib is not None and args.submission_memory_gib < 0:
        fail(2, "--submission-memory-gib must be 0 (none) or positive")
    args.at_once = args.gpus * args.per_gpu if args.batch and args.index is None else 1
    memory_limits(args, host_memory_bytes())
    if args.test_timeout is not None and args.test_timeout <= 0:
        fail(2, "--test-timeout must be positive")
    if args.prepare_base:
        if args.submission or args.base:
            fail(2, "--prepare-base builds the base alone: give no submission and no --base")
        if os.path.lexists(args.prepare_base):
            fail(2, f"--prepare-base needs a new folder; {args.prepare_base} exists")
        return args
    if not args.submission:
        fail(2, "give a SUBMISSION (a folder or archive; with --batch, a folder of them)")
    if not os.path.lexists(args.submission):
        fail(2, f"{args.submission} does not exist")
    if args.index is not None and (not args.batch or args.index < 0):
        fail(2, "--index needs --batch and a number >= 0")
    if args.batch and not os.path.isdir(args.submission):
        fail(2, f"--batch needs a folder of submissions, not {args.submission}")
    return args


def memory_limits(args, host_bytes):
    """Sets args.memory_bytes (per process) and args.submission_bytes (per submission, 0: none)
    from the host's memory and the submissions graded at once; refuses (exit 2) limits the host
    cannot give."""
    if host_bytes <= 0:  # no /proc/meminfo: the limits as given, or the old fixed defaults
        args.submission_bytes = int((64 if args.submission_memory_gib is None else args.submission_memory_gib) * GiB)
        args.memory_bytes = int((32 if args.memory_gib is None else args.memory_gib) * GiB)
        return
    reserve, share = memory_budget(host_bytes, args.at_once)
    have = f"this host has {host_bytes / GiB:.1f} GiB"
    if args.submission_memory_gib is None:
        args.submission_bytes = share
    else:
        args.submission_bytes = int(args.submission_memory_gib * GiB)
        if args.submission_bytes * args.at_once > host_bytes - reserve:
            fail(2, f"--submission-memory-gib {args.submission_memory_gib:g} for {args.at_once} submission(s) at once is more "
                    f"than {have} less {reserve / GiB:.1f} GiB for the grader and the system "
                    f"(at most {share / GiB:.1f} GiB each)")
    if args.memory_gib is None:
        args.memory_bytes = min(32 * GiB, args.submission_bytes or share)
    else:
        args.memory_bytes = int(args.memory_gib * GiB)
        if args.memory_bytes > host_bytes:
            fail(2, f"--memory-gib {args.memory_gib:g} is more than {have}")


def report(data, broken):
    results.print_labs(data["tests"], {lab: "does not compile" for lab in broken})
    results.print_tasks(data["extra_data"]["tasks"])
    for rid, o in sorted(data["extra_data"]["regions"].items()):
        if regions.is_rejected(o):
            print(f"grade_submission: region {rid} rejected: {o['why']}")


def main():
    args = parse_args()
    try:
        points = results.load_points(args.points)
        found = suite.find_regions()
    except ValueError as e:
        fail(2, str(e))
    labs_with_regions = sorted({r.lab for rs in found.values() for r in rs})
    labs = args.labs or labs_with_regions
    for lab in labs:
        if lab not in labs_with_regions:
            fail(2, f"unknown lab '{lab}' (labs with student regions: {', '.join(labs_with_regions)})")
    if args.require_gpu and "device_query" not in labs:
        labs = labs + ["device_query"]

    out = os.path.abspath(args.out)
    subs = os.path.abspath(args.submission or args.prepare_base)
    box_limits = BoxLimits(memory_bytes=args.memory_bytes)
    box = None
    if not args.unsafe_no_sandbox:
        box, why = Sandbox.find(hidden=[suite.ROOT, subs if args.batch else os.path.dirname(subs), out],
                                limits=box_limits)
        if not box:
            fail(5, f"{why}; refusing to run untrusted code (--unsafe-no-sandbox grades trusted code without one)")
        print(f"grade_submission: sandbox: bubblewrap, {box.mode}")
    else:
        print("grade_submission: NO SANDBOX (--unsafe-no-sandbox): the submission runs with your rights")
    limits = grader.Limits(args.build_timeout, args.lab_timeout, args.submission_timeout, args.test_timeout,
                           args.submission_bytes or None)
    g = grader.Grader(points, labs, box, args.jobs, limits, args.cmake_args.split(), keep=args.keep,
                      measure=args.leaderboard, gtest_batch=not args.per_case, reuse_base=not args.no_reuse,
                      test_seed=args.test_seed, all_tests=args.all_tests)
    try:
        if args.prepare_base:
            g.prepare_base(os.path.abspath(args.prepare_base))
            g.cleanup()
            print(f"base: {os.path.abspath(args.prepare_base)}")
            return 0
        if args.base:
            g.load_base(os.path.abspath(args.base))
        else:
            g.prepare_base()
        if args.require_gpu:
            g.require_gpu()
    except grader.GradingError as e:
        g.cleanup()
        message = str(e).strip()
        if "\n" in message:  # one line on stderr; the compiler's or ctest's lines go to a file
            os.makedirs(out, exist_ok=True)
            with open(os.path.join(out, "grading-error.log"), "w") as f:
                f.write(message + "\n")
            message = f"{message.splitlines()[0]} (details: {os.path.join(out, 'grading-error.log')})"
        fail(grader.EXIT_NO_GPU if isinstance(e, grader.NoGpu) else 3, message)
    except BaseException:  # stopped while the base builds: its folder and memory group go too
        g.cleanup()
        raise

    print(f"grade_submission: memory: {args.submission_bytes / GiB:.1f} GiB per submission "
          f"({args.at_once} at once), {args.memory_bytes / GiB:.1f} GiB per process")
    try:
        if not args.batch:
            try:
                data, broken, _ = g.grade_one(subs, out)
            except submission.Unreadable as e:
                fail(2, str(e))
            report(data, broken)
            print(f"results: {os.path.join(out, 'results.json')}")
            if args.leaderboard:
                leaderboard.write({"submission": out}, out)
            return 0
        return batch(g, subs, out, args)
    finally:
        left = g.cleanup()
        if left:
            print(f"grade_submission: could not remove {left}", file=sys.stderr)
            LEFT_BEHIND.append(left)


def batch(g, folder, out, args):
    entries = sorted(e for e in os.listdir(folder) if not e.startswith("."))
    if not entries:
        fail(2, f"{folder} holds no submissions")
    os.makedirs(os.path.join(out, "submissions"), exist_ok=True)
    used = set()
    named = [(grader.safe_name(e, used), e) for e in entries]
    if args.index is not None:  # one array task: its own row file; grade_merge.py writes summary.csv
        if args.index >= len(named):
            fail(2, f"--index {args.index}: {folder} holds {len(named)} submissions")
        named = [named[args.index]]
        os.makedirs(os.path.join(out, "rows"), exist_ok=True)
        summary = grader.Summary(os.path.join(out, "rows", named[0][0] + ".csv"))
    else:
        summary = grader.Summary(os.path.join(out, "summary.csv"))
    graded = {}

    def one(item, gpu):
        name, entry = item
        dest = os.path.join(out, "submissions", name)
        start = time.time()
        row = {"submission": name}
        env = {"CUDA_VISIBLE_DEVICES": str(gpu), "CUDA_DEVICE_ORDER": "PCI_BUS_ID"} if args.gpus > 1 else None
        try:
            data, broken, outcome = g.grade_one(os.path.join(folder, entry), dest, env)
            row.update(score=data["score"], max_score=data["extra_data"]["max_score"], status="graded",
                       not_compiling=" ".join(broken),
                       regions_rejected=" ".join(k for k, o in outcome.items() if regions.is_rejected(o)))
            graded[name] = dest
            print(f"==== {name}: {data['score']:.1f} / {data['extra_data']['max_score']:.1f}"
                  + (f"  (does not compile: {', '.join(broken)})" if broken else ""))
        except submission.Unreadable as e:
            row.update(score=0.0, status=f"unreadable: {e}")
            print(f"==== {name}: unreadable: {e}", file=sys.stderr)
        except Exception as e:  # noqa: BLE001 -- one submission's failure is recorded, the batch goes on
            row.update(score=0.0, status=f"error: {type(e).__name__}: {e}")
            print(f"==== {name}: grading failed: {type(e).__name__}: {e}", file=sys.stderr)
        row["seconds"] = round(time.time() - start, 1)
        summary.add(row)

    workers = min(len(named), args.gpus * args.per_gpu)
    g.submission_jobs = max(1, args.jobs // workers)
    pool = grader.SlotPool(args.gpus, args.per_gpu)

    def worker(item):
        with pool.slot() as gpu:
            one(item, gpu)
    if workers == 1:
        for item in named:
            worker(item)
    else:
        with concurrent.futures.ThreadPoolExecutor(workers) as executor:
            list(executor.map(worker, named))
    summary.finish()
    print(f"summary: {summary.path}")
    if args.leaderboard:
        leaderboard.write(graded, out)
    return 0


LEFT_BEHIND = []  # what cleanup could not remove (said on the way out, never hidden)
STOPPED_BY = []   # the first signal that stopped the run


def stop(signum, _frame):
    """SIGINT / SIGTERM: every bounded run ends (labgrade.ctest.STOP), each grading's own cleanup
    runs on its way out, then the run's."""
    if not STOPPED_BY:
        STOPPED_BY.append(int(signum))
    ctest.STOP.set()
    raise KeyboardInterrupt(signum)


def stopped_status(e):
    """The exit status of a stopped run: 128 + the signal that stopped it. The signal is the one
    the handler recorded: its KeyboardInterrupt can be lost where Python ignores exceptions (an
    at-fork hook of the logging module, a __del__), and the run then ends at its next bounded
    step with ctest.Stopped, which carries no signal."""
    if STOPPED_BY:
        return 128 + STOPPED_BY[0]
    return 128 + int(e.args[0] if isinstance(e, KeyboardInterrupt) and e.args else signal.SIGINT)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        sys.exit(main())
    except (KeyboardInterrupt, ctest.Stopped) as e:
        status = stopped_status(e)
        print(f"grade_submission: stopped by signal {status - 128}; "
              + ("left behind: " + "; ".join(LEFT_BEHIND) if LEFT_BEHIND else "nothing of the run is left behind"),
              file=sys.stderr)
        sys.exit(status)
