// histogram kernels: counts of n keys (uint8 or uint32) in `bins` even bins.
//
// Napkin math: a histogram reads each key once (1 or 4 bytes) and writes `bins` counters: 2^28
// uint8 keys are 268 MB, >= 56 us at the H200's 4.8 TB/s. What limits it is not the bytes but the
// read-modify-write of a counter per key: an atomic. Global atomics are done in L2 (a few per
// clock per slice, and keys of the same bin queue at one address); shared-memory atomics are done
// in the SM, so each block counts into its own copy (privatization) and adds the copy to the
// global bins once. Equal keys in one warp still queue at one shared address: a warp that
// gathers them (match.any) and adds their number once, or a thread that counts a run of equal
// keys in a register, does one atomic where there were many. When the bins do not fit one
// block's shared memory, a cluster of blocks can hold them together (distributed shared memory).
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/math.hpp"
#include "common/variants.hpp"
#include "histogram.hpp"

namespace histogram {

namespace {

constexpr int kBlock = 256;           // threads per block: 8 warps
constexpr int kWarps = kBlock / 32;
// 16-byte loads in flight per thread: vector_runs 2; lane_copies 4 (it spends 16 atomics on each
// vector before its next loads issue, so it keeps more of them in flight per round).
template <typename Counter>
constexpr int kVectors = 2;
constexpr std::size_t kCopiesBudget = 64 * 1024;   // shared memory for per-warp copies
constexpr std::size_t kLanesBudget = 32 * 1024;    // shared memory for copies interleaved by lane
constexpr std::size_t kClusterSlice = 32 * 1024;   // shared memory per block of a cluster
constexpr int kMaxCluster = 8;        // the portable cluster size
static_assert(kClusterSlice <= 48 * 1024, "a cluster's slice fits the default dynamic shared memory limit");

// ---- 1. Global atomics: every key one atomicAdd on the global bins (done in L2) ----
template <typename K>
__global__ void __launch_bounds__(kBlock) global_atomics(const K* keys, std::size_t n, unsigned bins, unsigned* hist) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kBlock;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x; i < n; i += stride) {
    const int b = bin_of(keys[i], bins);
    if (b >= 0) atomicAdd(&hist[b], 1u);
  }
}

// ---- 2. Shared-memory privatization: the block counts into its own copy, then adds it once ----
template <typename K>
__global__ void __launch_bounds__(kBlock) shared_private(const K* keys, std::size_t n, unsigned bins, unsigned* hist) {
  extern __shared__ unsigned s[];  // bins counters, one copy for the block
  const unsigned t = threadIdx.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kBlock + t;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kBlock;
  // STUDENT-BEGIN(histogram.shared_private): a histogram private to the block
  // TASK: Count keys[first], keys[first + stride], ... (below n) into the block's copy s[0..bins)
  // and add the copy to the global bins. Three steps with a __syncthreads() between them: the
  // threads zero s (thread t clears bins t, t + kBlock, ...); each thread adds 1 to s[bin] for
  // each of its keys with atomicAdd, skipping keys whose bin_of(key, bins) is -1 (out of range);
  // then each thread adds its bins' counts to hist with atomicAdd (a bin that stayed 0 needs none).
  // HINT: about 12 lines; the README draws the three steps.
  // STUB: (void)s; (void)t; (void)first; (void)stride; (void)keys; (void)n; (void)bins; (void)hist;
  for (unsigned b = t; b < bins; b += kBlock) s[b] = 0;
  __syncthreads();
  for (std::size_t i = first; i < n; i += stride) {
    const int b = bin_of(keys[i], bins);
    if (b >= 0) atomicAdd(&s[b], 1u);
  }
  __syncthreads();
  for (unsigned b = t; b < bins; b += kBlock) {
    const unsigned c = s[b];
    if (c) atomicAdd(&hist[b], c);
  }
  // STUDENT-END(histogram.shared_private)
}

// Adds the block's `copies` copies of the bins (copy c at s + c * bins) to the global bins.
__device__ __forceinline__ void merge_copies(const unsigned* s, unsigned bins, int copies, unsigned* hist) {
  __syncthreads();
  for (unsigned b = threadIdx.x; b < bins; b += kBlock) {
    unsigned c = 0;
    for (int k = 0; k < copies; ++k) c += s[static_cast<std::size_t>(k) * bins + b];
    if (c) atomicAdd(&hist[b], c);
  }
}

__device__ __forceinline__ void zero_copies(unsigned* s, std::size_t words) {
  for (std::size_t w = threadIdx.x; w < words; w += kBlock) s[w] = 0;
  __syncthreads();
}

// ---- 3. Per-warp copies: warps no longer queue behind each other at one counter ----
template <typename K>
__global__ void __launch_bounds__(kBlock) warp_private(const K* keys, std::size_t n, unsigned bins, int copies,
                                                       unsigned* hist) {
  extern __shared__ unsigned s[];  // `copies` copies of the bins; warp w counts into copy w % copies
  zero_copies(s, static_cast<std::size_t>(copies) * bins);
  unsigned* mine = s + static_cast<std::size_t>((threadIdx.x / 32) % copies) * bins;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kBlock;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x; i < n; i += stride) {
    const int b = bin_of(keys[i], bins);
    if (b >= 0) atomicAdd(&mine[b], 1u);
  }
  merge_copies(s, bins, copies, hist);
}

// ---- 4. Warp-aggregated atomics: the lanes of a warp with the same bin add once, together ----
template <typename K>
__global__ void __launch_bounds__(kBlock) warp_aggregated(const K* keys, std::size_t n, unsigned bins, unsigned* hist) {
  extern __shared__ unsigned s[];  // bins counters, one copy for the block
  zero_copies(s, bins);
  const int lane = static_cast<int>(threadIdx.x & 31);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kBlock;
  // the loop runs the same number of times in every lane (the bounds are checked per key), so
  // the whole warp takes part in every __match_any_sync
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * kBlock + (threadIdx.x & ~31u); base < n;
       base += stride) {
    const std::size_t i = base + static_cast<std::size_t>(lane);
    const int b = i < n ? bin_of(keys[i], bins) : -1;
    // STUDENT-BEGIN(histogram.warp_aggregated): one atomic per distinct bin of a warp
    // TASK: Count this lane's bin b (-1: no key, or out of range: count nothing) into s[b], with
    // one atomicAdd per distinct bin of the warp: __match_any_sync(0xffffffff, b) gives the mask
    // of the lanes whose b is the same as this lane's; the lowest of them (__ffs(mask) - 1) adds
    // how many there are (__popc(mask)), the others add nothing.
    // HINT: 3 lines.
    // STUB: (void)b; (void)lane;
    const unsigned peers = __match_any_sync(0xffffffffu, b);
    if (b >= 0 && lane == __ffs(static_cast<int>(peers)) - 1) atomicAdd(&s[b], static_cast<unsigned>(__popc(peers)));
    // STUDENT-END(histogram.warp_aggregated)
  }
  merge_copies(s, bins, 1, hist);
}

// ---- 5. 16-byte loads, runs counted in registers, copies interleaved by lane ----
// A thread keeps (bin, count) of its current run of equal bins and adds the count when the run
// ends: a key that repeats its predecessor costs an add in a register, not an atomic. The block's
// `lanes` copies are interleaved, counter (bin, copy) at s[bin * lanes + copy], and lane l counts
// into copy l % lanes: with 32 copies every lane of a warp has a bank of its own (bank = lane),
// so the atomics of one warp instruction never conflict on a bank, whatever their bins.
struct Run {
  int bin = -1;
  unsigned count = 0;
  __device__ __forceinline__ void add(int b, unsigned* s, unsigned lanes, unsigned copy) {
    if (b == bin) {
      ++count;
    } else if (b >= 0) {
      if (bin >= 0) atomicAdd(&s[static_cast<unsigned>(bin) * lanes + copy], count);
      bin = b;
      count = 1;
    }
  }
  __device__ __forceinline__ void flush(unsigned* s, unsigned lanes, unsigned copy) {
    if (bin >= 0) atomicAdd(&s[static_cast<unsigned>(bin) * lanes + copy], count);
  }
};

// ---- 6. The same loads and copies, one atomic per key and no run: no compare, no branch ----
// With a copy per lane (bins up to 256) no two lanes of a warp ever share a counter, so equal
// keys cost no contention inside a warp either; the run's compare and branch per key cost more
// than the atomics they save unless runs are long.
struct NoRun {
  __device__ __forceinline__ void add(int b, unsigned* s, unsigned lanes, unsigned copy) {
    if (b >= 0) atomicAdd(&s[static_cast<unsigned>(b) * lanes + copy], 1u);
  }
  __device__ __forceinline__ void flush(unsigned*, unsigned, unsigned) {}
};
template <>
constexpr int kVectors<NoRun> = 4;

template <typename K, typename Counter>
__device__ __forceinline__ void add_vector(const uint4& q, unsigned bins, Counter& run, unsigned* s, unsigned lanes,
                                           unsigned copy) {
  const unsigned w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    if constexpr (sizeof(K) == 1) {
#pragma unroll
      for (int k = 0; k < 4; ++k) run.add(bin_of(static_cast<K>(w[j] >> (8 * k)), bins), s, lanes, copy);
    } else {
      run.add(bin_of(static_cast<K>(w[j]), bins), s, lanes, copy);
    }
  }
}

// The kernel of rungs 5 (Counter = Run) and 6 (Counter = NoRun).
template <typename K, typename Counter>
__global__ void __launch_bounds__(kBlock) vector_runs(const K* keys, std::size_t n, unsigned bins, unsigned lanes,
                                                      bool vec, unsigned* hist) {
  extern __shared__ unsigned s[];
  zero_copies(s, std::size_t{lanes} * bins);
  const unsigned copy = threadIdx.x & (lanes - 1);  // lanes is a power of two
  constexpr std::size_t kPer = 16 / sizeof(K);      // keys per 16-byte vector
  const std::size_t vectors = vec ? n / kPer : 0;
  const std::size_t me = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kBlock;
  const uint4* v = reinterpret_cast<const uint4*>(keys);
  Counter run;
  std::size_t j = me;
  constexpr int kV = kVectors<Counter>;
  for (; j + (kV - 1) * stride < vectors; j += kV * stride) {  // kV loads in flight
    uint4 q[kV];
#pragma unroll
    for (int u = 0; u < kV; ++u) q[u] = v[j + u * stride];
#pragma unroll
    for (int u = 0; u < kV; ++u) add_vector<K, Counter>(q[u], bins, run, s, lanes, copy);
  }
  for (; j < vectors; j += stride) add_vector<K, Counter>(v[j], bins, run, s, lanes, copy);
  for (std::size_t i = vectors * kPer + me; i < n; i += stride) run.add(bin_of(keys[i], bins), s, lanes, copy);
  run.flush(s, lanes, copy);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < bins; b += kBlock) {
    unsigned c = 0;
    for (unsigned k = 0; k < lanes; ++k) c += s[b * lanes + ((k + b) & (lanes - 1))];  // rotated: threads b, b+1 on other banks
    if (c) atomicAdd(&hist[b], c);
  }
}

// ---- 7. A cluster's distributed shared memory: the bins spread over the blocks of a cluster ----
// Block r of a cluster holds bins [r * slice, (r + 1) * slice); a key's counter may be in another
// block's shared memory, reached through cluster.map_shared_rank (Hopper, sm_90 and later).
template <typename K>
__global__ void __launch_bounds__(kBlock) cluster_dsm(const K* keys, std::size_t n, unsigned bins, int slice_shift,
                                                      unsigned* hist) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  extern __shared__ unsigned s[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned slice = 1u << slice_shift;
  for (unsigned b = threadIdx.x; b < slice; b += kBlock) s[b] = 0;
  cluster.sync();  // every block's slice is zero before any block adds to it
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kBlock;
  const auto add = [&](int b) {
    if (b < 0) return;
    unsigned* owner = cluster.map_shared_rank(s, static_cast<unsigned>(b) >> slice_shift);
    atomicAdd(owner + (static_cast<unsigned>(b) & (slice - 1)), 1u);
  };
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * kBlock + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {  // four keys in flight
    K k[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) k[u] = keys[i + u * stride];
#pragma unroll
    for (int u = 0; u < 4; ++u) add(bin_of(k[u], bins));
  }
  for (; i < n; i += stride) add(bin_of(keys[i], bins));
  cluster.sync();  // every block has added to every slice
  const unsigned first = cluster.block_rank() * slice;
  for (unsigned b = threadIdx.x; b < slice && first + b < bins; b += kBlock) {
    const unsigned c = s[b];
    if (c) atomicAdd(&hist[first + b], c);
  }
#else
  (void)keys, (void)n, (void)bins, (void)slice_shift, (void)hist;
#endif
}

// What a row needs to launch.
template <typename K>
struct Args {
  const K* keys;
  std::size_t n;
  unsigned bins;
  unsigned* hist;
  cudaStream_t stream;
};

using DeviceLimits = cudalab::LaunchLimits;

// Blocks of `kernel` with `smem` bytes of dynamic shared memory that fit on one SM (at least 1),
// from the per-device cache: no query inside a timed launch.
int blocks_per_sm(const void* kernel, std::size_t smem) {
  return std::max(cudalab::resident_blocks(kernel, kBlock, smem), 1);
}

// A grid that fills the GPU once (every block then walks the keys with a stride), but no more
// blocks than 16 keys per thread need: each block's merge costs `bins` reads.
unsigned grid_for(const DeviceLimits& d, int per_sm, std::size_t n) {
  const std::size_t full = static_cast<std::size_t>(d.sms) * static_cast<std::size_t>(per_sm);
  const std::size_t needed = std::max<std::size_t>(cudalab::ceil_div(n, std::size_t{kBlock} * 16), 1);
  return static_cast<unsigned>(std::min(full, needed));
}

// Copies of the bins per block for the per-warp variants: as many as fit the budget, up to one per warp.
int copies_for(unsigned bins) {
  const std::size_t fit = kCopiesBudget / (std::size_t{bins} * sizeof(unsigned));
  return static_cast<int>(std::clamp<std::size_t>(fit, 1, kWarps));
}

std::string too_big(unsigned bins, const DeviceLimits& d) {
  return fmt::format("ran global_atomics ({} bins x 4 B = {} KB > {} KB of shared memory per block)", bins,
                     std::size_t{bins} * 4 / 1024, d.smem_optin / 1024);
}

// The launchers: each fills in how it ran (Launch) and launches unless a.stream is the "plan
// only" marker (stream -1).
bool plan_only(cudaStream_t s) { return s == reinterpret_cast<cudaStream_t>(-1); }

template <typename K>
void launch_global(Launch& l, const Args<K>& a, const DeviceLimits& d) {
  l.blocks = grid_for(d, blocks_per_sm(reinterpret_cast<const void*>(global_atomics<K>), 0), a.n);
  if (!plan_only(a.stream)) global_atomics<K><<<l.blocks, kBlock, 0, a.stream>>>(a.keys, a.n, a.bins, a.hist);
}

// The copies of a privatized variant: `copies` copies of the bins in one block's shared memory
// for `kernel`. Fills in l (copies, shared memory, grid) and returns true when they fit; when
// they do not, runs global_atomics instead, says so in l.fallback, and returns false.
template <typename K>
bool fit_copies(Launch& l, const Args<K>& a, const DeviceLimits& d, int copies, const void* kernel) {
  const std::size_t smem = std::size_t{a.bins} * sizeof(unsigned) * static_cast<std::size_t>(copies);
  if (smem > d.smem_optin) {
    l.fallback = too_big(a.bins, d);
    launch_global(l, a, d);
    return false;
  }
  l.copies = copies;
  l.smem_bytes = smem;
  l.blocks = grid_for(d, blocks_per_sm(kernel, smem), a.n);
  return true;
}

template <typename K>
void launch_shared(Launch& l, const Args<K>& a, const DeviceLimits& d) {
  if (fit_copies(l, a, d, 1, reinterpret_cast<const void*>(shared_private<K>)) && !plan_only(a.stream))
    shared_private<K><<<l.blocks, kBlock, l.smem_bytes, a.stream>>>(a.keys, a.n, a.bins, a.hist);
}

template <typename K>
void launch_warp_private(Launch& l, const Args<K>& a, const DeviceLimits& d) {
  if (fit_copies(l, a, d, copies_for(a.bins), reinterpret_cast<const void*>(warp_private<K>)) && !plan_only(a.stream))
    warp_private<K><<<l.blocks, kBlock, l.smem_bytes, a.stream>>>(a.keys, a.n, a.bins, l.copies, a.hist);
}

template <typename K>
void launch_aggregated(Launch& l, const Args<K>& a, const DeviceLimits& d) {
  if (fit_copies(l, a, d, 1, reinterpret_cast<const void*>(warp_aggregated<K>)) && !plan_only(a.stream))
    warp_aggregated<K><<<l.blocks, kBlock, l.smem_bytes, a.stream>>>(a.keys, a.n, a.bins, a.hist);
}

// Copies interleaved by lane for vector_runs: the most (a power of two, up to one per lane)
// whose counters fit 32 KB.
int lanes_for(unsigned bins) {
  int lanes = 1;
  while (lanes < 32 && std::size_t{bins} * sizeof(unsigned) * static_cast<std::size_t>(2 * lanes) <= kLanesBudget) {
    lanes *= 2;
  }
  return lanes;
}

template <typename K, typename Counter>
void launch_vector_runs(Launch& l, const Args<K>& a, const DeviceLimits& d) {
  if (!fit_copies(l, a, d, lanes_for(a.bins), reinterpret_cast<const void*>(vector_runs<K, Counter>))) return;
  const bool vec = cudalab::is_aligned(a.keys, 16);
  if (!vec) l.fallback = "one key per load (keys not 16-byte aligned)";
  if (!plan_only(a.stream)) {
    vector_runs<K, Counter><<<l.blocks, kBlock, l.smem_bytes, a.stream>>>(a.keys, a.n, a.bins, static_cast<unsigned>(l.copies),
                                                                 vec, a.hist);
  }
}

template <typename K>
void launch_cluster(Launch& l, const Args<K>& a, const DeviceLimits& d) {
  if (!d.clusters) {
    l.fallback = "ran warp_aggregated (thread-block clusters need compute capability 9.0)";
    return launch_aggregated(l, a, d);
  }
  // the smallest power-of-two cluster whose blocks each hold a slice of at most kClusterSlice
  int shift = 0;
  while ((1u << shift) < a.bins) ++shift;  // slice of one block: 2^shift bins
  int cluster = 1;
  while ((std::size_t{1} << shift) * sizeof(unsigned) > kClusterSlice && cluster < kMaxCluster) {
    cluster *= 2;
    --shift;
  }
  const std::size_t smem = (std::size_t{1} << shift) * sizeof(unsigned);
  l.smem_bytes = smem;
  l.copies = 1;
  l.cluster = cluster;
  const void* kernel = reinterpret_cast<const void*>(cluster_dsm<K>);
  // clusters that fit on the GPU at once, queried once (common/device_cache): not in a timed launch
  const int clusters = cudalab::resident_clusters(kernel, cluster, kBlock, smem);
  const std::size_t wanted = cudalab::ceil_div<std::size_t>(cudalab::ceil_div(a.n, std::size_t{kBlock} * 16), cluster);
  const std::size_t groups = std::clamp<std::size_t>(wanted, 1, static_cast<std::size_t>(std::max(clusters, 1)));
  l.blocks = static_cast<unsigned>(groups) * static_cast<unsigned>(cluster);
  const cudalab::ClusterLaunch launch(l.blocks, kBlock, smem, a.stream, static_cast<unsigned>(cluster));
  if (!plan_only(a.stream))
    CUDA_CHECK(cudaLaunchKernelEx(&launch.config, cluster_dsm<K>, a.keys, a.n, a.bins, shift, a.hist));
}

template <typename K>
struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  void (*launch)(Launch&, const Args<K>&, const DeviceLimits&);
};

// The ladder, described once: adding a variant is its kernel and launcher above, its enum value
// in histogram.hpp and its row here.
template <typename K>
const std::vector<Row<K>>& ladder() {
  static const std::vector<Row<K>> rows{
      {Variant::kGlobalAtomics, "global_atomics", "one atomicAdd per key on the global bins (in L2)", launch_global<K>},
      {Variant::kSharedPrivate, "shared_private", "a copy of the bins per block in shared memory, added to the global "
                                                  "bins once", launch_shared<K>},
      {Variant::kWarpPrivate, "warp_private", "a copy per warp (as many as fit 64 KB): warps stop queueing at one "
                                              "counter", launch_warp_private<K>},
      {Variant::kWarpAggregated, "warp_aggregated", "lanes with the same bin found by __match_any_sync add once, "
                                                    "together", launch_aggregated<K>},
      {Variant::kVectorRuns, "vector_runs", "16-byte loads, a run of equal bins counted in a register, copies "
                                            "interleaved by lane (no bank conflicts)", launch_vector_runs<K, Run>},
      {Variant::kLaneCopies, "lane_copies", "vector_runs' loads and copies, one atomic per key and no run: no "
                                            "compare or branch per key", launch_vector_runs<K, NoRun>},
      {Variant::kClusterDsm, "cluster_dsm", "the bins spread over a cluster's shared memory (Hopper), for bins "
                                            "past one block", launch_cluster<K>},
  };
  return rows;
}

template <typename K>
Launch run(Variant v, const K* keys, std::size_t n, unsigned bins, unsigned* hist, cudaStream_t stream) {
  if (bins < kMinBins || bins > kMaxBins || bins > key_range<K>(kMaxBins)) {
    throw std::invalid_argument(fmt::format("histogram: {} bins (2 .. {} for these keys)", bins,
                                            std::min(kMaxBins, key_range<K>(kMaxBins))));
  }
  const Row<K>& row = cudalab::row_of(ladder<K>(), v, "histogram");
  Launch l;
  row.launch(l, {keys, n, bins, hist, stream}, cudalab::launch_limits());
  return l;
}

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder<unsigned char>())

template <typename K>
Launch plan(Variant v, const K* keys, std::size_t n, unsigned bins) {
  return run<K>(v, keys, n, bins, nullptr, reinterpret_cast<cudaStream_t>(-1));
}

template <typename K>
Launch count(Variant v, const K* keys, std::size_t n, unsigned bins, unsigned* hist, cudaStream_t stream) {
  if (plan_only(stream)) throw std::invalid_argument("histogram: not a stream");
  CUDA_CHECK(cudaMemsetAsync(hist, 0, std::size_t{bins} * sizeof(unsigned), stream));
  Launch l = run<K>(v, keys, n, bins, hist, stream);
  CUDA_CHECK_LAUNCH(variant_name(v).c_str());
  l.launches = 2;
  return l;
}

template Launch plan<unsigned char>(Variant, const unsigned char*, std::size_t, unsigned);
template Launch plan<unsigned>(Variant, const unsigned*, std::size_t, unsigned);
template Launch count<unsigned char>(Variant, const unsigned char*, std::size_t, unsigned, unsigned*, cudaStream_t);
template Launch count<unsigned>(Variant, const unsigned*, std::size_t, unsigned, unsigned*, cudaStream_t);

}  // namespace histogram
