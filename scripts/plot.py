#!/usr/bin/env python3
"""Turn a scripts/bench.py result into PNG plots (matplotlib):

  bandwidth_vs_n.png        vec_add, rgba_split and reduction GB/s over N, with the theoretical
                            peak and the measured copy ceiling
  reduction_ladder.png      the reduction ladder at 2^28 floats as bars, CUB beside it
  divergence.png            each divergence variant's time relative to the uniform kernel
  occupancy.png             occupancy over block size; bandwidth over occupancy (1 vs 4 loads in flight)
  roofline.png              the labs' kernels on the GPU's FP32 and BF16 Tensor Core roofline
  transfers_copies.png      cudaMemcpy GB/s over copy size, pageable vs pinned, with the link's rate
  transfers_timeline.png    the overlap's timeline: each stream's copies in, kernels and copies out
  latency.png               a dependent load's latency over the working set, with shared, constant, the ALU
  transpose.png             the transpose ladder at 8192 x 8192 against the copy ceiling; one warp's bank conflicts
  coalescing.png            useful and moved GB/s over the stride; GB/s over the offset
  scan.png                  the scan ladder and stream compaction at 2^28 against CUB and the copy ceiling
  histogram.png             the uint8 ladder on three key distributions; uint32 GB/s over the bin count
  stencil.png               convolution at R = 3, and each heat step's time over the copy's (2D and 3D)
  sort.png                  the sort ladder in G keys/s at 2^28 keys and 2^26 pairs, CUB beside it
  attention.png             row softmax against the copy ceiling; prefill TFLOP/s, causal and not;
                            decode GB/s against the copy ceiling

  scripts/plot.py bench/<gpu>-<date>.json [--out docs/plots]

A plot whose runs the file lacks (a lab that failed in bench.py) is skipped with a line on
stderr; the others are drawn. Exit 0 when every plot was drawn, 1 when one was skipped, 2 when
the file cannot be read.
"""
import itertools
import json
import os
import sys

from cudalab import nsight, script_cli

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def save(fig, out, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name), dpi=110)
    plt.close(fig)


def correct(row):
    """Whether a row's result was right: its "correct" cell (reports from before that column
    was named so call it "ok")."""
    return row.get("correct", row.get("ok")) is True


def good(rows):
    """The rows whose result was right (a wrong one has no speed to draw: its cells are null)."""
    return [r for r in rows if correct(r)]


def series(rows, variant, key="n"):
    pts = sorted((r[key], r["gbps"]) for r in good(rows) if r["variant"] == variant)
    return [p[0] for p in pts], [p[1] for p in pts]


def ceilings(ax, peak, copy):
    ax.axhline(peak, color="black", linestyle="--", linewidth=1, label=f"theoretical peak {peak:.0f} GB/s")
    ax.axhline(copy, color="gray", linestyle=":", linewidth=1.5, label=f"measured copy ceiling {copy:.0f} GB/s")


def bandwidth_panel(ax, rows, variants, key, peak, copy, title, xlabel):
    """One lab's GB/s over problem size: a line per variant (CUB dashed), the two ceilings."""
    for v in variants:
        x, y = series(rows, v, key=key)
        ax.plot(x, y, marker="o", markersize=3, label=v, linestyle="--" if v.startswith("cub") else "-")
    ceilings(ax, peak, copy)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_xscale("log", base=2)
    ax.set_ylabel("GB/s")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")


def plot_bandwidth(b, gpu, out):
    runs = b["runs"]
    peak = runs["device_query"]["devices"][0]["theoretical_bandwidth_gbps"]
    va, rg, rd = runs["vec_add_sweep"], runs["rgba_split_sweep"], runs["reduction_sweep"]
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    bandwidth_panel(axes[0], va["sweep"], ("naive", "coarsened4", "vectorized"), "n", peak, va["copy_ceiling_gbps"],
                    "vec_add: c = a + b (12 bytes per element)", "N (elements)")
    bandwidth_panel(axes[1], rg["sweep"], ("naive", "uchar4", "x4", "x16"), "pixels", peak, rg["copy_ceiling_gbps"],
                    "rgba_split (8 bytes per pixel)", "pixels")
    bandwidth_panel(axes[2], rd["sweep"], ("smem_notes", "multi_element", "single_pass", "cub::DeviceReduce::Sum"),
                    "n", peak, rd["copy_ceiling_gbps"], "reduction: float sum (4 bytes read per element)",
                    "N (elements)")
    fig.suptitle(f"Bandwidth over problem size on {gpu} (median of timed launches, L2 flushed)")
    save(fig, out, "bandwidth_vs_n.png")


def plot_reduction_ladder(b, gpu, out):
    rows = good(b["runs"]["reduction_2p28"]["variants"])
    names = [r["variant"] for r in rows]
    gbps = [r["gbps"] for r in rows]
    colors = ["tab:gray" if r["baseline"] else "tab:blue" for r in rows]
    fig, ax = plt.subplots(figsize=(12, 5.5))
    ax.bar(range(len(rows)), gbps, color=colors)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(names, rotation=40, ha="right", fontsize=9)
    for i, g in enumerate(gbps):
        ax.text(i, g + 40, f"{g:.0f}", ha="center", fontsize=8)
    ax.set_ylabel("GB/s (4 bytes read per element)")
    ax.set_title(f"The reduction ladder, 2^28 floats, {gpu} (CUB in gray)")
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, out, "reduction_ladder.png")


def plot_matmul(b, gpu, out):
    """The SIMT ladder in TFLOP/s with cuBLAS as a line; y = W x over the batch, with the roofline's
    prediction."""
    runs = b["runs"]
    fig, axes = plt.subplots(1, 2, figsize=(15, 5.5))
    ax = axes[0]
    rows = good(runs["matmul_4096"]["variants"])
    ladder = [r for r in rows if not r["baseline"]]
    cublas = [r for r in rows if r["baseline"]]
    tflops = [r["gflops"] / 1e3 for r in ladder]
    ax.bar(range(len(ladder)), tflops, color="tab:blue")
    ax.set_xticks(range(len(ladder)))
    ax.set_xticklabels([r["variant"] for r in ladder], rotation=35, ha="right", fontsize=9)
    for i, t in enumerate(tflops):
        ax.text(i, t + 0.5, f"{t:.1f}", ha="center", fontsize=8)
    if cublas:
        ax.axhline(cublas[0]["gflops"] / 1e3, color="tab:gray", linestyle="--",
                   label=f"cuBLAS SGEMM {cublas[0]['gflops'] / 1e3:.1f} TFLOP/s")
    peak = runs["matmul_4096"]["peak_fp32_gflops"] / 1e3
    ax.axhline(peak, color="black", linestyle=":", label=f"FP32 peak {peak:.1f} TFLOP/s")
    ax.set_ylabel("TFLOP/s")
    ax.set_title("The SIMT ladder, 4096^3 FP32")
    ax.legend(fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    ax = axes[1]
    sweep = good(runs["matmul_gemv"]["sweep"])
    for variant, marker in (("cublas", "o"), ("async_pipeline", "s")):
        mine = [r for r in sweep if r["variant"] == variant]
        ax.plot([r["batch"] for r in mine], [r["median_ms"] for r in mine], marker=marker, label=variant)
    base = [r for r in sweep if r["variant"] == "cublas"]
    ax.plot([r["batch"] for r in base], [r["roofline_ms"] for r in base], color="black", linestyle=":",
            label="roofline: max(bytes / copy ceiling, FLOPs / FP32 peak)")
    knee = runs["matmul_gemv"]["knee_predicted_batch"]
    ax.axvline(knee, color="tab:red", linestyle="--", linewidth=1, label=f"intensity = ridge at b = {knee:.0f}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xlabel("batch b (vectors multiplied by W at once)")
    ax.set_ylabel("ms")
    shape = runs["matmul_gemv"]["shape"]  # {"m": M, "k": K} (older results: the text "M x b x K")
    w = f"{shape['m']} x {shape['k']}" if isinstance(shape, dict) else shape
    ax.set_title(f"y = W x, W {w}: GEMV (flat) to GEMM (rising)")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.suptitle(f"matmul on {gpu}")
    save(fig, out, "matmul.png")


def plot_divergence(b, gpu, out):
    d = b["runs"]["divergence"]
    rows = good(d["variants"])
    fig, ax = plt.subplots(figsize=(9, 4.8))
    names = [r["variant"] for r in rows]
    ratio = [r["time_over_uniform"] for r in rows]
    ax.bar(names, ratio, color=["tab:red" if r["divergent_warps"] > 1 else "tab:green" for r in rows])
    ax.axhline(2.0, color="black", linestyle="--", linewidth=1, label="model: two paths = 2x")
    for i, v in enumerate(ratio):
        ax.text(i, v + 0.03, f"{v:.2f}x", ha="center", fontsize=9)
    ax.set_ylabel("time / time of the uniform kernel")
    ax.set_title(f"Warp divergence, {d['iters']}-step paths, {gpu} (red: warps diverge)")
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, out, "divergence.png")


def plot_occupancy(b, gpu, out):
    o = b["runs"]["occupancy"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    rows = o["light_kernel"]
    ax = axes[0]
    ax.plot([r["block"] for r in rows], [r["occupancy_percent"] for r in rows], marker="o")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("threads per block")
    ax.set_ylabel("occupancy (%)")
    ax.set_ylim(0, 105)
    ax.set_title("light_kernel: occupancy over block size")
    ax.grid(True, alpha=0.3)
    rows = good(o["bandwidth_vs_occupancy"])
    ax = axes[1]
    for variant, marker, label in (("scalar", "o", "1 float per iteration"), ("ilp", "s", "4 x float4 in flight per thread")):
        mine = [r for r in rows if r["variant"] == variant]
        ax.plot([r["occupancy_percent"] for r in mine], [r["gbps"] for r in mine], marker=marker, label=label)
    copy = o["copy_ceiling_gbps"]
    ax.axhline(copy, color="gray", linestyle=":", label=f"copy ceiling {copy:.0f} GB/s")
    ax.set_xlabel("occupancy (%)")
    ax.set_ylabel("GB/s (read + write)")
    ax.set_ylim(bottom=0)
    ax.set_title("out = 2 * in: bandwidth over occupancy")
    ax.legend(fontsize=9)
    ax.grid(True, alpha=0.3)
    fig.suptitle(f"Occupancy on {gpu}")
    save(fig, out, "occupancy.png")


def plot_roofline(b, gpu, out):
    """The labs on the roofline measured by the roofline lab: its copy ceiling and FMA peak are the
    roofs, its FP32 dial the curve that bends at the ridge."""
    runs = b["runs"]
    rl = runs["roofline"]
    peak_flops, peak_bw = rl["peak_fp32_gflops"], rl["copy_ceiling_gbps"]
    points = []

    def point(label, row):  # a measured row: its intensity is its own FLOPs over its own bytes
        points.append((f"{label} ({row['variant']})", row["flops"] / row["bytes"], row["gflops"]))
    fastest = lambda rows: max((r for r in good(rows) if r["flops"] > 0 and not r["baseline"]), key=lambda r: r["gbps"])  # noqa: E731
    point("vec_add", fastest(runs["vec_add_2p28"]["variants"]))
    point("reduction", fastest(runs["reduction_2p28"]["variants"]))
    ob = max(good(runs["occupancy"]["bandwidth_vs_occupancy"]), key=lambda r: r["gbps"])
    points.append(("out = 2 * in (occupancy lab)", 1 / 8, ob["gbps"] / 8))  # one multiply per 8 bytes
    point("divergence", [r for r in good(runs["divergence"]["variants"]) if r["variant"] == "uniform"][0])
    if "matmul_4096" in runs:
        mm = {r["variant"]: r for r in good(runs["matmul_4096"]["variants"])}
        # with plot.py --profile of `matmul 4096` (the bench run's size), the bytes Nsight saw
        measured = nsight.dram_bytes_by_variant(b.get("_profiles", {}).get("matmul"), "matmul", ["4096"])
        for v in ("naive", "smem32", "async_pipeline", "cublas"):
            if v not in mm:
                continue
            if v in measured:
                r = mm[v]
                points.append((f"matmul 4096^3, DRAM bytes measured ({v})", r["flops"] / measured[v], r["gflops"]))
            else:  # at the fewest bytes (A, B read once, C written once)
                point("matmul 4096^3, fewest bytes", mm[v])
    rms_flop, rms_bytes = rl["rmsnorm_flops"], rl["rmsnorm_bytes"]
    points.append(("RMSNorm, BF16 (roofline lab)", rms_flop / rms_bytes, rms_flop / (rl["rmsnorm_us"] * 1e-6) / 1e9))
    # the Tensor Core rungs (matmul --precision bf16) under the BF16 Tensor Core roof, at the
    # fewest bytes (A, B read once in BF16, C written once in FP32)
    tensor_roof = rl.get("peak_bf16_tensor_gflops")
    if tensor_roof and "matmul_bf16_8192" in runs:
        tc = {r["variant"]: r for r in good(runs["matmul_bf16_8192"]["variants"])}
        for v in ("wmma", "mma_sync_wide", "mma_sync_pipelined", "wgmma_tma", "wgmma_warp_specialized", "wgmma_grouped",
                  "wgmma_persistent", "wgmma_tma_store", "wgmma_stream_k", "wgmma_cluster", "cublas_bf16"):
            if v in tc:
                point("matmul 8192^3 BF16, fewest bytes", tc[v])
    fig, ax = plt.subplots(figsize=(9, 6.5))
    xs = [2 ** (k / 4) for k in range(-20, 60)]
    ax.plot(xs, [min(peak_flops, peak_bw * x) for x in xs], color="black",
            label=f"roof (measured): {peak_bw:.0f} GB/s, {peak_flops / 1e3:.1f} TFLOP/s FP32, ridge {rl['ridge_fp32']:.1f}")
    if tensor_roof:
        ax.plot(xs, [min(tensor_roof, peak_bw * x) for x in xs], color="black", linestyle="-.",
                label=f"BF16 Tensor Core roof (measured): {tensor_roof / 1e3:.0f} TFLOP/s, ridge {rl['ridge_bf16_tensor']:.0f}")
    dial = good(rl["dial_fp32"])
    ax.plot([r["ai"] for r in dial], [r["gflops"] for r in dial], marker=".", color="tab:gray", linestyle="--",
            label="the FP32 dial (k FMAs per element)")
    # markers repeat past the 15 (their colours cycle by 10): zip alone would drop the points past them
    for (name, ai, perf), marker in zip(points, itertools.cycle("osD^vP*Xhp<>dH8")):
        ax.plot(ai, perf, marker=marker, markersize=9, linestyle="none", label=f"{name}: {perf:.0f} GFLOP/s")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=10)
    ax.set_xlabel("arithmetic intensity (FLOP per byte of DRAM traffic)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title(f"The labs on the {gpu} roofline (rgba_split does no arithmetic: off the chart)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    save(fig, out, "roofline.png")


def plot_transfer_copies(b, gpu, out):
    sw = b["runs"]["transfers_sweep"]
    rows = sw["copies"]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for key, label, style in (("pinned_h2d_gbps", "pinned H2D", "-"), ("pinned_d2h_gbps", "pinned D2H", "-"),
                              ("pageable_h2d_gbps", "pageable H2D", "--"), ("pageable_d2h_gbps", "pageable D2H", "--")):
        ax.plot([r["bytes"] for r in rows], [r[key] for r in rows], marker="o", markersize=3, linestyle=style, label=label)
    if "link_gbps" in sw:
        ax.axhline(sw["link_gbps"], color="black", linestyle=":", linewidth=1.2,
                   label=f"{sw['link']}: {sw['link_gbps']:.1f} GB/s per direction (theoretical)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bytes per cudaMemcpy")
    ax.set_ylabel("GB/s")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(f"Host <-> device copies on {gpu}: a fixed cost per copy, then the link's rate")
    save(fig, out, "transfers_copies.png")


def plot_transfer_timeline(b, gpu, out):
    tr = b["runs"]["transfers"]
    shown = tr["overlap_streams"]
    bars = [e for e in tr["timeline"] if e["streams"] == shown]
    colors = {"h2d": "tab:blue", "kernel": "tab:green", "d2h": "tab:orange"}
    fig, ax = plt.subplots(figsize=(11, 1.2 + 0.6 * shown))
    for op, color in colors.items():
        mine = [e for e in bars if e["op"] == op]
        for e in mine:
            ax.broken_barh([(e["start_ms"], e["end_ms"] - e["start_ms"])], (e["stream"] - 0.35, 0.7),
                           facecolors=color, edgecolor="white", linewidth=0.5)
        ax.plot([], [], color=color, linewidth=6, label=op)
    ax.set_yticks(range(shown))
    ax.set_yticklabels([f"stream {s}" for s in range(shown)])
    ax.invert_yaxis()
    ax.set_xlabel("ms from the start (a bar begins when its stream reached it)")
    ax.set_title(f"c = a + b in {max(e['chunk'] for e in bars) + 1} chunks over {shown} streams on {gpu}: "
                 f"{tr['overlap_over_bound']:.2f} x max(H2D, kernel, D2H)")
    ax.legend(fontsize=8, loc="upper right", ncol=3)
    ax.grid(True, axis="x", alpha=0.3)
    save(fig, out, "transfers_timeline.png")


def plot_latency(b, gpu, out):
    sw = b["runs"]["latency_sweep"]
    rows = sw["global"]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    ax.plot([r["bytes"] for r in rows], [r["cycles"] for r in rows], marker="o", markersize=3,
            label="global memory, one thread, random cycle")
    for key, label, style in (("shared_cycles", "shared memory", "--"), ("constant_cycles", "constant memory", ":"),
                              ("fma_cycles", "a dependent FMA", "-.")):
        ax.axhline(sw[key], linestyle=style, color="gray", linewidth=1.2, label=f"{label}: {sw[key]:.0f} cycles")
    ax.axvline(sw["l2_mb"] * 1e6, color="black", linewidth=0.8, linestyle=":", label=f"L2: {sw['l2_mb']:.0f} MB")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("working set (bytes)")
    ax.set_ylabel("cycles per dependent access")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title(f"Latency on {gpu} at {sw['sm_clock_ghz']:.2f} GHz: L1, L2, DRAM, then the TLBs")
    save(fig, out, "latency.png")


def plot_latency_hiding(b, gpu, out):
    r = b["runs"]["latency_hiding"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.5))
    chains = sorted({row["chains"] for row in r["fma"]})
    for c in chains:
        rows = sorted((row for row in r["fma"] if row["chains"] == c and correct(row)), key=lambda row: row["warps_per_sm"])
        line, = left.plot([row["warps_per_sm"] for row in rows], [row["percent_of_peak_at_clock"] for row in rows],
                          marker="o", label=f"{c} chain{'s' if c > 1 else ''} per thread")
        left.plot([row["warps_per_sm"] for row in rows], [row["model_percent"] for row in rows], linestyle=":",
                  color=line.get_color(), linewidth=1)
    left.set_xscale("log", base=2)
    left.set_xlabel("warps per SM")
    left.set_ylabel("% of the FP32 peak at the measured clock")
    left.set_ylim(0, 105)
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=8, loc="lower right", title="measured (dotted: the 4-cycle issue model)", title_fontsize=8)
    left.set_title("Dependent FMA chains: warps (TLP) x chains (ILP)")
    copy = r["copy_ceiling_gbps"]
    for width, marker in ((4, "o"), (8, "s"), (16, "^")):
        rows = [row for row in r["reads"] if row["width"] == width and correct(row)]
        right.scatter([row["bytes_in_flight_per_sm"] for row in rows], [row["gbps"] for row in rows], marker=marker, s=18,
                      label=f"{width}-byte loads (warps x loads varied)")
    right.axhline(copy, color="black", linewidth=1, label=f"copy ceiling: {copy:.0f} GB/s")
    right.axhline(0.95 * copy, color="gray", linewidth=0.8, linestyle="--", label="0.95 x copy ceiling")
    right.axvline(r["predicted_bytes_per_sm"], color="tab:red", linestyle=":",
                  label=f"Little: {r['latency_ns']:.0f} ns x copy / SMs = {r['predicted_bytes_per_sm'] / 1024:.1f} KiB")
    if "knee_bytes_per_sm" in r:
        right.axvline(r["knee_bytes_per_sm"], color="tab:green", linestyle="--",
                      label=f"knee: {r['knee_bytes_per_sm'] / 1024:.0f} KiB ({r['knee_over_prediction']:.2f} x Little)")
    right.set_xscale("log", base=2)
    right.set_xlabel("bytes in flight per SM (warps x 32 x loads x width)")
    right.set_ylabel("read bandwidth (GB/s)")
    right.grid(True, which="both", alpha=0.3)
    right.legend(fontsize=8, loc="upper left")
    right.set_title("Reads far above L2 against bytes in flight")
    fig.suptitle(f"Hiding latency on {gpu}")
    save(fig, out, "latency_hiding.png")


def plot_transpose(b, gpu, out):
    tr = b["runs"]["transpose_8192"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.2))
    rows = good(tr["variants"])
    left.bar([r["variant"] for r in rows], [r["gbps"] for r in rows], color="tab:blue")
    left.axhline(tr["copy_ceiling_gbps"], color="gray", linestyle=":", linewidth=1.5,
                 label=f"measured copy ceiling {tr['copy_ceiling_gbps']:.0f} GB/s")
    for i, r in enumerate(rows):
        left.text(i, r["gbps"], f"{r['gbps']:.0f}", ha="center", va="bottom", fontsize=8)
    left.set_ylabel("GB/s (8 bytes per element)")
    left.set_title("transpose, 8192 x 8192 floats")
    left.legend(fontsize=8, loc="upper left")
    banks = tr["banks"]
    right.bar([r["case"] for r in banks], [r["cycles"] for r in banks], color="tab:orange")
    for i, r in enumerate(banks):
        right.text(i, r["cycles"], f"{r['degree']}-way", ha="center", va="bottom", fontsize=8)
    right.set_ylabel("cycles per dependent access (one warp)")
    right.set_title("shared-memory banks: predicted conflict degree on each bar")
    right.tick_params(axis="x", labelrotation=35, labelsize=8)
    fig.suptitle(f"Shared-memory tiles and banks on {gpu}")
    save(fig, out, "transpose.png")


def plot_coalescing(b, gpu, out):
    co = b["runs"]["coalescing"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.2))
    copy = co["copy_ceiling_gbps"]
    st = good(co["stride"])
    left.plot([r["stride"] for r in st], [r["gbps"] for r in st], marker="o", label="useful GB/s")
    left.plot([r["stride"] for r in st], [r["moved_gbps"] for r in st], marker="s", linestyle="--",
              label="moved GB/s (whole sectors)")
    left.axhline(copy, color="gray", linestyle=":", label=f"copy ceiling {copy:.0f} GB/s")
    left.set_xscale("log", base=2)
    left.set_xlabel("stride (floats)")
    left.set_ylabel("GB/s")
    left.set_ylim(bottom=0)
    left.set_title("out[i] = in[i * stride]")
    left.legend(fontsize=8)
    of = good(co["offset"])
    right.plot([r["offset"] for r in of], [r["gbps"] for r in of], marker="o", label="GB/s")
    right.axhline(copy, color="gray", linestyle=":", label=f"copy ceiling {copy:.0f} GB/s")
    right.set_xlabel("offset (floats)")
    right.set_ylabel("GB/s")
    right.set_ylim(0, 1.1 * copy)
    right.legend(fontsize=8, loc="lower right")
    right.set_title("out[i] = in[i + offset]")
    fig.suptitle(f"Coalescing on {gpu}")
    save(fig, out, "coalescing.png")


def ladder_bars(ax, rows, value, label, ceiling=None, ceiling_label=""):
    """A ladder as bars (the yardstick in gray), each labelled with its value; an optional ceiling."""
    rows = good(rows)
    ys = [value(r) for r in rows]
    ax.bar(range(len(rows)), ys, color=["tab:gray" if r.get("baseline") else "tab:blue" for r in rows])
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([r["variant"] for r in rows], rotation=35, ha="right", fontsize=8)
    for i, y in enumerate(ys):
        ax.text(i, y, f"{y:.0f}" if y >= 100 else f"{y:.3g}", ha="center", va="bottom", fontsize=7)
    ax.set_ylim(0, 1.2 * max(ys + [ceiling or 0] + [1e-9]))  # room for the labels and the legend
    if ceiling:
        ax.axhline(ceiling, color="gray", linestyle=":", linewidth=1.5, label=ceiling_label)
        ax.legend(fontsize=8, loc="upper left")
    ax.set_ylabel(label)
    ax.grid(True, axis="y", alpha=0.3)


def plot_scan(b, gpu, out):
    sc = b["runs"]["scan_2p28"]
    copy = sc["copy_ceiling_gbps"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.2))
    ladder_bars(left, sc["variants"], lambda r: r["gbps"], "GB/s (N read and written once)", copy,
                f"measured copy ceiling {copy:.0f} GB/s")
    left.set_title("inclusive scan, 2^28 int32")
    ladder_bars(right, sc["compaction"], lambda r: r["gbps"], "GB/s (N read, the kept written)", copy,
                f"measured copy ceiling {copy:.0f} GB/s")
    right.set_title("stream compaction of the same N (keep x > 0)")
    fig.suptitle(f"Scan and compaction on {gpu} (CUB in gray)")
    save(fig, out, "scan.png")


def plot_histogram(b, gpu, out):
    runs = b["runs"]
    fig, (left, right) = plt.subplots(1, 2, figsize=(15, 5.4))
    dists = ("uniform", "skewed", "one")
    tables = {d: {r["variant"]: r["gbps"] for r in good(runs[f"histogram_u8_{d}_2p28"]["variants"])} for d in dists}
    variants = list(tables["uniform"])
    width = 0.8 / len(dists)
    for k, d in enumerate(dists):
        left.bar([i + (k - 1) * width for i in range(len(variants))], [tables[d].get(v, 0) for v in variants], width,
                 label=f"keys: {d}")
    copy = runs["histogram_u8_uniform_2p28"]["copy_ceiling_gbps"]
    left.axhline(copy, color="gray", linestyle=":", linewidth=1.5, label=f"copy ceiling {copy:.0f} GB/s")
    left.set_xticks(range(len(variants)))
    left.set_xticklabels(variants, rotation=35, ha="right", fontsize=8)
    left.set_ylabel("GB/s (the keys read once)")
    left.set_title("256 bins, 2^28 uint8 keys: contention decides")
    left.legend(fontsize=8, loc="upper left")
    left.grid(True, axis="y", alpha=0.3)
    sweep = runs["histogram_u32_bins_sweep"]
    for v in sorted({r["variant"] for r in sweep["sweep"]}):
        x, y = series(sweep["sweep"], v, key="bins")
        right.plot(x, y, marker="o", markersize=3, label=v, linestyle="--" if v.startswith("cub") else "-")
    right.set_xscale("log", base=2)
    right.set_yscale("log")
    right.set_xlabel("bins")
    right.set_ylabel("GB/s")
    right.set_title("2^26 uint32 keys: where the bins stop fitting shared memory")
    right.legend(fontsize=7)
    right.grid(True, alpha=0.3)
    fig.suptitle(f"Histograms on {gpu}")
    save(fig, out, "histogram.png")


def plot_stencil(b, gpu, out):
    st = b["runs"]["stencil"]
    copy = st["copy_ceiling_gbps"]
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    ladder_bars(axes[0], st["conv"], lambda r: r["gbps"], "GB/s (the image read and written once)", copy,
                f"measured copy ceiling {copy:.0f} GB/s")
    axes[0].set_title("convolution, R = 3")
    ladder_bars(axes[1], st["heat2d"], lambda r: r["step_over_copy"], "one step's time / the copy's (1 = a copy)")
    axes[1].axhline(1, color="gray", linestyle=":", linewidth=1.5)
    axes[1].set_title("2D heat step")
    ladder_bars(axes[2], st["heat3d"], lambda r: r["step_over_copy"], "one step's time / the copy's (1 = a copy)")
    axes[2].axhline(1, color="gray", linestyle=":", linewidth=1.5)
    axes[2].set_title("3D heat step")
    fig.suptitle(f"Stencils on {gpu} (lower is better for the heat steps)")
    save(fig, out, "stencil.png")


def plot_sort(b, gpu, out):
    runs = b["runs"]
    panels = [("sort_2p28", "2^28 uint32 keys", "G keys/s")]
    if "sort_pairs_2p26" in runs:  # a bench stopped by its time limit may have only the keys
        panels.append(("sort_pairs_2p26", "2^26 uint32 keys with uint32 values (stable)", "G pairs/s"))
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 5.2), squeeze=False)
    for ax, (key, title, unit) in zip(axes[0], panels):
        ladder_bars(ax, runs[key]["variants"], lambda r: r["gkeys_per_s"], unit)
        ax.set_title(title)
    fig.suptitle(f"Sorting on {gpu} (CUB in gray)")
    save(fig, out, "sort.png")


def plot_attention(b, gpu, out):
    at = b["runs"]["attention"]
    copy = at["copy_ceiling_gbps"]
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    rows = [dict(r, variant=f"{r['variant']} ({t})") for t, key in (("FP32", "softmax_f32"), ("BF16", "softmax_bf16"))
            for r in at[key]]
    ladder_bars(axes[0], rows, lambda r: r["gbps"], "GB/s (the rows read and written once)", copy,
                f"measured copy ceiling {copy:.0f} GB/s")
    axes[0].set_title("row softmax")
    rows = [dict(r, variant=f"{r['variant']}{' causal' if key == 'prefill_causal' else ''}")
            for key in ("prefill", "prefill_causal") for r in at[key]]
    ladder_bars(axes[1], rows, lambda r: r["gflops"] / 1000, "TFLOP/s (useful FLOPs)")
    axes[1].set_title("prefill, BF16 (unfused cuBLAS path in gray)")
    ladder_bars(axes[2], at["decode"], lambda r: r["gbps"], "GB/s (Q, K, V and O once)", copy,
                f"measured copy ceiling {copy:.0f} GB/s")
    axes[2].set_title("decode: one query against the KV cache")
    fig.suptitle(f"Attention on {gpu}")
    save(fig, out, "attention.png")


def main():
    ap = script_cli.Parser(prog="plot", description="Plot a scripts/bench.py result.")
    ap.add_argument("bench_json")
    ap.add_argument("--out", default=os.path.join("docs", "plots"))
    ap.add_argument("--profile", action="append", default=[], metavar="FILE",
                    help="a scripts/profile.py --json report; matmul 4096's puts the matmul points of the "
                         "roofline plot at the DRAM bytes Nsight measured (repeatable)")
    args = ap.parse_args()
    try:
        with open(args.bench_json) as f:
            b = json.load(f)
        b["_profiles"] = {}
        for path in args.profile:
            with open(path) as f:
                doc = json.load(f)
            b["_profiles"][doc["lab"]] = doc
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
        script_cli.fail("plot", 2, f"cannot read {e.filename if isinstance(e, OSError) else 'a report'}: {e}")
    os.makedirs(args.out, exist_ok=True)
    gpu = b.get("gpu", "GPU")
    status = 0
    for fn in (plot_bandwidth, plot_reduction_ladder, plot_matmul, plot_divergence, plot_occupancy, plot_roofline,
               plot_transfer_copies, plot_transfer_timeline, plot_latency, plot_latency_hiding, plot_transpose,
               plot_coalescing, plot_scan, plot_histogram, plot_stencil, plot_sort, plot_attention):
        try:
            fn(b, gpu, args.out)
        except KeyError as e:
            print(f"plot: {fn.__name__} skipped: the bench file has no {e} entry", file=sys.stderr)
            status = 1
            continue
        print(f"plot: {fn.__name__} done")
    return status


if __name__ == "__main__":
    sys.exit(main())
