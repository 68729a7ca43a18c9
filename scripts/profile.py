#!/usr/bin/env python3
"""Run one lab under Nsight Compute with the metrics that lab teaches, and print them per
kernel beside the lab's own output.

  scripts/profile.py divergence                  # default arguments for the lab
  scripts/profile.py rgba_split 16384 16384      # your own arguments
  scripts/profile.py reduction 2^24 --variant sequential
  scripts/profile.py --per-launch occupancy      # one row per launch, with its grid and block

--json FILE (before the lab's name) also writes each kernel's mean metrics per launch, in the
metrics' own units (bytes, ns, %), for plot.py --profile.

By default a kernel's launches are folded into one row; --per-launch (before the lab's name)
prints each launch on its own row with its grid, block and dynamic shared memory: the occupancy
lab launches the same kernel at 12.5% to 100% occupancy, and one mean row hides that.

Metrics: divergence: branch uniformity and threads per instruction; vec_add / rgba_split: DRAM
throughput and sectors per request; occupancy: achieved vs theoretical occupancy; reduction:
DRAM throughput and shared-memory bank conflicts; transpose: bank conflicts and store sectors
per request; coalescing: sectors per request and DRAM bytes read; matmul: DRAM and L2 bytes,
FMA and tensor pipe use, shared-memory bank conflicts and the warp stall reasons (with
`matmul 4096 --precision bf16`: the Tensor Core rungs); roofline: DRAM and SM
throughput, DRAM bytes and FMA instructions; mem_spaces: local-memory and atomic traffic.
ncu runs with --clock-control none (the GPU's own clocks, as the labs measure). Without a GPU
or without ncu it prints "skipped: ..." and exits 0.
"""
import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys

from cudalab import lab_manifest
from cudalab import script_cli

TIME = "gpu__time_duration.sum"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
LD_SECTORS, LD_REQUESTS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
ST_SECTORS, ST_REQUESTS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
SMEM_LD_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
SMEM_ST_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
SMEM_LD_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SMEM_ST_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
# The launch configuration, shown in --per-launch mode.
LAUNCH = ["launch__grid_size", "launch__block_size", "launch__shared_mem_per_block_dynamic"]
# Ratios printed instead of their raw counters (name: numerator, denominator, scale).
# Sectors per request: 32-byte sectors per warp-wide global access (4 when a warp's 4-byte
# accesses are coalesced, 16 for 16-byte ones, 1 or 2 for 1-byte ones). Shared-memory conflict %:
# the share of shared-memory wavefronts that are extra ones caused by bank conflicts (0 when
# every access is conflict-free; an n-way conflict makes n-1 of every n wavefronts extra).
RATIOS = {"ld sectors/req": (LD_SECTORS, LD_REQUESTS, 1.0), "st sectors/req": (ST_SECTORS, ST_REQUESTS, 1.0),
          "smem ld conflict %": (SMEM_LD_CONFLICTS, SMEM_LD_WAVEFRONTS, 100.0),
          "smem st conflict %": (SMEM_ST_CONFLICTS, SMEM_ST_WAVEFRONTS, 100.0)}
# Each lab's metrics and default arguments: labs/manifest.json.
PROFILES = lab_manifest.profiles()
METRICS = {lab: metrics for lab, (_, metrics) in PROFILES.items()}
DEFAULT_ARGS = {lab: args for lab, (args, _) in PROFILES.items()}
SHORT = {"smsp__sass_average_branch_targets_threads_uniform.pct": "uniform branches %",
         "smsp__thread_inst_executed_per_inst_executed.ratio": "threads/inst",
         "smsp__inst_executed.sum": "warp insts",
         DRAM: "DRAM % peak", TIME: "time us",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occ %",
         "sm__maximum_warps_per_active_cycle_pct": "theoretical occ %",
         SMEM_LD_CONFLICTS: "smem ld conflicts",
         SMEM_ST_CONFLICTS: "smem st conflicts",
         "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": "local ld sectors",
         "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": "local st sectors",
         "launch__grid_size": "grid", "launch__block_size": "block",
         "launch__shared_mem_per_block_dynamic": "dyn smem B",
         "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM % peak",
         "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": "FMA pipe %",
         "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": "tensor pipe %",
         "smsp__average_warps_active_per_issue_active.ratio": "cycles/issue"}
# Warp cycles per issued instruction stalled for each reason (Nsight's warp state statistics).
for _reason in ("long_scoreboard", "short_scoreboard", "mio_throttle", "barrier", "math_pipe_throttle", "wait", "gmma"):
    SHORT[f"smsp__average_warps_issue_stalled_{_reason}_per_issue_active.ratio"] = f"stall {_reason.replace('_', ' ')}"
# Large counters shown scaled (metric: scale, column name).
SCALED = {"dram__bytes_read.sum": (1e-6, "DRAM read MB"), "dram__bytes_write.sum": (1e-6, "DRAM write MB"),
          "lts__t_bytes.sum": (1e-6, "L2 MB"),
          "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": (1e-6, "M FFMA (thread)"),
          "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum": (1e-6, "M DFMA (thread)")}


# Averaged over a kernel's launches weighted by each launch's time; counters are plain means.
WEIGHTED = {m for ms in METRICS.values() for m in ms if "pct" in m or m.endswith(".ratio")}


def kernel_name(name):
    """A kernel's name as ncu prints it with --print-kernel-base function and --print-nvtx-rename
    kernel: "padded_coarse/transpose_tile" for a launch inside the driver's NVTX range of a
    variant, the bare function name outside one; cut to 40 characters for the table."""
    name = name.strip()
    return name if len(name) <= 40 else name[:37] + "..."


def aggregate(ncu_csv, metrics, per_launch=False):
    """ncu's --csv --page raw output -> {kernel: {"launches": n, metric: sum}} in order (None if
    no kernels): counters summed over the launches, percentages and .ratio metrics summed
    weighted by each launch's time. per_launch: one entry per launch, named kernel#k."""
    lines = [l for l in ncu_csv.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 3:
        return None
    header, data = rows[0], rows[2:]  # row 1 holds the units
    kcol = header.index("Kernel Name")

    def value(row, m):
        try:
            return float(row[header.index(m)].replace(",", ""))
        except (ValueError, IndexError):
            return None

    agg, seen = {}, {}
    for r in data:
        name = kernel_name(r[kcol])
        if per_launch:
            seen[name] = seen.get(name, 0) + 1
            name = f"{name}#{seen[name]}"
        entry = agg.setdefault(name, {"launches": 0, **{m: 0.0 for m in metrics}})
        entry["launches"] += 1
        t = value(r, TIME) or 0.0
        for m in metrics:
            v = value(r, m)
            if v is not None:
                entry[m] += v * t if m in WEIGHTED else v
    return agg or None


def means(agg, metrics):
    """Per kernel, each metric's mean per launch (time-weighted for percentages and ratios), in the
    metric's own unit (ns, bytes, %): what --json writes."""
    return [{"kernel": k, "launches": e["launches"],
             "metrics": {m: (e[m] / e[TIME] if m in WEIGHTED and e[TIME] else e[m] / e["launches"]) for m in metrics}}
            for k, e in agg.items()]


def summarize(ncu_csv, metrics, per_launch=False):
    """ncu's --csv --page raw output -> a text table, one row per kernel (None if no kernels).
    Counters are means per launch; percentages and .ratio metrics are weighted by each launch's
    time (so a kernel's tiny last pass does not count as much as its first); RATIOS are computed
    from the summed counters. per_launch: one row per launch instead, named kernel#k for the
    kernel's k-th launch."""
    agg = aggregate(ncu_csv, metrics, per_launch)
    if agg is None:
        return None
    ratios = {name: r for name, r in RATIOS.items() if r[0] in metrics and r[1] in metrics}
    # the raw counters of a ratio are not shown, except bank conflicts (the lab's own number)
    shown = [m for m in metrics
             if m in (SMEM_LD_CONFLICTS, SMEM_ST_CONFLICTS) or not any(m in r[:2] for r in ratios.values())]
    cols = [SCALED[m][1] if m in SCALED else SHORT.get(m, m.split("__")[-1][:18]) for m in shown] + list(ratios)
    out = [f"{'kernel':<40} {'launches':>8} " + " ".join(f"{c:>18}" for c in cols)]
    for k, e in agg.items():
        vals = []
        for m in shown:
            v = e[m] / e[TIME] if m in WEIGHTED and e[TIME] else e[m] / e["launches"]
            if m == TIME:
                v /= 1e3  # ns -> us
            v *= SCALED.get(m, (1.0,))[0]
            vals.append(f"{v:>18.0f}" if m in LAUNCH else f"{v:>18.2f}")
        for num, den, scale in ratios.values():
            vals.append(f"{scale * e[num] / e[den]:>18.2f}" if e[den] else f"{'-':>18}")
        out.append(f"{k:<40} {e['launches']:>8} " + " ".join(vals))
    return "\n".join(out)


def main():
    ap = script_cli.Parser(prog="profile", description="Run one lab under Nsight Compute with the metrics it teaches.",
                           epilog=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-launch", action="store_true", help="one row per launch, with its grid, block and shared memory")
    ap.add_argument("--json", metavar="FILE", help="also write each kernel's mean metrics per launch to FILE "
                    "(lab, args, kernels: plot.py --profile reads it)")
    ap.add_argument("lab", help="the lab: " + ", ".join(sorted(METRICS)))
    ap.add_argument("lab_args", nargs=argparse.REMAINDER, help="the lab's own arguments (default: its profile run)")
    args_in = ap.parse_args()
    per_launch, lab, lab_args, json_out = args_in.per_launch, args_in.lab, args_in.lab_args, args_in.json
    if lab not in METRICS:
        print(f"profile: error: unknown lab '{lab}'; one of {', '.join(sorted(METRICS))}", file=sys.stderr)
        return 2
    build = os.environ.get("CUDALAB_BUILD_DIR", "build")
    exe = os.path.join(build, "labs", lab)
    if not os.path.exists(exe):
        print(f"profile: error: {exe} not found (build first)", file=sys.stderr)
        return 2
    args = lab_args or DEFAULT_ARGS[lab]
    own = subprocess.run([exe] + args, capture_output=True, text=True)
    if own.returncode == 77:
        print("profile: skipped: no GPU")
        return 0
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    if not os.path.exists(ncu):
        print("profile: skipped: ncu not found")
        return 0
    print(f"== ./labs/{lab} {' '.join(args)}")
    print(own.stdout)
    metrics = [TIME] + (LAUNCH if per_launch else []) + METRICS[lab]
    # One timed launch per variant, no L2 flush kernel in the profile.
    quick = ["--warmup", "0", "--repeat", "1", "--no-l2-flush"]
    # Kernels named by ncu itself: the function's base name, and inside the driver's NVTX range of a
    # variant (common/ladder.cpp) "variant/kernel", so a ladder's rows say which rung they are.
    cmd = [ncu, "--clock-control", "none", "--nvtx", "--print-nvtx-rename", "kernel", "--print-kernel-base", "function",
           "--csv", "--page", "raw", "--print-units", "base", "--metrics", ",".join(metrics), exe] + args + quick
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        if "ERR_NVGPUCTRPERM" in run.stdout + run.stderr:
            print("profile: ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM); "
                  "scripts/doctor says how to allow it", file=sys.stderr)
            return 3
        print(f"profile: ncu failed ({run.returncode}): {run.stderr.strip()[-500:]}", file=sys.stderr)
        return 3
    table = summarize(run.stdout, metrics, per_launch)
    if table is None:
        print("profile: ncu reported no kernels")
        return 0
    how = "one row per launch" if per_launch else "mean per launch (percentages and ratios weighted by launch time)"
    print(f"== Nsight Compute ({', '.join(metrics)}), {how}")
    print(table)
    if json_out:
        with open(json_out, "w") as f:
            json.dump({"lab": lab, "args": args, "per_launch": per_launch,
                       "kernels": means(aggregate(run.stdout, metrics, per_launch), metrics)}, f, indent=1)
        print(f"profile: wrote {json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
