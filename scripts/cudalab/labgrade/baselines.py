"""The baseline of every task: three bodies a student could hand in without doing the work, which
must each score 0 on a GPU (scripts/grade_baseline.py grades them; .ci/run runs it where there is one):

  zeros     writes zeros where the answer goes (or leaves it as it found it)
  copy      copies its input to where the answer goes
  constant  writes or returns one constant

A task whose tests such a body passes does not check its answer. None marks a body that is the
task's own answer (latency_hiding.copy is a copy kernel: its copy is correct), with the reason.

EXTRA holds kinds that only some tasks have, graded beside the three and held to the same 0:

  index     makes the answer from the element's index alone, as the notes' ramps would
            (i % 1000, i * 0.5 - 7): it passes where the tests' inputs follow the index
"""

# Every output element once, whatever the grid's shape (1D or 2D): `e` runs over [0, count).
EACH = ("  const std::size_t nt = static_cast<std::size_t>(gridDim.x) * gridDim.y * blockDim.x * blockDim.y;\n"
        "  const std::size_t id = (static_cast<std::size_t>(blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y"
        " + threadIdx.y * blockDim.x + threadIdx.x;\n"
        "  for (std::size_t e = id; e < {count}; e += nt) {{ {stmt} }}")


def each(count, stmt, *unused):
    return "".join(f"  (void){u};\n" for u in unused) + EACH.format(count=count, stmt=stmt)


def three(count, zero, copy, const, *unused):
    """Kernels whose answer is an array of `count` elements: the three stores."""
    return {"zeros": each(count, zero, *unused), "copy": each(count, copy, *unused),
            "constant": each(count, const, *unused)}


def residency(fields):
    return "\n".join(f"  r.{k} = {v};" for k, v in fields.items())


REDUCE = {  # a kernel that writes one partial sum per block
    "zeros": "  (void)in; (void)n;\n  if (threadIdx.x == 0) out[blockIdx.x] = T(0);",
    "copy": "  if (threadIdx.x == 0) {\n    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x;\n"
            "    out[blockIdx.x] = i < n ? in[i] : T(0);\n  }",
    "constant": "  (void)in; (void)n;\n  if (threadIdx.x == 0) out[blockIdx.x] = T(1);",
}

PLANES = "out.r[e] = {v}; out.g[e] = {v}; out.b[e] = {v}; out.a[e] = {v};"
BYTES = "const std::uint8_t* bytes = reinterpret_cast<const std::uint8_t*>(rgba);\n"


def chunk(middle):
    """transfers.issue_chunk around `middle`, what reaches the chunk of d_c: every event recorded,
    the chunk copied back."""
    return ("  const std::size_t offset = chunk.offset, bytes = chunk.count * sizeof(float);\n"
            "  CUDA_CHECK(cudaEventRecord(ev.start, stream));\n"
            "  CUDA_CHECK(cudaEventRecord(ev.copied_in, stream));\n"
            f"  CUDA_CHECK({middle});\n"
            "  CUDA_CHECK(cudaEventRecord(ev.computed, stream));\n"
            "  CUDA_CHECK(cudaMemcpyAsync(p.c + offset, p.d_c + offset, bytes, cudaMemcpyDeviceToHost, stream));\n"
            "  CUDA_CHECK(cudaEventRecord(ev.copied_out, stream));")


def grid_stride(stmt, unused):
    return ("".join(f"  (void){u};\n" for u in unused)
            + "  for (std::size_t e = t; e < count; e += threads) {\n" + stmt + "\n  }")


BODIES = {
    "coalescing.stride": three("n", "out[e] = 0.0f;", "out[e] = in[e];", "out[e] = 1.0f;", "in", "stride"),
    "device_query.residency": {
        "zeros": "  (void)max_threads_per_sm; (void)max_blocks_per_sm; (void)warp_size;\n" + residency(
            {"blocks_by_threads": 0, "blocks_by_block_limit": 0, "resident_blocks": 0, "resident_threads": 0,
             "resident_warps": 0, "occupancy_percent": 0.0}),
        "copy": residency({"blocks_by_threads": "max_threads_per_sm", "blocks_by_block_limit": "max_blocks_per_sm",
                           "resident_blocks": "max_blocks_per_sm", "resident_threads": "max_threads_per_sm",
                           "resident_warps": "max_threads_per_sm / warp_size", "occupancy_percent": 100.0}),
        # the H200 with 256 threads, the numbers the hint gives
        "constant": "  (void)max_threads_per_sm; (void)max_blocks_per_sm; (void)warp_size;\n" + residency(
            {"blocks_by_threads": 8, "blocks_by_block_limit": 32, "resident_blocks": 8, "resident_threads": 2048,
             "resident_warps": 64, "occupancy_percent": 100.0}),
    },
    "occupancy.calculator": {
        "zeros": "  (void)gpu; (void)k; (void)kUnlimited;\n" + residency(
            {"by_threads": 0, "by_blocks": 0, "by_registers": 0, "by_shared_memory": 0, "resident_blocks": 0}),
        "copy": "  (void)kUnlimited;\n" + residency(
            {"by_threads": "k.block_threads", "by_blocks": "gpu.max_blocks_per_sm", "by_registers": "k.regs_per_thread",
             "by_shared_memory": "static_cast<int>(k.dynamic_smem)", "resident_blocks": "gpu.max_blocks_per_sm"}),
        # the notes' Q2 on the A100, the numbers the hint gives
        "constant": "  (void)gpu; (void)k;\n" + residency(
            {"by_threads": 8, "by_blocks": 32, "by_registers": 6, "by_shared_memory": "kUnlimited",
             "resident_blocks": 6}),
    },
    **{f"divergence.{k}": {
        "zeros": "  (void)iters;\n  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = 0.0f;",
        "copy": "  (void)iters;\n  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = static_cast<float>(threadIdx.x);",
        "constant": "  (void)iters;\n  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = 1.0f;",
    } for k in ("divergent", "uniform")},
    "hello.vec_add_raw": {
        kind: f"  (void)a; (void)b;\n  for (int i = 0; i < n; ++i) c[i] = {v};\n  return cudaSuccess;"
        for kind, v in (("zeros", "0"), ("copy", "a[i]"), ("constant", "1"))
    },
    "histogram.shared_private": {
        "zeros": "  (void)s; (void)t; (void)keys; (void)n;\n  for (std::size_t b = first; b < bins; b += stride) hist[b] = 0u;",
        "copy": "  (void)s; (void)t;\n"
                "  for (std::size_t b = first; b < bins && b < n; b += stride) hist[b] = static_cast<unsigned>(keys[b]);",
        "constant": "  (void)s; (void)t; (void)keys; (void)n;\n  for (std::size_t b = first; b < bins; b += stride) hist[b] = 1u;",
    },
    "histogram.warp_aggregated": {
        "zeros": "  (void)lane;\n  if (b >= 0) s[b] = 0u;",
        "copy": "  (void)lane;\n  if (b >= 0) s[b] = static_cast<unsigned>(b);",
        "constant": "  (void)lane;\n  if (b >= 0) s[b] = 1u;",
    },
    "latency.chase": {
        "zeros": "  (void)start; (void)warmup; (void)hops;\n  out->cycles = 0;\n  out->end = 0;",
        "copy": "  (void)warmup; (void)hops;\n  out->cycles = 0;\n  out->end = reinterpret_cast<unsigned long long>(start);",
        "constant": "  (void)start; (void)warmup; (void)hops;\n  out->cycles = 1000;\n  out->end = 1;",
    },
    "latency_hiding.copy": {
        "zeros": grid_stride("    dst[e] = V{};", ("src",)),
        "copy": None,  # the task is a copy kernel: copying the input is its answer
        "constant": grid_stride("    V v;\n    float* f = reinterpret_cast<float*>(&v);\n"
                                "    for (int q = 0; q < static_cast<int>(sizeof(V) / sizeof(float)); ++q) f[q] = 1.0f;\n"
                                "    dst[e] = v;", ("src",)),
    },
    "matmul.smem_tile": three("static_cast<std::size_t>(m) * n", "c[e] = 0.0f;",
                              "c[e] = e < static_cast<std::size_t>(m) * k ? a[e] : 0.0f;", "c[e] = 1.0f;",
                              "a", "b", "k", "as", "bs", "bx", "by"),
    "matmul.reg_tile_2d": three("static_cast<std::size_t>(m) * n", "c[e] = 0.0f;",
                                "c[e] = e < static_cast<std::size_t>(m) * k ? a[e] : 0.0f;", "c[e] = 1.0f;",
                                "a", "b", "k", "as", "bs", "kThreads"),
    "mem_spaces.demo": {
        kind: "  (void)in; (void)s_data; (void)s_dyn;\n"
              "  const int tid = static_cast<int>(blockIdx.x) * static_cast<int>(blockDim.x) + static_cast<int>(threadIdx.x);\n"
              f"  if (tid < n) out[tid] = {v};"
        for kind, v in (("zeros", "0.0f"), ("copy", "in[tid]"), ("constant", "1.0f"))
    },
    "mem_spaces.warp_atomic": {
        "zeros": "  (void)in; (void)n;\n  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(total, 0ull);",
        "copy": "  if (blockIdx.x == 0 && threadIdx.x == 0 && n > 0) atomicAdd(total, static_cast<unsigned long long>(in[0]));",
        "constant": "  (void)in; (void)n;\n  if (blockIdx.x == 0 && threadIdx.x == 0) atomicAdd(total, 1ull);",
    },
    **{f"reduction.{k}": REDUCE for k in ("smem", "interleaved", "strided", "sequential", "first_add",
                                          "unroll_last_warp", "multi_element", "warp_shuffle")},
    "reduction.vector_sum": {
        "zeros": "  (void)in; (void)n;\n  T sum = T(0);",
        "copy": "  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * BLOCK + threadIdx.x;\n"
                "  T sum = i < n ? in[i] : T(0);",
        "constant": "  (void)in; (void)n;\n  T sum = T(1);",
    },
    "reduction.single_pass": {
        kind: "  (void)partials; (void)counter; (void)in; (void)n;\n"
              f"  if (blockIdx.x == 0 && threadIdx.x == 0) *out = {v};"
        for kind, v in (("zeros", "T(0)"), ("copy", "n > 0 ? in[0] : T(0)"), ("constant", "T(1)"))
    },
    "rgba_split.naive": {
        kind: ("  " + BYTES if kind == "copy" else "  (void)rgba;\n") + each("width * height", PLANES.format(v=v))
        for kind, v in (("zeros", "0"), ("copy", "bytes[e]"), ("constant", "1"))
    },
    "rgba_split.uchar4": {
        kind: ("  " + BYTES if kind == "copy" else "  (void)rgba;\n") + each("width * height", PLANES.format(v=v))
        for kind, v in (("zeros", "0"), ("copy", "bytes[e]"), ("constant", "1"))
    },
    "rgba_split.x4": {
        kind: ("  " + BYTES if kind == "copy" else "  (void)rgba;\n") + each("pixels", PLANES.format(v=v))
        for kind, v in (("zeros", "0"), ("copy", "bytes[e]"), ("constant", "1"))
    },
    "roofline.dial": {
        "zeros": "  (void)x; (void)k;\n  return T(0);",
        "copy": "  (void)k;\n  return x;",
        "constant": "  (void)x; (void)k;\n  return T(1);",
    },
    "scan.kogge_stone": {
        "zeros": "  (void)s;\n  incl = T(0);",
        "copy": "  (void)s;",  # incl is already the element itself
        "constant": "  (void)s;\n  incl = T(1);",
    },
    "scan.brent_kung": {
        "zeros": "  (void)total;\n  s[t] = T(0);\n  s[t + B] = T(0);",
        "copy": "  (void)total;",  # s already holds the elements themselves
        "constant": "  s[t] = T(1);\n  s[t + B] = T(1);\n  total = T(2 * B);",
    },
    "scan.lookback": {
        "zeros": "  (void)state; (void)tile; (void)lane;\n  prefix = T(0);",
        # the tile before's published value, whatever its flag: no waiting, no sum
        "copy": "  (void)lane;\n  if (tile > 0) prefix = value_of<T>(StateRef(state[tile - 1]).load(cuda::memory_order_acquire));",
        "constant": "  (void)state; (void)tile; (void)lane;\n  prefix = T(1);",
    },
    "attention.online_softmax": {
        "zeros": "  (void)x; (void)base; (void)cols;\n  s = 0.0f;",
        # each thread's first element as its maximum and sum: the input, with no walk of the row
        "copy": "  if (static_cast<int>(threadIdx.x) < cols) {\n    m = to_float(x[base + threadIdx.x]);\n    s = 1.0f;\n  }",
        "constant": "  (void)x; (void)base; (void)cols;\n  m = 0.0f;\n  s = 1.0f;",
    },
    "attention.decode_merge": {
        "zeros": "  (void)p; (void)splits;\n  store(o, static_cast<size_t>(head) * D + c, 0.0f);",
        # the first split's weighted sum of V as it was left: no other split, no division
        "copy": "  (void)splits;\n  store(o, static_cast<size_t>(head) * D + c, p[2 + c]);",
        "constant": "  (void)p; (void)splits;\n  store(o, static_cast<size_t>(head) * D + c, 1.0f);",
    },
    "sort.radix_count": {
        "zeros": "  (void)keys; (void)n; (void)shift; (void)is_float; (void)hist;\n"
                 "  for (int d = static_cast<int>(threadIdx.x); d < kDigits; d += kRadixThreads)"
                 " counts[static_cast<std::size_t>(d) * tiles + blockIdx.x] = 0u;",
        "copy": "  (void)shift; (void)is_float; (void)hist;\n"
                "  for (int d = static_cast<int>(threadIdx.x); d < kDigits; d += kRadixThreads) {\n"
                "    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kRadixTile + d;\n"
                "    counts[static_cast<std::size_t>(d) * tiles + blockIdx.x] = i < n ? keys[i] : 0u;\n  }",
        "constant": "  (void)keys; (void)n; (void)shift; (void)is_float; (void)hist;\n"
                    "  for (int d = static_cast<int>(threadIdx.x); d < kDigits; d += kRadixThreads)"
                    " counts[static_cast<std::size_t>(d) * tiles + blockIdx.x] = 1u;",
    },
    "sort.bitonic_pairs": {
        "zeros": "  (void)is_float;\n  s[threadIdx.x] = 0u;\n  s[threadIdx.x + blockDim.x] = 0u;",
        "copy": "  (void)s; (void)is_float;",  # the tile stays as loaded: the input itself
        "constant": "  (void)is_float;\n  s[threadIdx.x] = 1u;\n  s[threadIdx.x + blockDim.x] = 1u;",
    },
    "stencil.conv_tile": {
        kind: "  (void)in; (void)nx; (void)ny; (void)x0; (void)y0;\n"
              f"  for (int i = tid; i < sw * sh; i += kBx * kBy) tile[i] = {v};\n  __syncthreads();"
        for kind, v in (("zeros", "0.0f"), ("constant", "1.0f"))
    } | {
        # the tile's cells from the image's first cells, in order: no rows, columns or halo
        "copy": "  (void)x0; (void)y0;\n  for (int i = tid; i < sw * sh; i += kBx * kBy)"
                " tile[i] = in[static_cast<std::size_t>(i) % (static_cast<std::size_t>(nx) * ny)];\n  __syncthreads();",
    },
    "stencil.plane_march": {
        kind: "  (void)a; (void)tile; (void)x0; (void)y0;" + ("" if kind == "copy" else " (void)in;") + "\n"
              "  for (int z = 0; z < nz; ++z) {\n    const std::size_t p = static_cast<std::size_t>(z) * plane;\n"
              f"    if (mine) out[p + c] = {v};\n  }}"
        for kind, v in (("zeros", "0.0f"), ("copy", "in[p + c]"), ("constant", "1.0f"))
    },
    "transfers.issue_chunk": {
        "zeros": chunk("cudaMemsetAsync(p.d_c + offset, 0, bytes, stream)"),
        "copy": chunk("cudaMemcpyAsync(p.d_c + offset, p.a + offset, bytes, cudaMemcpyHostToDevice, stream)"),
        "constant": chunk("cudaMemsetAsync(p.d_c + offset, 0x3f, bytes, stream)"),
    },
    "transpose.naive": three("static_cast<std::size_t>(rows) * cols", "out[e] = 0.0f;", "out[e] = in[e];",
                             "out[e] = 1.0f;", "in"),
    "transpose.tile": three("static_cast<std::size_t>(rows) * cols", "out[e] = 0.0f;", "out[e] = in[e];",
                            "out[e] = 1.0f;", "in", "tile"),
    **{f"vec_add.{k}": three("n", "c[e] = T(0);", "c[e] = a[e];", "c[e] = T(1);", "a", "b")
       for k in ("naive", "coarsened", "grid_stride", "vectorized")},
}

KINDS = ("zeros", "copy", "constant")

EXTRA = {
    "index": {
        # the chunk's c written on the host from the index formula of the GPU-first-touch inputs,
        # every event recorded: it passed while the pipeline's inputs were that formula
        "transfers.issue_chunk": "  CUDA_CHECK(cudaEventRecord(ev.start, stream));\n"
                                 "  CUDA_CHECK(cudaEventRecord(ev.copied_in, stream));\n"
                                 "  CUDA_CHECK(cudaEventRecord(ev.computed, stream));\n"
                                 "  for (std::size_t i = chunk.offset; i < chunk.offset + chunk.count; ++i) {\n"
                                 "    p.c[i] = input_a(i) + input_b(i);\n"
                                 "  }\n"
                                 "  CUDA_CHECK(cudaEventRecord(ev.copied_out, stream));",
    },
}

ALL_KINDS = KINDS + tuple(EXTRA)


def bodies(kind):
    """{region id: [lines]} of `kind` for every task that has one."""
    if kind in EXTRA:
        return {rid: b.split("\n") for rid, b in EXTRA[kind].items()}
    return {rid: b[kind].split("\n") for rid, b in BODIES.items() if b.get(kind) is not None}
