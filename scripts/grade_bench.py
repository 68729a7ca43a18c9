#!/usr/bin/env python3
"""How fast the grader grades a class, and whether grading several submissions at once changes
a single score. Makes a batch of four kinds of submission (the suite's own solutions, the
handout, a wrong one, a hostile one), grades one of each one at a time (the reference), then
COPIES of each kind all together with --per-gpu K, and compares every copy's per-task scores
with its kind's. Both runs share one prepared base.

  scripts/grade_bench.py --out DIR [--copies 4] [--per-gpu 4] [--labs ...] [--cmake-args "..."]
                         [--stage all|serial|together]

--stage serial prepares the base and grades the reference only; --stage together then grades
the copies in the same DIR (two shorter runs instead of one long one; a DIR copied to another
machine of the same kind without its base/ gets the base prepared again).

Prints the wall time of each run, submissions per hour (together: also counting only the copies
that change every lab, every kind but the handout, which takes the base's results), the mean share of the cores that was busy
and the GPU's mean utilisation during each (sampled every second; nvidia-smi), each kind's phases and test-seconds (by
category: compute-sanitizer runs, smoke runs, the smallest-size runs, GoogleTest cases; alone, its
five slowest tests), and one line per score that differs;
writes DIR/bench.json. Exit codes: 0 every score identical, 1 a score differed (or a run failed),
2 usage error.
"""
import json
import os
import shutil
import subprocess
import sys
import threading
import time

from cudalab import script_cli
from cudalab.labgrade import regions, suite

GRADE = os.path.join(suite.ROOT, "scripts", "grade_submission.py")
# A wrong body and a hostile one (it passes the region check, its compiled object is refused)
WRONG = {"vec_add.naive": ["  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;",
                           "  if (i < n) c[i] = a[i] - b[i];"]}
HOSTILE = {"device_query.residency": ['  fmt::print("[       OK ] DeviceQuery.Fake (0 ms)\\n");',
                                      "  (void)max_threads_per_sm; (void)max_blocks_per_sm; (void)warp_size;"]}


def fail(code, message):
    script_cli.fail("grade_bench", code, message)


def write_kind(dest, bodies=None, stubbed=False):
    """A submission: the suite's region files, with `bodies` ({region id: lines}) put in, or
    every region stubbed (the handout)."""
    found = suite.find_regions()
    for rel, rs in found.items():
        with open(os.path.join(suite.ROOT, rel), encoding="utf-8") as f:
            text = f.read()
        if stubbed:
            text = regions.stub_text(text, rs, {r.id for r in rs})
        elif bodies:
            text = regions.rewrite(text, rs, {r.id: bodies[r.id] for r in rs if r.id in bodies})
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        with open(os.path.join(dest, rel), "w", encoding="utf-8") as f:
            f.write(text)


def results_of(out, name):
    with open(os.path.join(out, "submissions", name, "results.json")) as f:
        return json.load(f)


def tasks_of(out, name):
    data = results_of(out, name)
    return {t: s["score"] for t, s in data["extra_data"]["tasks"].items()}, data["score"]


def phases_of(out, names):
    """The mean seconds of each grading phase (copy, build, tests) over `names`."""
    total = {}
    for name in names:
        for k, v in results_of(out, name)["extra_data"].get("phases", {}).items():
            total[k] = total.get(k, 0) + v / len(names)
    return {k: round(v, 1) for k, v in total.items()}


def category_of(test_name):
    """Where a test's time counts: compute-sanitizer runs, smoke runs (the smallest sizes on
    their own) or GoogleTest cases."""
    if ".sanitize." in test_name:
        return "sanitize"
    if ".smoke.smallest" in test_name:
        return "smallest"
    if ".smoke." in test_name:
        return "smoke"
    return "cases"


def test_seconds_of(out, names, slowest=10):
    """The mean test-seconds over `names` by category and by lab, from each test's
    extra_data.seconds (a lab reused from the base counts the base's seconds), and the `slowest`
    tests by their mean seconds (where to look first when the tests are the bottleneck)."""
    by_category, by_lab, by_test = {}, {}, {}
    for name in names:
        for t in results_of(out, name)["tests"]:
            seconds = t.get("extra_data", {}).get("seconds")
            if seconds is None:
                continue
            c, lab = category_of(t["name"]), (t.get("tags") or ["?"])[0]
            by_category[c] = by_category.get(c, 0) + seconds / len(names)
            by_lab[lab] = by_lab.get(lab, 0) + seconds / len(names)
            by_test[t["name"]] = by_test.get(t["name"], 0) + seconds / len(names)
    order = lambda d: sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))  # noqa: E731
    rounded = lambda d: {k: round(v, 1) for k, v in order(d)}  # noqa: E731
    return {"by_category": rounded(by_category), "by_lab": rounded(by_lab),
            "slowest": [[k, round(v, 2)] for k, v in order(by_test)[:slowest]]}


def cpu_times(stat_line):
    """(all jiffies, idle jiffies) from /proc/stat's first line ("cpu user nice system idle iowait ...")."""
    v = [int(x) for x in stat_line.split()[1:]]
    return sum(v), v[3] + (v[4] if len(v) > 4 else 0)


def cpu_busy(before, after):
    """The share of the cores that was busy between two cpu_times() readings, in %."""
    total, idle = after[0] - before[0], after[1] - before[1]
    return 100.0 * (1 - idle / total) if total > 0 else 0.0


def read_cpu():
    with open("/proc/stat") as f:
        return cpu_times(f.readline())


def read_gpu():
    """The first GPU's utilisation in % (nvidia-smi: the share of time a kernel ran), or None."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=5).stdout.split()
        return float(out[0]) if out else None
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return None


class Busy:
    """While a stage runs: the cores' busy share and the GPU's utilisation, sampled every
    `every` seconds; means() gives their means (where the time went: cores, GPU, or neither)."""

    def __init__(self, every=1.0, cpu=read_cpu, gpu=read_gpu):
        self.every, self.cpu, self.gpu = every, cpu, gpu
        self.cpu_samples, self.gpu_samples = [], []
        self.stop = threading.Event()

    def run(self):
        before = self.cpu()
        while not self.stop.wait(self.every):
            now = self.cpu()
            self.cpu_samples.append(cpu_busy(before, now))
            before = now
            g = self.gpu()
            if g is not None:
                self.gpu_samples.append(g)

    def __enter__(self):
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()

    def means(self):
        mean = lambda xs: round(sum(xs) / len(xs), 1) if xs else None  # noqa: E731
        return {"cpu_percent": mean(self.cpu_samples), "gpu_percent": mean(self.gpu_samples),
                "samples": len(self.cpu_samples)}


def grade(batch, out, base, per_gpu, common):
    start = time.time()
    run = subprocess.run([sys.executable, GRADE, batch, "--batch", "--base", base, "--out", out,
                          "--per-gpu", str(per_gpu)] + common, capture_output=True, text=True)
    seconds = time.time() - start
    with open(out + ".log", "w") as f:
        f.write(run.stdout + run.stderr)
    if run.returncode != 0:
        fail(1, f"grading {batch} failed (exit {run.returncode}): {run.stderr.strip()[-300:]}")
    return seconds


def main():
    ap = script_cli.Parser(prog="grade_bench", description="Grading throughput, and scores unchanged by concurrency.",
                           verbatim=("--cmake-args",))
    ap.add_argument("--out", required=True)
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--per-gpu", type=int, default=4)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--labs", nargs="*", default=[])
    ap.add_argument("--cmake-args", default="")
    ap.add_argument("--stage", choices=["all", "serial", "together"], default="all")
    args = ap.parse_args()
    if args.copies < 1 or args.per_gpu < 1 or args.jobs < 1:
        fail(2, "--copies, --per-gpu and --jobs must be positive")
    out = os.path.abspath(args.out)
    if args.stage == "together":
        if not os.path.exists(os.path.join(out, "serial.json")):
            fail(2, f"--stage together needs {out}/serial.json from --stage serial")
        return together(args, out)
    if os.path.lexists(args.out):
        fail(2, f"--out needs a new folder; {args.out} exists")
    kinds = os.path.join(out, "kinds")
    write_kind(os.path.join(kinds, "solutions"))
    write_kind(os.path.join(kinds, UNCHANGED), stubbed=True)
    write_kind(os.path.join(kinds, "wrong"), WRONG)
    write_kind(os.path.join(kinds, "hostile"), HOSTILE)
    names = sorted(os.listdir(kinds))
    base = os.path.join(out, "base")
    base_s = prepare_base(args, base)
    with Busy() as busy:
        serial_s = grade(kinds, os.path.join(out, "serial"), base, 1, common_args(args))
    with open(os.path.join(out, "serial.json"), "w") as f:
        json.dump({"base_s": round(base_s, 1), "seconds": round(serial_s, 1), "kinds": names,
                   "busy": busy.means()}, f)
    print(f"base: built and listed in {base_s:.0f} s")
    print(f"one at a time: {len(names)} submissions in {serial_s:.0f} s = {3600 * len(names) / serial_s:.0f} per hour")
    print(f"  busy: {busy.means()}")
    for kind in names:
        print(f"  {kind}: phases {phases_of(os.path.join(out, 'serial'), [kind])}")
        seconds = test_seconds_of(os.path.join(out, "serial"), [kind])
        print(f"  {kind}: test-seconds {seconds['by_category']}")
        if seconds["slowest"]:
            print(f"  {kind}: slowest tests " + ", ".join(f"{n} {v:g} s" for n, v in seconds["slowest"][:5]))
    return 0 if args.stage == "serial" else together(args, out)


def prepare_base(args, base):
    """Builds and lists the grading base into `base` (grade_submission --prepare-base); its seconds."""
    start = time.time()
    prep = subprocess.run([sys.executable, GRADE, "--prepare-base", base] + common_args(args),
                          capture_output=True, text=True)
    if prep.returncode != 0:
        fail(1, f"the base does not build: {prep.stderr.strip()[-300:]}")
    return time.time() - start


def common_args(args):
    return ["--jobs", str(args.jobs)] + (["--labs"] + args.labs if args.labs else []) + \
        ([f"--cmake-args={args.cmake_args}"] if args.cmake_args else [])


# The kind that changes nothing: graded from the base's build and results in no time.
UNCHANGED = "handout"


def changed_rate(names, copies, seconds):
    """Submissions an hour counting only the copies that change every lab (every kind but the
    handout) over the whole run's `seconds`: what a class where every submission changes every
    lab gets at least, the handouts' few moments included."""
    n = copies * len([k for k in names if k != UNCHANGED])
    return round(3600 * n / seconds, 1) if seconds > 0 else 0.0


def together(args, out):
    with open(os.path.join(out, "serial.json")) as f:
        serial = json.load(f)
    names, base_s, serial_s = serial["kinds"], serial["base_s"], serial["seconds"]
    base = os.path.join(out, "base")
    if not os.path.isdir(base):  # the serial stage ran elsewhere (its DIR copied here without the base)
        print(f"base: prepared again for this stage in {prepare_base(args, base):.0f} s")
    kinds = os.path.join(out, "kinds")
    batch = os.path.join(out, "batch")
    shutil.rmtree(batch, ignore_errors=True)
    shutil.rmtree(os.path.join(out, "together"), ignore_errors=True)
    for kind in names:
        for k in range(args.copies):
            shutil.copytree(os.path.join(kinds, kind), os.path.join(batch, f"{kind}-{k}"))
    with Busy() as busy:
        together_s = grade(batch, os.path.join(out, "together"), base, args.per_gpu, common_args(args))
    reference = {kind: tasks_of(os.path.join(out, "serial"), kind) for kind in names}
    differ = []
    for kind in names:
        for k in range(args.copies):
            got = tasks_of(os.path.join(out, "together"), f"{kind}-{k}")
            if got != reference[kind]:
                differ.append(f"{kind}-{k}: {got[1]} (tasks {got[0]}) vs {reference[kind][1]} alone")
    n = len(names) * args.copies
    result = {"base_s": round(base_s, 1), "serial": {"submissions": len(names), "seconds": round(serial_s, 1),
                                                     "per_hour": round(3600 * len(names) / serial_s, 1)},
              "together": {"submissions": n, "per_gpu": args.per_gpu, "seconds": round(together_s, 1),
                           "per_hour": round(3600 * n / together_s, 1),
                           "changing_every_lab_per_hour": changed_rate(names, args.copies, together_s)},
              "busy": {"serial": serial.get("busy"), "together": busy.means()},
              "scores": {kind: reference[kind][1] for kind in names}, "differ": differ,
              "phases_together": {kind: phases_of(os.path.join(out, "together"),
                                                  [f"{kind}-{k}" for k in range(args.copies)]) for kind in names},
              "test_seconds_together": {kind: test_seconds_of(os.path.join(out, "together"),
                                                              [f"{kind}-{k}" for k in range(args.copies)])
                                        for kind in names}}
    with open(os.path.join(out, "bench.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(f"base: built and listed in {base_s:.0f} s")
    print(f"one at a time: {len(names)} submissions in {serial_s:.0f} s = {result['serial']['per_hour']:.0f} per hour")
    print(f"{args.per_gpu} at once:     {n} submissions in {together_s:.0f} s = {result['together']['per_hour']:.0f} per hour")
    print(f"  counting only those that change every lab (all but the {UNCHANGED}): "
          f"{result['together']['changing_every_lab_per_hour']:.0f} per hour")
    print(f"  busy alone: {result['busy']['serial']}, together: {result['busy']['together']}")
    for kind in names:
        print(f"  {kind}: mean phases together {result['phases_together'][kind]}")
        print(f"  {kind}: mean test-seconds together {result['test_seconds_together'][kind]['by_category']}")
    print("scores alone: " + ", ".join(f"{k} {v:g}" for k, v in result["scores"].items()))
    print(f"scores together: {'identical to alone' if not differ else str(len(differ)) + ' differ'}")
    for line in differ:
        print("  " + line)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
