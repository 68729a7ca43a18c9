"""--leaderboard: rank the submissions whose task is correct by their kernel's bandwidth, as a share
of the copy ceiling the lab measured in the same run (the GPU's own cudaMemcpy), in Markdown and
CSV. Opt-in; it names submissions only (their results-folder names), never students' scores.

The measurement is the grader's, not the submission's word:
  - the lab executable runs in the submission's sandbox after its tests, on a size the grader
    draws at random for this run (large enough to leave the caches), so no kernel can be tuned
    to, or replay results for, the size it will be measured on;
  - its --json report comes back on a pipe the grader opened (CUDALAB_REPORT_FD), never from its
    stdout, which the code under test could write a report of its own to;
  - the lab's driver re-checks every variant after timing (its output poisoned before the last
    timed launch), times each repetition with the host's clock up to a device-wide synchronise
    beside the events, and marks a result faster than physics "suspect" (common/bandwidth.hpp);
  - here a row ranks only when its lab said correct: true and suspect: false (and it is not the
    lab's baseline), every test of its task passed, and its bandwidth is under the theoretical
    peak and 1.10 x the run's copy ceiling (the same rule, checked again from the numbers);
  - which variants are each task's kernel, and the sizes to draw, come from labs/manifest.json.
The runs count against the submission's own time limit.
"""
import csv
import json
import os
import secrets

from .. import lab_manifest

COPY_MARGIN = 1.10  # common/bandwidth.hpp kCopyCeilingMargin


def draw_args(spec):
    """A lab's arguments for one timed run, from labs/manifest.json: strings as they are, and each
    {"around": c, "spread": s} a size drawn at random in [c - s, c + s] for this run (never the
    same twice in practice), then --json."""
    out = []
    for a in spec:
        out.append(a if isinstance(a, str) else str(a["around"] - a["spread"] + secrets.randbelow(2 * a["spread"] + 1)))
    return out + ["--json"]


def believable(row, data):
    """Whether a variant row of a lab's report may rank: correct, not suspect, not a baseline,
    under physics."""
    if row.get("correct") is not True or row.get("suspect") is not False or row.get("baseline") is not False:
        return False
    try:
        gbps, copy, peak = float(row["gbps"]), float(data["copy_ceiling_gbps"]), float(data.get("peak_gbps", 0))
    except (KeyError, TypeError, ValueError):
        return False
    if copy <= 0 or gbps <= 0:
        return False
    if not (gbps <= COPY_MARGIN * copy and (peak <= 0 or gbps <= peak)):
        return False
    flop_peak = float(data.get("peak_fp32_gflops") or 0)  # a lab that is judged by its FLOP/s
    return flop_peak <= 0 or 0 < float(row.get("gflops") or 0) <= flop_peak


def share_of_roof(row, data):
    """(percent, roof): a row's share of the roof its lab is judged against. A lab whose report
    carries peak_fp32_gflops (matmul, compute-bound) is judged by its FLOP/s against that peak:
    its bytes per second grow with the size drawn for the run, its FLOP/s do not. The others by
    their bandwidth against the copy ceiling of the same run."""
    flop_peak = float(data.get("peak_fp32_gflops") or 0)
    if flop_peak > 0:
        return 100.0 * float(row["gflops"]) / flop_peak, "FP32 peak"
    return 100.0 * float(row["gbps"]) / float(data["copy_ceiling_gbps"]), "copy ceiling"


def run_lab(ws, lab, args, timeout):
    """The lab's --json report, read from the grader's pipe; None when it sent none."""
    read_fd, write_fd = os.pipe()
    try:
        ws.run([f"{ws.path('build')}/labs/{lab}"] + args, timeout, build_writable=False,
               extra_env={"CUDALAB_REPORT_FD": str(write_fd)}, pass_fds=(write_fd,))
    finally:
        os.close(write_fd)
    chunks = []
    while True:
        chunk = os.read(read_fd, 1 << 20)
        if not chunk or sum(map(len, chunks)) > 16 << 20:
            break
        chunks.append(chunk)
    os.close(read_fd)
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        return None


def measure(ws, labs, tasks, deadline=None, timeout=300):
    """{task: {"gbps", "percent_of_copy", "copy_ceiling_gbps", "variant", "size"}} for the correct tasks of
    the labs built in workspace `ws` (a grader.Workspace), each lab's executable run once on a
    size drawn for this run, within the submission's `deadline` (time.time() seconds)."""
    import time
    found = {}
    runs = lab_manifest.leaderboard_runs()
    for lab in labs:
        if lab not in runs:
            continue
        left = timeout if deadline is None else min(timeout, deadline - time.time())
        if left <= 1:
            break
        spec, by_task = runs[lab]
        args = draw_args(spec)
        data = run_lab(ws, lab, args, left)
        if not isinstance(data, dict):
            continue
        rows = {r.get("variant"): r for r in data.get("variants", []) if isinstance(r, dict)}
        for task, variants in by_task.items():
            t = tasks.get(task)
            if not t or t["tests"] == 0 or t["passed"] != t["tests"]:
                continue
            good = [rows[v] for v in variants if v in rows and believable(rows[v], data)]
            if good:
                best = max(good, key=lambda r: share_of_roof(r, data)[0])
                copy = float(data["copy_ceiling_gbps"])
                percent, roof = share_of_roof(best, data)
                found[task] = {"variant": best["variant"], "gbps": round(float(best["gbps"]), 1),
                               "percent_of_copy": round(100.0 * float(best["gbps"]) / copy, 1),
                               "copy_ceiling_gbps": round(copy, 1), "size": " ".join(args[:-1]),
                               "percent_of_roof": round(percent, 1), "roof": roof}
    return found


def write(graded, out):
    """Writes OUT/leaderboard.md and OUT/leaderboard.csv from the results.json of each graded
    submission ({name: results folder}); returns the rows."""
    rows = []
    for name, folder in sorted(graded.items()):
        try:
            with open(os.path.join(folder, "results.json")) as f:
                board = json.load(f)["extra_data"].get("leaderboard", {})
        except (OSError, ValueError, KeyError):
            continue
        for task, m in board.items():
            rows.append({"task": task, "submission": name, **m})
    rows.sort(key=lambda r: (r["task"], -r.get("percent_of_roof", r["percent_of_copy"])))
    rank, last = 0, None
    for r in rows:
        rank = 1 if r["task"] != last else rank + 1
        r["rank"], last = rank, r["task"]
    for r in rows:  # results written before the roof was recorded: the copy ceiling's share
        r.setdefault("percent_of_roof", r["percent_of_copy"])
        r.setdefault("roof", "copy ceiling")
        r.setdefault("size", "")
    fields = ["task", "rank", "submission", "variant", "size", "gbps", "percent_of_copy", "copy_ceiling_gbps",
              "percent_of_roof", "roof"]
    with open(os.path.join(out, "leaderboard.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "leaderboard.md"), "w") as f:
        f.write("# Leaderboard\n\nCorrect submissions per task, by their share of the roof measured or known for the "
                "same run: bandwidth against the copy ceiling, or FLOP/s against the FP32 peak (matmul).\n")
        for task in sorted({r["task"] for r in rows}):
            roof = next(r["roof"] for r in rows if r["task"] == task)
            f.write(f"\n## {task}\n\n| rank | submission | variant | size | GB/s | % of copy | % of {roof} |\n"
                    "|---:|---|---|---|---:|---:|---:|\n")
            for r in rows:
                if r["task"] == task:
                    f.write(f"| {r['rank']} | {r['submission']} | {r['variant']} | {r['size']} | {r['gbps']:.1f} | "
                            f"{r['percent_of_copy']:.1f} | {r['percent_of_roof']:.1f} |\n")
    print(f"leaderboard: {os.path.join(out, 'leaderboard.md')} ({len(rows)} rows)")
    return rows
