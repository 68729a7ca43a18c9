"""--leaderboard: rank the submissions whose task is correct by their kernel's bandwidth, as a share
of the copy ceiling the lab measured in the same run (the GPU's own cudaMemcpy), in Markdown and
CSV. Opt-in; it names submissions only (their results-folder names), never students' scores.

The measurement is the lab executable with --json, run in the submission's sandbox after its
tests, on a size large enough to leave the caches: each variant row gives gbps and
percent_of_copy. A task ranks a submission only when every test of the task passed and the lab
itself reported the variant correct.
"""
import csv
import json
import os

# lab: (arguments of its timed run, {task: variant names that are that task's kernel})
RUNS = {
    "vec_add": (["2^26", "--json"], {"vec_add.naive": ["naive"], "vec_add.coarsened": ["coarsened2", "coarsened4", "coarsened8"],
                                     "vec_add.grid_stride": ["grid_stride"], "vec_add.vectorized": ["vectorized"]}),
    "rgba_split": (["8192", "8192", "--json"], {"rgba_split.naive": ["naive"], "rgba_split.uchar4": ["uchar4"],
                                                "rgba_split.x4": ["x4"]}),
    "reduction": (["2^26", "--json"], {"reduction.smem": ["smem_notes"], "reduction.interleaved": ["interleaved_divergent"],
                                       "reduction.strided": ["interleaved_strided"], "reduction.sequential": ["sequential"],
                                       "reduction.first_add": ["first_add_during_load"],
                                       "reduction.unroll_last_warp": ["unroll_last_warp"],
                                       "reduction.multi_element": ["multi_element"],
                                       "reduction.warp_shuffle": ["warp_shuffle"],
                                       "reduction.vector_sum": ["vectorized", "single_pass_atomic"],
                                       "reduction.single_pass": ["single_pass"]}),
}


def measure(ws, labs, tasks, timeout=300):
    """{task: {"gbps", "percent_of_copy", "copy_gbps", "variant"}} for the correct tasks of the
    labs built in workspace `ws` (a grader.Workspace), each lab's executable run once."""
    found = {}
    for lab in labs:
        if lab not in RUNS:
            continue
        args, by_task = RUNS[lab]
        run = ws.run([f"{ws.path('build')}/labs/{lab}"] + args, timeout, build_writable=False)
        try:
            data = json.loads(run.stdout)
        except json.JSONDecodeError:
            continue
        rows = {r.get("variant"): r for r in data.get("variants", []) if isinstance(r, dict)}
        for task, variants in by_task.items():
            t = tasks.get(task)
            if not t or t["tests"] == 0 or t["passed"] != t["tests"]:
                continue
            good = [rows[v] for v in variants if v in rows and rows[v].get("correct") == "yes"]
            if good:
                best = max(good, key=lambda r: r.get("gbps", 0))
                found[task] = {"variant": best["variant"], "gbps": round(float(best["gbps"]), 1),
                               "percent_of_copy": round(float(best.get("percent_of_copy", 0)), 1),
                               "copy_gbps": round(float(data.get("copy_gbps", 0)), 1)}
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
    rows.sort(key=lambda r: (r["task"], -r["percent_of_copy"]))
    rank, last = 0, None
    for r in rows:
        rank = 1 if r["task"] != last else rank + 1
        r["rank"], last = rank, r["task"]
    fields = ["task", "rank", "submission", "variant", "gbps", "percent_of_copy", "copy_gbps"]
    with open(os.path.join(out, "leaderboard.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fields)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "leaderboard.md"), "w") as f:
        f.write("# Leaderboard\n\nCorrect submissions per task, by bandwidth as a share of the copy ceiling "
                "measured in the same run.\n")
        for task in sorted({r["task"] for r in rows}):
            f.write(f"\n## {task}\n\n| rank | submission | variant | GB/s | % of copy |\n|---:|---|---|---:|---:|\n")
            for r in rows:
                if r["task"] == task:
                    f.write(f"| {r['rank']} | {r['submission']} | {r['variant']} | {r['gbps']:.1f} | "
                            f"{r['percent_of_copy']:.1f} |\n")
    print(f"leaderboard: {os.path.join(out, 'leaderboard.md')} ({len(rows)} rows)")
    return rows
