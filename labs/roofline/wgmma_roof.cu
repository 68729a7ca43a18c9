// The BF16 Tensor Core roof through Hopper's wgmma (built for sm_90a alone: cmake's
// cudalab_sm90a_kernels). mma.sync, the other roof, is a warp's instruction that Hopper runs at
// a fraction of its Tensor Cores' rate; wgmma is the warpgroup's, reading its operands from
// shared memory, and is the path that reaches the dense BF16 figure.
#include "roofline.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/device_buffer.hpp"
#include "common/hopper.cuh"
#include "common/timer.hpp"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "wgmma_roof.cu uses sm_90a instructions: build it for sm_90a only (cudalab_sm90a_kernels)"
#endif

namespace roofline {
namespace {

namespace hw = cudalab::hopper;

constexpr int kWarpgroups = 2, kThreads = 128 * kWarpgroups, kChain = 4;

// Two warpgroups a block, one block an SM: each warpgroup issues groups of kChain
// wgmma.m64n256k16 on its own 64 x 256 accumulator (128 registers a thread), keeping one group
// in flight while it issues the next, so the SM's four Tensor Cores always have work. A (64 x 64)
// and B (256 x 64, both K-major, 128-byte swizzled) sit in shared memory, all ones: each wgmma
// adds 16 to every accumulator, which ends at 16 x kChain x iters exactly.
__global__ void __launch_bounds__(kThreads, 1) wgmma_peak_kernel(float* out, long long* cycles, int iters) {
  __shared__ __align__(1024) unsigned char a[64 * 128];
  __shared__ __align__(1024) unsigned char b[256 * 128];
  for (int i = static_cast<int>(threadIdx.x); i < (64 + 256) * 128 / 4; i += kThreads) {
    auto* p = i < 64 * 128 / 4 ? reinterpret_cast<std::uint32_t*>(a) + i : reinterpret_cast<std::uint32_t*>(b) + (i - 64 * 128 / 4);
    *p = 0x3F803F80u;  // two BF16 ones
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // ordinary stores, read by the Tensor Cores
  __syncthreads();
  const long long start = clock64();
  float acc[128] = {};
  for (int r = 0; r < iters; ++r) {
    hw::wgmma_fence();
#pragma unroll
    for (int s = 0; s < kChain; ++s) {
      hw::wgmma_m64n256k16_bf16<0>(acc, hw::desc_k_major(a + 32 * s), hw::desc_k_major(b + 32 * s));
    }
    hw::wgmma_commit();
    hw::wgmma_wait<1>();
  }
  hw::wgmma_wait<0>();
  float lo = acc[0], hi = acc[0];
#pragma unroll
  for (int e = 0; e < 128; ++e) {
    lo = fminf(lo, acc[e]);
    hi = fmaxf(hi, acc[e]);
  }
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  out[2 * i] = lo;
  out[2 * i + 1] = hi;
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;
}

}  // namespace

TensorPeak tensor_peak_bf16_wgmma(int iters) {
  if (iters < 1 || iters > (1 << 18)) throw std::invalid_argument("tensor_peak_bf16_wgmma: 1 <= iters <= 2^18");
  TensorPeak peak;
  // sm_90a machine code runs on compute capability 9.0 only, and only if this build carries it
  if (!cudalab::sm90a_unavailable(wgmma_peak_kernel).empty()) return peak;
  const int sms = cudalab::launch_limits().sms;
  peak.available = true;
  const int blocks = sms;
  cudalab::DeviceBuffer<float> out(2 * static_cast<std::size_t>(blocks) * kThreads);
  cudalab::DeviceBuffer<long long> cycles(static_cast<std::size_t>(blocks));
  const auto launch = [&] { wgmma_peak_kernel<<<blocks, kThreads>>>(out.data(), cycles.data(), iters); };
  launch();
  CUDA_CHECK_LAUNCH("wgmma_peak_kernel (warm-up)");
  cudalab::EventTimer timer;
  timer.start();
  launch();
  timer.stop();
  CUDA_CHECK_LAUNCH("wgmma_peak_kernel");
  const double ms = timer.elapsed_ms();
  const auto v = out.download();
  const float want = 16.0f * kChain * static_cast<float>(iters);
  peak.correct = std::all_of(v.begin(), v.end(), [want](float x) { return x == want; });
  const double wgmmas = static_cast<double>(blocks) * kWarpgroups * kChain * iters;
  peak.flops = wgmmas * (2.0 * 64 * 256 * 16) / (ms * 1e-3);
  const auto c = cycles.download();
  peak.clock_hz = static_cast<double>(*std::max_element(c.begin(), c.end())) / (ms * 1e-3);
  return peak;
}

}  // namespace roofline
