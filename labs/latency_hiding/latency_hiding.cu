// latency_hiding: the kernels of the four experiments and their launchers.
#include "latency_hiding.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/dispatch.hpp"
#include "common/math.hpp"
#include "reference.hpp"

namespace latency_hiding {
namespace {

int sm_count() { return cudalab::launch_limits().sms; }
int max_warps_per_sm() { return cudalab::launch_limits().max_warps_per_sm; }
// Throws unless `blocks_per_sm` blocks of `threads` of `kernel` fit on an SM at once (the
// per-device cache: no query inside a timed launch).
template <typename Kernel>
void require_resident(Kernel kernel, int threads, int blocks_per_sm, const char* what) {
  const int fit = cudalab::resident_blocks(kernel, threads);
  if (fit < blocks_per_sm) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(blocks_per_sm) + " blocks of " +
                                std::to_string(threads) + " threads do not fit on an SM at once (" + std::to_string(fit) +
                                " do)");
  }
}
// warps per SM as blocks: up to `block_warps` warps in one block, more in blocks of that many.
struct Shape {
  int threads, blocks_per_sm;
};
Shape shape_for(int warps_per_sm, const char* what, int block_warps = 32) {
  if (warps_per_sm < 1 || (warps_per_sm > block_warps && warps_per_sm % block_warps != 0)) {
    throw std::invalid_argument(std::string(what) + ": warps per SM must be 1 .. " + std::to_string(block_warps) +
                                " or a multiple of " + std::to_string(block_warps));
  }
  return warps_per_sm <= block_warps ? Shape{32 * warps_per_sm, 1} : Shape{32 * block_warps, warps_per_sm / block_warps};
}
double longest_hz(const std::vector<long long>& cycles, double ms) {
  return static_cast<double>(*std::max_element(cycles.begin(), cycles.end())) / (ms * 1e-3);
}

// ---- 1. dependent FMA chains -------------------------------------------------------------------
// Chain c: x = fmaf(x, a, b), iters times from x = c. Chains independent of each other: the
// scheduler may issue from another chain while one waits for its result.
template <int Chains>
__global__ void fma_chains_kernel(float a, float b, int iters, float* __restrict__ out, long long* __restrict__ cycles) {
  const long long start = clock64();
  float x[Chains];
#pragma unroll
  for (int c = 0; c < Chains; ++c) x[c] = static_cast<float>(c);
#pragma unroll 4
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int c = 0; c < Chains; ++c) x[c] = fmaf(x[c], a, b);
  }
  float s = 0;
#pragma unroll
  for (int c = 0; c < Chains; ++c) s += x[c];
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;
}

// The chains per thread the FMA kernel is built for.
using FmaChains = cudalab::int_list<1, 2, 4, 8>;

template <int Chains>
FmaPoint fma_point_of(cudalab::Benchmarker& bench, int warps_per_sm, int iters) {
  const Shape s = shape_for(warps_per_sm, "fma_point");
  require_resident(fma_chains_kernel<Chains>, s.threads, s.blocks_per_sm, "fma_point");
  const int blocks = sm_count() * s.blocks_per_sm;
  const std::size_t threads = static_cast<std::size_t>(blocks) * s.threads;
  cudalab::DeviceBuffer<float> out(threads);
  cudalab::DeviceBuffer<long long> cycles(static_cast<std::size_t>(blocks));
  const cudalab::Timing t = bench.run([&] {
    fma_chains_kernel<Chains><<<blocks, s.threads>>>(1.0f, 1.0f, iters, out.data(), cycles.data());
  }, nullptr, [&] { out.fill_bytes(0xFF); });
  CUDA_CHECK_LAUNCH("fma_chains_kernel");
  FmaPoint p;
  p.warps_per_sm = warps_per_sm;
  p.chains = Chains;
  p.blocks_per_sm = s.blocks_per_sm;
  p.threads_per_block = s.threads;
  p.ms = t.median_ms;
  p.flops = 2.0 * Chains * static_cast<double>(iters) * static_cast<double>(threads) / (t.median_ms * 1e-3);
  p.clock_hz = longest_hz(cycles.download(), t.samples_ms.back());
  const float want = fma_chains_expected(Chains, iters);
  const auto v = out.download();
  p.correct = std::all_of(v.begin(), v.end(), [want](float x) { return x == want; });
  return p;
}

// ---- 2. reads with a chosen number of bytes in flight ------------------------------------------
__device__ __forceinline__ std::uint32_t sum_of(unsigned v) { return v; }
__device__ __forceinline__ std::uint32_t sum_of(uint2 v) { return v.x + v.y; }
__device__ __forceinline__ std::uint32_t sum_of(uint4 v) { return v.x + v.y + v.z + v.w; }

// Thread t of T reads vectors t, t + T, ... in groups of Loads: all Loads loads of a group are
// issued before the first is used, so each thread has Loads requests in flight. That needs a
// register for every loaded word (64 for 16 loads of 16 bytes): blocks of at most 4 warps
// (kReadBlockWarps) let ptxas use them; without the bound it keeps to 32 registers and adds
// each value before it issues the later loads (fewer bytes in flight than the table says).
// Four-warp blocks also let the sweep run any multiple of 4 warps per SM (read_warp_levels).
constexpr int kReadBlockWarps = 4;
template <int Loads, typename V>
__global__ void __launch_bounds__(32 * kReadBlockWarps, 1) read_kernel(const V* __restrict__ in, std::size_t n, std::uint32_t* __restrict__ partial) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::uint32_t s = 0;
  std::size_t base = t;
  // Whole groups without a bounds check between the loads: a check per load splits them into
  // basic blocks, and ptxas then adds each value before the next load is issued (32 registers
  // for 16 loads of 16 bytes, about one load in flight).
  for (; base + (Loads - 1) * threads < n; base += threads * Loads) {
    V v[Loads];
#pragma unroll
    for (int k = 0; k < Loads; ++k) v[k] = in[base + k * threads];
#pragma unroll
    for (int k = 0; k < Loads; ++k) s += sum_of(v[k]);
  }
  for (; base < n; base += threads) s += sum_of(in[base]);  // the last, partial group
  partial[t] = s;
}

template <int Loads, typename V>
LoadPoint load_point_of(cudalab::Benchmarker& bench, const ReadSet& set, int warps_per_sm) {
  const Shape s = shape_for(warps_per_sm, "load_point", kReadBlockWarps);
  require_resident(read_kernel<Loads, V>, s.threads, s.blocks_per_sm, "load_point");
  const int blocks = sm_count() * s.blocks_per_sm;
  const std::size_t threads = static_cast<std::size_t>(blocks) * s.threads;
  cudalab::DeviceBuffer<std::uint32_t> partial(threads);
  const auto* in = reinterpret_cast<const V*>(set.data());
  const std::size_t n = set.words() * sizeof(std::uint32_t) / sizeof(V);
  const cudalab::Timing t = bench.run([&] { read_kernel<Loads, V><<<blocks, s.threads>>>(in, n, partial.data()); }, nullptr,
                                      [&] { partial.fill_bytes(0xFF); });
  CUDA_CHECK_LAUNCH("read_kernel");
  LoadPoint p;
  p.warps_per_sm = warps_per_sm;
  p.loads = Loads;
  p.width = static_cast<int>(sizeof(V));
  p.bytes_in_flight_per_sm = bytes_in_flight_per_sm(warps_per_sm, Loads, p.width);
  p.ms = t.median_ms;
  p.gbps = static_cast<double>(set.words()) * sizeof(std::uint32_t) / (t.median_ms * 1e-3) / 1e9;
  const auto v = partial.download();
  p.correct = std::accumulate(v.begin(), v.end(), std::uint32_t{0}) == set.expected_sum();
  return p;
}

template <int Loads, typename V>
bool load_point_fits_of(int warps_per_sm) {
  const Shape s = shape_for(warps_per_sm, "load_point", kReadBlockWarps);
  return cudalab::resident_blocks(read_kernel<Loads, V>, s.threads) >= s.blocks_per_sm;
}
// What the read kernel is built for: loads per thread, and the load's type by its width in bytes.
using ReadLoads = cudalab::int_list<1, 2, 4, 8, 16>;
using ReadWidths = cudalab::type_list<unsigned, uint2, uint4>;
// f(loads as std::integral_constant, type_tag<V>) for the read kernel built for them.
template <typename F>
decltype(auto) with_read_kernel(int loads, int width, F&& f) {
  return cudalab::dispatch_by_size(ReadWidths{}, static_cast<std::size_t>(width), "load_point: the load width", [&](auto v) {
    return cudalab::dispatch(ReadLoads{}, loads, "load_point: loads per thread", [&](auto l) { return f(l, v); });
  });
}

__global__ void fill_kernel(std::uint32_t* w, std::size_t n) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    w[i] = static_cast<std::uint32_t>(i) * 2654435761u + 12345u;  // reference.hpp's input_word
  }
}

// ---- 3. a copy with a chosen number of loads in flight ------------------------------------------
// The student task: a copy that keeps Loads loads of V (a float or a float4) in flight per
// thread, so that a grid of few warps still has the bytes in flight the DRAM needs.
template <int Loads, bool Vec>
__global__ void copy_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  using V = typename std::conditional<Vec, float4, float>::type;
  const auto* src = reinterpret_cast<const V*>(in);
  auto* dst = reinterpret_cast<V*>(out);
  const std::size_t count = n / (sizeof(V) / sizeof(float));
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  // STUDENT-BEGIN(latency_hiding.copy): Loads loads in flight per thread
  // TASK: Copy the `count` elements of src (each a V) into dst. Thread t of the `threads` in the
  // grid takes the elements t, t + threads, t + 2 * threads, ... in groups of Loads: for the group
  // starting at base (base = t, then t + threads * Loads, ...), first load all Loads elements
  // base + k * threads (k < Loads, only those below count) into a register array V v[Loads], and
  // only then store them to dst at the same indices. All loads of a group are then in flight at
  // once. Use #pragma unroll on both inner loops so that v stays in registers.
  // HINT: about 14 lines. Loading and storing one element at a time is correct but keeps one
  // load in flight: the 25 % occupancy rows then fall far below the copy ceiling.
  // STUB: (void)src; (void)dst; (void)count; (void)t; (void)threads;
  for (std::size_t base = t; base < count; base += threads * Loads) {
    V v[Loads];
#pragma unroll
    for (int k = 0; k < Loads; ++k) {
      const std::size_t i = base + k * threads;
      if (i < count) v[k] = src[i];
    }
#pragma unroll
    for (int k = 0; k < Loads; ++k) {
      const std::size_t i = base + k * threads;
      if (i < count) dst[i] = v[k];
    }
  }
  // STUDENT-END(latency_hiding.copy)
}

// The 16-byte loads in flight per thread the vector copy is built for.
using CopyLoads = cudalab::int_list<1, 4, 16>;

template <int Loads, bool Vec>
void launch_copy_of(const float* in, float* out, std::size_t n, int threads, int blocks_per_sm) {
  require_resident(copy_kernel<Loads, Vec>, threads, blocks_per_sm, "launch_copy");
  copy_kernel<Loads, Vec><<<sm_count() * blocks_per_sm, threads>>>(in, out, n);
  CUDA_CHECK_LAUNCH("copy_kernel");
}

// ---- 4. a barrier after every round --------------------------------------------------------------
template <bool Barrier>
__global__ void __launch_bounds__(32 * kBarrierWarps) rounds_kernel(int rounds, int slow, int fast, float a, float b,
                                                                    float* __restrict__ out, long long* __restrict__ cycles) {
  const int warp = static_cast<int>(threadIdx.x) / 32;
  float x = static_cast<float>(threadIdx.x);
  __syncthreads();
  const long long start = clock64();
  for (int r = 0; r < rounds; ++r) {
    const int steps = warp == r % kBarrierWarps ? slow : fast;
    for (int i = 0; i < steps; ++i) x = fmaf(x, a, b);
    if constexpr (Barrier) __syncthreads();
  }
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = x;
}

// ---- 5. the bottleneck walk's kernel ----------------------------------------------------------
template <bool Strided, bool Conflicted, bool Divergent>
__global__ void __launch_bounds__(kMysteryThreads) mystery_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                                  std::size_t n, int work) {
  __shared__ float tile[32][Conflicted ? 32 : 33];
  const std::size_t g = static_cast<std::size_t>(blockIdx.x) * kMysteryThreads + threadIdx.x;
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::size_t src = Strided ? (g % (n / 32)) * 32 + g / (n / 32) : g;
  tile[warp][lane] = in[src];
  __syncthreads();
  float x = tile[lane][warp];  // down a column: 32 lanes, 32 rows
  const bool first = Divergent ? (lane % 2 == 0) : (warp % 2 == 0);
  if (first) {
    for (int i = 0; i < work; ++i) x = fmaf(x, 0.5f, 1.0f);
  } else {
    for (int i = 0; i < work; ++i) x = fmaf(x, 0.25f, 2.0f);
  }
  out[g] = x;
}

template <bool S, bool C, bool D>
const void* mystery_of() {
  return reinterpret_cast<const void*>(mystery_kernel<S, C, D>);
}
const void* mystery_function(Flaws f) {
  const int k = (f.strided ? 4 : 0) + (f.conflicted ? 2 : 0) + (f.divergent ? 1 : 0);
  static const void* const table[8] = {mystery_of<false, false, false>(), mystery_of<false, false, true>(),
                                       mystery_of<false, true, false>(),  mystery_of<false, true, true>(),
                                       mystery_of<true, false, false>(),  mystery_of<true, false, true>(),
                                       mystery_of<true, true, false>(),   mystery_of<true, true, true>()};
  return table[k];
}

}  // namespace

FmaPoint fma_point(cudalab::Benchmarker& bench, int warps_per_sm, int chains, int iters) {
  if (iters < 1) throw std::invalid_argument("fma_point: iters >= 1");
  if (cudalab::contains(FmaChains{}, chains)) (void)fma_chains_expected(chains, iters);  // exact, or throws
  return cudalab::dispatch(FmaChains{}, chains, "fma_point: chains per thread", [&](auto c) {
    return fma_point_of<decltype(c)::value>(bench, warps_per_sm, iters);
  });
}

ReadSet::ReadSet(std::size_t bytes) : data_(bytes / sizeof(std::uint32_t)) {
  if (bytes == 0 || bytes % 16 != 0) throw std::invalid_argument("ReadSet: bytes must be a positive multiple of 16");
  fill_kernel<<<1024, 256>>>(data_.data(), data_.size());
  CUDA_CHECK_LAUNCH("fill_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
  sum_ = input_sum(data_.size());
}

LoadPoint load_point(cudalab::Benchmarker& bench, const ReadSet& set, int warps_per_sm, int loads, int width) {
  return with_read_kernel(loads, width, [&](auto l, auto v) {
    return load_point_of<decltype(l)::value, typename decltype(v)::type>(bench, set, warps_per_sm);
  });
}

bool load_point_fits(int warps_per_sm, int loads, int width) {
  return with_read_kernel(loads, width, [&](auto l, auto v) {
    return load_point_fits_of<decltype(l)::value, typename decltype(v)::type>(warps_per_sm);
  });
}

void launch_copy(const float* in, float* out, std::size_t n, int threads, int blocks_per_sm, int loads, bool vector) {
  if (n == 0 || n % 4 != 0) throw std::invalid_argument("launch_copy: n must be a positive multiple of 4");
  if (threads < 32 || threads > 1024 || threads % 32 != 0) throw std::invalid_argument("launch_copy: threads 32 .. 1024, whole warps");
  if (blocks_per_sm < 1) throw std::invalid_argument("launch_copy: blocks per SM >= 1");
  if (!vector) {
    if (loads != 1) throw std::invalid_argument("launch_copy: the 4-byte copy keeps one load in flight");
    return launch_copy_of<1, false>(in, out, n, threads, blocks_per_sm);
  }
  cudalab::dispatch(CopyLoads{}, loads, "launch_copy: loads per thread", [&](auto l) {
    launch_copy_of<decltype(l)::value, true>(in, out, n, threads, blocks_per_sm);
  });
}

double copy_occupancy(int threads, int blocks_per_sm) {
  return static_cast<double>(blocks_per_sm) * threads / 32 / max_warps_per_sm();
}

BarrierPoint barrier_point(int blocks_per_sm, bool barrier, int rounds, int slow, int fast) {
  if (rounds < kBarrierWarps || rounds % kBarrierWarps != 0) throw std::invalid_argument("barrier_point: rounds a multiple of 8");
  if (slow < 1 || fast < 1 || blocks_per_sm < 1) throw std::invalid_argument("barrier_point: slow, fast, blocks per SM >= 1");
  constexpr int threads = 32 * kBarrierWarps;
  if (barrier) {
    require_resident(rounds_kernel<true>, threads, blocks_per_sm, "barrier_point");
  } else {
    require_resident(rounds_kernel<false>, threads, blocks_per_sm, "barrier_point");
  }
  const int blocks = sm_count() * blocks_per_sm;
  cudalab::DeviceBuffer<float> out(static_cast<std::size_t>(blocks) * threads);
  cudalab::DeviceBuffer<long long> cycles(static_cast<std::size_t>(blocks));
  const auto launch = [&] {
    if (barrier) {
      rounds_kernel<true><<<blocks, threads>>>(rounds, slow, fast, 1.0f, 1.0f, out.data(), cycles.data());
    } else {
      rounds_kernel<false><<<blocks, threads>>>(rounds, slow, fast, 1.0f, 1.0f, out.data(), cycles.data());
    }
  };
  launch();  // warm-up
  CUDA_CHECK_LAUNCH("rounds_kernel");
  out.fill_bytes(0xFF);
  launch();
  CUDA_CHECK_LAUNCH("rounds_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto c = cycles.download();
  const auto v = out.download();
  BarrierPoint p;
  p.blocks_per_sm = blocks_per_sm;
  p.rounds = rounds;
  p.barrier = barrier;
  p.cycles_per_round = static_cast<double>(*std::max_element(c.begin(), c.end())) / rounds;
  p.sm_cycles_per_block_round = p.cycles_per_round / blocks_per_sm;
  p.correct = true;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != rounds_expected(static_cast<int>(i % threads), rounds, slow, fast)) p.correct = false;
  }
  return p;
}

void launch_mystery(Flaws f, const float* in, float* out, std::size_t n, int work) {
  if (n == 0 || n % kMysteryThreads != 0) throw std::invalid_argument("launch_mystery: n must be a positive multiple of 1024");
  if (work < 0 || work > 4096) throw std::invalid_argument("launch_mystery: work 0 .. 4096");
  const auto blocks = static_cast<unsigned>(n / kMysteryThreads);
  void* args[] = {&in, &out, &n, &work};
  CUDA_CHECK(cudaLaunchKernel(mystery_function(f), dim3(blocks), dim3(kMysteryThreads), args, 0, nullptr));
  CUDA_CHECK_LAUNCH("mystery_kernel");
}

KernelFacts mystery_facts(Flaws f) {
  cudaFuncAttributes attr{};
  CUDA_CHECK(cudaFuncGetAttributes(&attr, mystery_function(f)));
  KernelFacts k;
  k.registers = attr.numRegs;
  k.shared_bytes = static_cast<int>(attr.sharedSizeBytes);
  k.blocks_per_sm = cudalab::resident_blocks(mystery_function(f), kMysteryThreads);
  k.occupancy = static_cast<double>(k.blocks_per_sm) * kMysteryThreads / 32 / max_warps_per_sm();
  return k;
}

}  // namespace latency_hiding
