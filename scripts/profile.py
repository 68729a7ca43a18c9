#!/usr/bin/env python3
"""Run one lab under Nsight Compute with the metrics that lab teaches, and print them per
kernel beside the lab's own output.

  scripts/profile.py divergence                  # default arguments for the lab
  scripts/profile.py rgba_split 16384 16384      # your own arguments
  scripts/profile.py reduction 2^24 --variant sequential

Metrics: divergence: branch uniformity and threads per instruction; vec_add / rgba_split: DRAM
throughput and sectors per request; occupancy: achieved vs theoretical occupancy; reduction:
DRAM throughput and shared-memory bank conflicts; mem_spaces: local-memory and atomic traffic.
ncu runs with --clock-control none (the GPU's own clocks, as the labs measure). Without a GPU
or without ncu it prints "skipped: ..." and exits 0.
"""
import csv
import io
import os
import shutil
import subprocess
import sys

TIME = "gpu__time_duration.sum"
DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
LD_SECTORS, LD_REQUESTS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
ST_SECTORS, ST_REQUESTS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"
SMEM_LD_WAVEFRONTS, SMEM_LD_INSTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "smsp__inst_executed_op_shared_ld.sum"
SMEM_ST_WAVEFRONTS, SMEM_ST_INSTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "smsp__inst_executed_op_shared_st.sum"
# Ratios printed instead of their two raw counters. Sectors per request: 32-byte sectors per
# warp-wide global access (4 when a warp's 4-byte accesses are coalesced, 16 for 16-byte ones,
# 1 for 1-byte ones). Shared-memory wavefronts per instruction: 1 when a warp's access is free
# of bank conflicts, n for an n-way conflict.
RATIOS = {"ld sectors/req": (LD_SECTORS, LD_REQUESTS), "st sectors/req": (ST_SECTORS, ST_REQUESTS),
          "smem ld wf/inst": (SMEM_LD_WAVEFRONTS, SMEM_LD_INSTS), "smem st wf/inst": (SMEM_ST_WAVEFRONTS, SMEM_ST_INSTS)}
METRICS = {
    "divergence": ["smsp__sass_average_branch_targets_threads_uniform.pct",
                   "smsp__thread_inst_executed_per_inst_executed.ratio", "smsp__inst_executed.sum"],
    "vec_add": [DRAM, LD_SECTORS, LD_REQUESTS, ST_SECTORS, ST_REQUESTS],
    "rgba_split": [DRAM, LD_SECTORS, LD_REQUESTS, ST_SECTORS, ST_REQUESTS],
    "occupancy": ["sm__warps_active.avg.pct_of_peak_sustained_active", "sm__maximum_warps_per_active_cycle_pct", DRAM],
    "reduction": [DRAM, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
                  SMEM_LD_WAVEFRONTS, SMEM_LD_INSTS, SMEM_ST_WAVEFRONTS, SMEM_ST_INSTS],
    "mem_spaces": ["l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", DRAM],
}
DEFAULT_ARGS = {
    "divergence": ["--iters", "2000"], "vec_add": ["2^24"], "rgba_split": ["4096", "4096"],
    "occupancy": ["--stream-n", "16M"], "reduction": ["2^26"], "mem_spaces": [],
}
SHORT = {"smsp__sass_average_branch_targets_threads_uniform.pct": "uniform branches %",
         "smsp__thread_inst_executed_per_inst_executed.ratio": "threads/inst",
         "smsp__inst_executed.sum": "warp insts",
         DRAM: "DRAM % peak", TIME: "time us",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved occ %",
         "sm__maximum_warps_per_active_cycle_pct": "theoretical occ %",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "smem ld conflicts",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "smem st conflicts",
         "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": "local ld sectors",
         "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": "local st sectors"}


# Averaged over a kernel's launches weighted by each launch's time; counters are plain means.
WEIGHTED = {m for ms in METRICS.values() for m in ms if "pct" in m or m.endswith(".ratio")}


def short_kernel(name):
    """'void ns::kernel<float, 256>(const float *, ...)' -> 'kernel<float, 256>': no return type,
    parameter list or namespaces (template arguments may themselves hold '::' and '()')."""
    name = name.strip()
    if name.endswith(")"):  # drop the parameter list: the '(' that matches the last ')'
        depth = 0
        for i in range(len(name) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(name[i], 0)
            if depth == 0:
                name = name[:i]
                break
    # split at top-level '::' and spaces (outside <...> and (...)); keep the last part
    depth, start = 0, 0
    for i, ch in enumerate(name):
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0 and (ch == " " or name.startswith("::", i)):
            start = i + (2 if ch == ":" else 1)
    name = name[start:]
    return name if len(name) <= 40 else name[:37] + "..."


def main():
    if len(sys.argv) >= 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(sys.argv) < 2:
        print("profile: error: name a lab (run with --help for usage)", file=sys.stderr)
        return 2
    lab, lab_args = sys.argv[1], sys.argv[2:]
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
    metrics = [TIME] + METRICS[lab]
    # One timed launch per variant, no L2 flush kernel in the profile.
    quick = [] if lab == "device_query" else ["--warmup", "0", "--repeat", "1", "--no-l2-flush"]
    cmd = [ncu, "--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base", "--metrics", ",".join(metrics), exe] + args + quick
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        print(f"profile: ncu failed ({run.returncode}): {run.stderr.strip()[-500:]}", file=sys.stderr)
        return 3
    lines = [l for l in run.stdout.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    if len(rows) < 3:
        print("profile: ncu reported no kernels")
        return 0
    header, data = rows[0], rows[2:]  # row 1 holds the units
    kcol = header.index("Kernel Name")
    agg = {}
    for r in data:
        k = short_kernel(r[kcol])
        entry = agg.setdefault(k, {"launches": 0, **{m: 0.0 for m in metrics}})
        entry["launches"] += 1
        try:
            t = float(r[header.index(TIME)].replace(",", ""))
        except (ValueError, IndexError):
            t = 0.0
        for m in metrics:
            try:
                v = float(r[header.index(m)].replace(",", ""))
            except (ValueError, IndexError):
                continue
            # percentages and per-instruction ratios are weighted by the launch's time, so a
            # kernel's tiny last pass does not count as much as its first
            entry[m] += v * t if m in WEIGHTED else v
    ratios = {name: pair for name, pair in RATIOS.items() if pair[0] in metrics}
    shown = [m for m in metrics if not any(m in pair for pair in ratios.values())]
    cols = [SHORT.get(m, m.split("__")[-1][:18]) for m in shown] + list(ratios)
    print(f"== Nsight Compute ({', '.join(metrics)}), mean per launch (percentages and ratios weighted by launch time)")
    print(f"{'kernel':<40} {'launches':>8} " + " ".join(f"{c:>18}" for c in cols))
    for k, e in agg.items():
        vals = []
        for m in shown:
            v = e[m] / e[TIME] if m in WEIGHTED and e[TIME] else e[m] / e["launches"]
            if m == TIME:
                v /= 1e3  # ns -> us
            vals.append(f"{v:>18.2f}")
        for num, den in ratios.values():
            vals.append(f"{e[num] / e[den]:>18.2f}" if e[den] else f"{'-':>18}")
        print(f"{k:<40} {e['launches']:>8} " + " ".join(vals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
