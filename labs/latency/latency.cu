// latency: the chase kernels (global, shared, constant), the FMA chain, the clock and the page.
#include "latency.hpp"

#include <cuda.h>  // the driver API's types only; the function is reached through the runtime

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/timer.hpp"
#include "reference.hpp"

namespace latency {

namespace {

struct DeviceResult {
  long long cycles;
  unsigned long long end;  // the last address (global) or byte offset (shared, constant)
};

// Writes, at item i of the buffer, the address of item next[i].
__global__ void link_kernel(unsigned char* base, const std::uint32_t* next, std::size_t items, std::size_t stride) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= items) return;
  *reinterpret_cast<unsigned char**>(base + i * stride) = base + static_cast<std::size_t>(next[i]) * stride;
}

// One thread follows the chain: every load's address is the value the previous load returned,
// so no two loads overlap and each hop costs one full latency.
template <bool L2Only>
__global__ void chase_kernel(const void* const* start, long long warmup, long long hops, DeviceResult* out) {
  // STUDENT-BEGIN(latency.chase): a dependent chain of loads, timed with clock64()
  // TASK: Starting at `start`, follow the chain: each item holds the address of the next.
  // Load it as an unsigned long long with __ldca (a global load cached in L1 and L2; a plain
  // *p through a generic pointer compiles to a generic load) or, with L2Only, with __ldcg
  // (L2 only). Take `warmup` steps untimed, read clock64(), take `hops` steps, read clock64()
  // again, and store the difference in out->cycles and the final address in out->end.
  // HINT: about 12 lines. Nothing else may run between the two clock reads.
  // STUB: (void)start; (void)warmup; (void)hops; (void)out;
  const void* const* p = start;
  const auto step = [](const void* const* q) {
    const auto* bits = reinterpret_cast<const unsigned long long*>(q);
    if constexpr (L2Only) {
      return reinterpret_cast<const void* const*>(__ldcg(bits));
    } else {
      return reinterpret_cast<const void* const*>(__ldca(bits));
    }
  };
  for (long long k = 0; k < warmup; ++k) p = step(p);
  const long long t0 = clock64();
  for (long long k = 0; k < hops; ++k) p = step(p);
  const long long t1 = clock64();
  out->cycles = t1 - t0;
  out->end = reinterpret_cast<unsigned long long>(p);
  // STUDENT-END(latency.chase)
}

// Items hold byte offsets, so that a hop is one load at [offset + the array's fixed address].
__shared__ std::uint32_t s_next[kSharedItems];
__constant__ std::uint32_t c_next[kConstantItems];

__global__ void chase_shared_kernel(const std::uint32_t* next_bytes, unsigned items, long long warmup, long long hops,
                                    DeviceResult* out) {
  for (unsigned i = threadIdx.x; i < items; i += blockDim.x) s_next[i] = next_bytes[i];
  __syncthreads();
  if (threadIdx.x != 0) return;
  const unsigned char* base = reinterpret_cast<const unsigned char*>(s_next);
  std::uint32_t off = 0;
  for (long long k = 0; k < warmup; ++k) off = *reinterpret_cast<const std::uint32_t*>(base + off);
  const long long t0 = clock64();
  for (long long k = 0; k < hops; ++k) off = *reinterpret_cast<const std::uint32_t*>(base + off);
  const long long t1 = clock64();
  out->cycles = t1 - t0;
  out->end = off;
}

__global__ void chase_constant_kernel(long long warmup, long long hops, DeviceResult* out) {
  const unsigned char* base = reinterpret_cast<const unsigned char*>(c_next);
  std::uint32_t off = 0;
  for (long long k = 0; k < warmup; ++k) off = *reinterpret_cast<const std::uint32_t*>(base + off);
  const long long t0 = clock64();
  for (long long k = 0; k < hops; ++k) off = *reinterpret_cast<const std::uint32_t*>(base + off);
  const long long t1 = clock64();
  out->cycles = t1 - t0;
  out->end = off;
}

__global__ void fma_chain_kernel(float x, float a, float b, long long rounds, long long* cycles, float* value) {
  const long long t0 = clock64();
  for (long long r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < 16; ++k) x = fmaf(x, a, b);
  }
  const long long t1 = clock64();
  *cycles = t1 - t0;
  *value = x;
}

// Every thread: 16 independent shared loads per round (reference.hpp's access pattern), XORed
// into one sum; thread 0 records the block's clock64() span, after a barrier on each side, and
// its SM.
__global__ void __launch_bounds__(1024) shared_throughput_kernel(long long rounds, std::uint32_t* sums, long long* spans) {
  __shared__ std::uint32_t words[kThroughputWords];
  for (unsigned i = threadIdx.x; i < kThroughputWords; i += blockDim.x) words[i] = shared_word(i);
  __syncthreads();
  const long long t0 = clock64();
  std::uint32_t acc = 0;
  for (long long r = 0; r < rounds; ++r) {
    const std::uint32_t* p = words + ((threadIdx.x + static_cast<unsigned>(r)) & 511u);
#pragma unroll
    for (int k = 0; k < 16; ++k) acc ^= p[32 * k];
  }
  __syncthreads();
  const long long t1 = clock64();
  sums[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = acc;
  if (threadIdx.x == 0) {
    unsigned sm = 0;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    spans[3 * blockIdx.x] = t0;
    spans[3 * blockIdx.x + 1] = t1;
    spans[3 * blockIdx.x + 2] = sm;
  }
}

__global__ void spin_kernel(long long cycles, long long* sink) {
  const long long t0 = clock64();
  long long now = t0;
  while (now - t0 < cycles) now = clock64();
  *sink = now - t0;
}

DeviceResult run_one(const std::function<void(DeviceResult*)>& launch) {
  cudalab::DeviceBuffer<DeviceResult> out(1);
  out.fill_bytes(0);
  launch(out.data());
  CUDA_CHECK_LAUNCH("chase");
  CUDA_CHECK(cudaDeviceSynchronize());
  return out.download().at(0);
}

std::vector<std::uint32_t> as_byte_offsets(const std::vector<std::uint32_t>& next) {
  std::vector<std::uint32_t> bytes(next.size());
  for (std::size_t i = 0; i < next.size(); ++i) bytes[i] = next[i] * static_cast<std::uint32_t>(sizeof(std::uint32_t));
  return bytes;
}

}  // namespace

GlobalChase::GlobalChase(std::size_t max_bytes) : buffer_(max_bytes) {}

void GlobalChase::link(const std::vector<std::uint32_t>& next, std::size_t stride) {
  if (stride < 8 || stride % 8 != 0) throw std::invalid_argument("GlobalChase::link: stride must be a multiple of 8");
  if (next.empty() || next.size() * stride > buffer_.size()) {
    throw std::invalid_argument("GlobalChase::link: the items do not fit the buffer");
  }
  cudalab::DeviceBuffer<std::uint32_t> d_next(next);
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>((next.size() + threads - 1) / threads);
  link_kernel<<<blocks, threads>>>(buffer_.data(), d_next.data(), next.size(), stride);
  CUDA_CHECK_LAUNCH("link_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
  stride_ = stride;
  items_ = next.size();
}

ChaseResult GlobalChase::run(std::uint64_t warmup, std::uint64_t hops, bool l2_only) {
  if (items_ == 0) throw std::logic_error("GlobalChase::run before link");
  const auto* start = reinterpret_cast<const void* const*>(buffer_.data());
  const auto w = static_cast<long long>(warmup), h = static_cast<long long>(hops);
  const DeviceResult r = run_one([&](DeviceResult* out) {
    if (l2_only) {
      chase_kernel<true><<<1, 1>>>(start, w, h, out);
    } else {
      chase_kernel<false><<<1, 1>>>(start, w, h, out);
    }
  });
  ChaseResult c;
  c.cycles_per_hop = hops ? static_cast<double>(r.cycles) / static_cast<double>(hops) : 0.0;
  const auto base = reinterpret_cast<unsigned long long>(buffer_.data());
  c.end_item = r.end >= base ? (r.end - base) / stride_ : ~std::uint64_t{0};
  return c;
}

ChaseResult chase_shared(const std::vector<std::uint32_t>& next, std::uint64_t warmup, std::uint64_t hops) {
  if (next.empty() || next.size() > kSharedItems) throw std::invalid_argument("chase_shared: 1 .. kSharedItems items");
  cudalab::DeviceBuffer<std::uint32_t> d_next(as_byte_offsets(next));
  const DeviceResult r = run_one([&](DeviceResult* out) {
    chase_shared_kernel<<<1, 256>>>(d_next.data(), static_cast<unsigned>(next.size()), static_cast<long long>(warmup),
                                    static_cast<long long>(hops), out);
  });
  return ChaseResult{hops ? static_cast<double>(r.cycles) / static_cast<double>(hops) : 0.0, r.end / sizeof(std::uint32_t)};
}

ChaseResult chase_constant(const std::vector<std::uint32_t>& next, std::uint64_t warmup, std::uint64_t hops) {
  if (next.empty() || next.size() > kConstantItems) throw std::invalid_argument("chase_constant: 1 .. kConstantItems items");
  const std::vector<std::uint32_t> bytes = as_byte_offsets(next);
  CUDA_CHECK(cudaMemcpyToSymbol(c_next, bytes.data(), bytes.size() * sizeof(std::uint32_t)));
  const DeviceResult r = run_one([&](DeviceResult* out) {
    chase_constant_kernel<<<1, 1>>>(static_cast<long long>(warmup), static_cast<long long>(hops), out);
  });
  return ChaseResult{hops ? static_cast<double>(r.cycles) / static_cast<double>(hops) : 0.0, r.end / sizeof(std::uint32_t)};
}

ChainResult fma_chain_gpu(float x, float a, float b, long long rounds) {
  cudalab::DeviceBuffer<long long> cycles(1);
  cudalab::DeviceBuffer<float> value(1);
  fma_chain_kernel<<<1, 1>>>(x, a, b, rounds, cycles.data(), value.data());
  CUDA_CHECK_LAUNCH("fma_chain_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
  const long long c = cycles.download().at(0);
  return ChainResult{rounds > 0 ? static_cast<double>(c) / (16.0 * static_cast<double>(rounds)) : 0.0,
                     value.download().at(0)};
}

SharedThroughput shared_load_throughput(long long rounds) {
  if (rounds < 1) throw std::invalid_argument("shared_load_throughput: rounds >= 1");
  SharedThroughput t;
  t.rounds = rounds;
  const int sms = cudalab::launch_limits().sms;
  t.blocks_per_sm = cudalab::resident_blocks(shared_throughput_kernel, t.threads);
  if (t.blocks_per_sm < 1) throw std::runtime_error("shared_load_throughput: a 1024-thread block does not fit on an SM");
  t.blocks = sms * t.blocks_per_sm;  // one wave: every block resident from the start
  cudalab::DeviceBuffer<std::uint32_t> sums(static_cast<std::size_t>(t.blocks) * t.threads);
  cudalab::DeviceBuffer<long long> spans(static_cast<std::size_t>(t.blocks) * 3);
  shared_throughput_kernel<<<t.blocks, t.threads>>>(std::min(rounds, 2LL), sums.data(), spans.data());  // warm-up
  CUDA_CHECK_LAUNCH("shared_throughput_kernel");
  sums.fill_bytes(0);
  shared_throughput_kernel<<<t.blocks, t.threads>>>(rounds, sums.data(), spans.data());
  CUDA_CHECK_LAUNCH("shared_throughput_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<std::uint32_t> got = sums.download();
  std::vector<std::uint32_t> want(static_cast<std::size_t>(t.threads));
  for (int i = 0; i < t.threads; ++i) want[static_cast<std::size_t>(i)] = shared_throughput_sum(static_cast<unsigned>(i), rounds);
  t.correct = true;
  for (std::size_t i = 0; i < got.size() && t.correct; ++i) t.correct = got[i] == want[i % want.size()];
  t.loads_per_sm_clock = loads_per_sm_clock(spans.download(), 16.0 * static_cast<double>(rounds) * t.threads);
  return t;
}

double measure_clock_ghz() {
  constexpr long long kCycles = 200'000'000;  // about 0.1 s at 2 GHz
  cudalab::DeviceBuffer<long long> sink(1);
  spin_kernel<<<1, 1>>>(kCycles / 100, sink.data());  // wake the clocks up
  CUDA_CHECK_LAUNCH("spin_kernel");
  cudalab::EventTimer timer;
  timer.start();
  spin_kernel<<<1, 1>>>(kCycles, sink.data());
  CUDA_CHECK_LAUNCH("spin_kernel");
  timer.stop();
  const double ms = timer.elapsed_ms();
  return ms > 0 ? static_cast<double>(sink.download().at(0)) / (ms * 1e6) : 0.0;
}

std::size_t device_page_bytes(int device, std::string* how) {
  using Granularity = CUresult (*)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion("cuMemGetAllocationGranularity", &fn, 10020, cudaEnableDefault, &found) ==
          cudaSuccess &&
      found == cudaDriverEntryPointSuccess && fn != nullptr) {
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    size_t bytes = 0;
    if (reinterpret_cast<Granularity>(fn)(&bytes, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) == CUDA_SUCCESS && bytes > 0) {
      if (how != nullptr) *how = "cuMemGetAllocationGranularity";
      return bytes;
    }
  }
  (void)cudaGetLastError();
  if (how != nullptr) *how = "assumed: the driver did not say";
  return std::size_t{2} << 20;
}

}  // namespace latency
