#!/usr/bin/env python3
"""The attention lab's peers: PyTorch's fused attention backends timed on the lab's shapes on the
same machine, as rows to set beside the lab's (a script, never a dependency of the build).

  scripts/attention_peers.py [--heads 64] [--seq 4096] [--dim 128] [--kv 32768] [--repeat 20] [--json]

For the prefill (every query of a sequence, not masked and causal) and the decode (one query
against a KV cache of --kv keys), each of torch.nn.functional.scaled_dot_product_attention's
backends (math: the unfused path; efficient: memory-efficient; flash: FlashAttention-2; cudnn) is
timed with CUDA events (the median of --repeat calls after 3 warm-ups) on BF16 inputs of the lab's
layout (batch 1 x heads x tokens x d), and its output checked against the math backend's (every
element within 2^-6 of the largest |value|: BF16 outputs of sums that differ in order). A backend
that cannot run the shape, or whose output is wrong, shows no speed. TFLOP/s counts what the lab
counts: 4 x queries x keys seen x d per head (about half for causal), and the decode's GB/s the
KV cache read once.

Without PyTorch or a CUDA device it prints "skipped: ..." and exits 0, as the suite's other GPU
scripts do. Exit 1 if a backend's output is wrong, 2 usage error.
"""
import json
import statistics
import sys

from cudalab import script_cli

PROG = "attention_peers"
BACKENDS = ["math", "efficient", "flash", "cudnn"]


def attention_flops(heads, q_len, kv_len, d, causal):
    """The lab's count (labs/attention/reference.hpp, attention_flops)."""
    if causal:
        pairs = q_len * (q_len + 1) / 2 + q_len * (kv_len - q_len)
    else:
        pairs = q_len * kv_len
    return 4.0 * pairs * d * heads


def parse(argv):
    ap = script_cli.Parser(prog=PROG, description=__doc__.splitlines()[0])
    ap.add_argument("--heads", type=int, default=64, help="heads (batch x heads), as the lab's --heads")
    ap.add_argument("--seq", type=int, default=4096, help="prefill tokens")
    ap.add_argument("--dim", type=int, default=128, help="head dimension")
    ap.add_argument("--kv", type=int, default=32768, help="decode: keys in the KV cache")
    ap.add_argument("--repeat", type=int, default=20, help="timed calls per row")
    ap.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    args = ap.parse_args(argv)
    for name in ("heads", "seq", "dim", "kv", "repeat"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    return args


def backend_context(torch, name):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    kinds = {"math": SDPBackend.MATH, "efficient": SDPBackend.EFFICIENT_ATTENTION,
             "flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    return sdpa_kernel([kinds[name]])


def time_call(torch, fn, repeat):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def rows_for(torch, section, q, k, v, causal, flops, kv_bytes, repeat):
    """One row per backend: ms, TFLOP/s, GB/s of the KV cache, and whether its output matched."""
    import torch.nn.functional as F
    rows, reference, status = [], None, 0
    for name in BACKENDS:
        row = {"section": section, "backend": name, "median_ms": None, "tflops": None, "kv_gbps": None, "correct": None}
        try:
            with backend_context(torch, name):
                out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                torch.cuda.synchronize()
                if reference is None:
                    reference = out.float()
                scale = reference.abs().max().item()
                row["correct"] = bool((out.float() - reference).abs().max().item() <= scale / 64)
                if row["correct"]:
                    ms = time_call(torch, lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), repeat)
                    row["median_ms"] = round(ms, 4)
                    row["tflops"] = round(flops / (ms * 1e9), 1)
                    row["kv_gbps"] = round(kv_bytes / (ms * 1e6), 0)
                else:
                    status = 1
        except RuntimeError as e:  # the backend cannot run this shape (or is not built in)
            row["note"] = str(e).splitlines()[0][:120]
        rows.append(row)
    return rows, status


def main(argv):
    args = parse(argv)
    try:
        import torch
    except ImportError:
        print(f"{PROG}: skipped: PyTorch is not installed")
        return 0
    if not torch.cuda.is_available():
        print(f"{PROG}: skipped: no CUDA device")
        return 0
    torch.manual_seed(0)
    h, d = args.heads, args.dim
    opts = {"device": "cuda", "dtype": torch.bfloat16}
    rows, status = [], 0
    q = torch.rand(1, h, args.seq, d, **opts) * 8 - 4  # the lab's queries: values in [-4, 4)
    k = torch.rand(1, h, args.seq, d, **opts) * 2 - 1
    v = torch.rand(1, h, args.seq, d, **opts) * 2 - 1
    for causal in (False, True):
        section = "prefill_causal" if causal else "prefill"
        r, s = rows_for(torch, section, q, k, v, causal, attention_flops(h, args.seq, args.seq, d, causal),
                        4.0 * h * args.seq * d, args.repeat)
        rows += r
        status = max(status, s)
    del q, k, v
    q = torch.rand(1, h, 1, d, **opts) * 8 - 4
    k = torch.rand(1, h, args.kv, d, **opts) * 2 - 1
    v = torch.rand(1, h, args.kv, d, **opts) * 2 - 1
    r, s = rows_for(torch, "decode", q, k, v, False, attention_flops(h, 1, args.kv, d, False), 4.0 * h * args.kv * d,
                    args.repeat)
    rows += r
    status = max(status, s)
    shape = {"heads": h, "seq": args.seq, "dim": d, "kv": args.kv, "torch": torch.__version__,
             "device": torch.cuda.get_device_name()}
    if args.json:
        print(json.dumps({"shape": shape, "rows": rows}, indent=1))
    else:
        print(f"{PROG}: {shape['device']}, torch {shape['torch']}, {h} heads, seq {args.seq}, d {d}, decode kv {args.kv}")
        print(f"  {'section':<15} {'backend':<10} {'median ms':>10} {'TFLOP/s':>8} {'KV GB/s':>8}  ok")
        for row in rows:
            def cell(x):
                return "-" if x is None else str(x)
            ok = {True: "yes", False: "NO", None: "n/a"}[row["correct"]]
            print(f"  {row['section']:<15} {row['backend']:<10} {cell(row['median_ms']):>10} {cell(row['tflops']):>8} "
                  f"{cell(row['kv_gbps']):>8}  {ok}{'  (' + row['note'] + ')' if row.get('note') else ''}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
