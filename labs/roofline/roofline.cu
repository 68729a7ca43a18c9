// roofline: the dial, the compute roof, instruction throughput and RMSNorm.
#include "roofline.hpp"

#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/device_buffer.hpp"
#include "common/timer.hpp"
#include "common/vector_types.cuh"

namespace roofline {

// The same expf, compiled with --use_fast_math (fast_math.cu).
void launch_exp_fast_math(const float* in, float* out, std::size_t n, int reps);

std::vector<int> dial_ks() {
  std::vector<int> ks;
  for (int k = 1; k <= 2048; k *= 2) ks.push_back(k);
  return ks;
}

namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

// f_k(x) of the dial: k fused multiply-adds on one element.
template <typename T>
__device__ __forceinline__ T dial_value(T x, int k) {
  // STUDENT-BEGIN(roofline.dial): k FMAs per element, in independent chains
  // TASK: Return f_k(x). Start 8 chains at x + c (c = 0..7); use chains = min(k, 8) of them; each
  // does k / chains steps of v = fma(v, 0.999, 0.001); return the sum of the used chains, in order
  // (s = 0; s += chain 0; s += chain 1; ...). Independent chains let one thread issue FMAs back to
  // back; for k >= 8 keep the loop free of per-chain conditions (they cost an instruction each).
  // HINT: about 20 lines; a fixed-size array of 8 and `#pragma unroll` keep the chains in registers.
  // STUB: (void)k;
  // STUB: return x;
  T acc[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) acc[c] = x + static_cast<T>(c);
  T s = 0;
  if (k >= 8) {
#pragma unroll 4
    for (int r = 0; r < k / 8; ++r) {
#pragma unroll
      for (int c = 0; c < 8; ++c) acc[c] = fma(acc[c], static_cast<T>(0.999), static_cast<T>(0.001));
    }
#pragma unroll
    for (int c = 0; c < 8; ++c) s += acc[c];
  } else {  // k chains of one step each
#pragma unroll
    for (int c = 0; c < 8; ++c) {
      if (c < k) s += fma(acc[c], static_cast<T>(0.999), static_cast<T>(0.001));
    }
  }
  return s;
  // STUDENT-END(roofline.dial)
}

// Thread t transforms the 16-byte vector t (16 / sizeof(T) elements); the threads past the last
// whole vector take the remaining elements one each. One 4-byte load per thread cannot keep
// enough bytes in flight to fill HBM (the latency lab's Little's law); one 16-byte load can.
template <typename T>
__global__ void dial_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n, int k) {
  using Vec = cudalab::vec16_t<T>;  // 4 floats or 2 doubles
  constexpr std::size_t kPer = sizeof(Vec) / sizeof(T);
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t vectors = n / kPer;
  if (t < vectors) {
    Vec v = reinterpret_cast<const Vec*>(in)[t];
    T* e = reinterpret_cast<T*>(&v);
#pragma unroll
    for (std::size_t j = 0; j < kPer; ++j) e[j] = dial_value(e[j], k);
    reinterpret_cast<Vec*>(out)[t] = v;
  } else {
    const std::size_t i = vectors * kPer + (t - vectors);
    if (i < n) out[i] = dial_value(in[i], k);
  }
}

template <typename T>
__global__ void fma_peak_kernel(T* out, long long* cycles, int iters) {
  const long long start = clock64();
  T acc[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) acc[c] = static_cast<T>(threadIdx.x + c);
#pragma unroll 8  // 64 FMAs per loop branch: the counter and the branch take few issue slots
  for (int r = 0; r < iters; ++r) {
#pragma unroll
    for (int c = 0; c < 8; ++c) acc[c] = fma(acc[c], static_cast<T>(0.999), static_cast<T>(0.001));
  }
  T s = 0;
#pragma unroll
  for (int c = 0; c < 8; ++c) s += acc[c];
  out[static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;  // the block's SM cycles, start to end
}

// 8 independent 16 x 8 accumulator tiles per warp, each round one mma.sync per tile: a tile's
// next mma waits for its last (the dependent chain), the 8 tiles and the resident warps overlap.
// A = B = 1 (BF16 0x3F80 in both halves of every register): each mma adds 16 to every element.
__global__ void tensor_peak_kernel(float* out, long long* cycles, int iters) {
  const long long start = clock64();
  float acc[8][4] = {};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned one = 0x3F803F80u;
#pragma unroll 2
  for (int r = 0; r < iters; ++r) {
#pragma unroll
    for (int t = 0; t < 8; ++t) {
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %4, %4, %4}, {%4, %4}, "
                   "{%0, %1, %2, %3};\n"
                   : "+f"(acc[t][0]), "+f"(acc[t][1]), "+f"(acc[t][2]), "+f"(acc[t][3])
                   : "r"(one));
    }
  }
#else
  (void)iters;
#endif
  // Every element of every tile must be 16 x iters: out holds the smallest and the largest.
  float lo = acc[0][0], hi = acc[0][0];
#pragma unroll
  for (int t = 0; t < 8; ++t) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      lo = fminf(lo, acc[t][e]);
      hi = fmaxf(hi, acc[t][e]);
    }
  }
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  out[2 * i] = lo;
  out[2 * i + 1] = hi;
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;
}

template <bool Intrinsic>
__global__ void exp_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int reps) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0;
  for (int r = 0; r < reps; ++r) {
    const float v = in[i] + static_cast<float>(r) * (1.0f / 1024);
    s += Intrinsic ? __expf(v) : expf(v);
  }
  out[i] = s;
}

template <bool ShiftMask>
__global__ void div_kernel(const std::uint32_t* __restrict__ in, std::uint32_t* __restrict__ out, std::size_t n,
                           std::uint32_t d, std::uint32_t shift, int reps) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t acc = 0;
  for (int r = 0; r < reps; ++r) {
    const std::uint32_t v = in[i] + static_cast<std::uint32_t>(r);
    acc += ShiftMask ? (v >> shift) + (v & (d - 1)) : v / d + v % d;
  }
  out[i] = acc;
}

template <bool Fused>
__global__ void mul_add_kernel(const float* __restrict__ a, const float* __restrict__ b, const float* __restrict__ c,
                               float* __restrict__ out, std::size_t n, int reps) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = b[i];
  const float x = a[i], y = c[i];
#pragma unroll 16  // the loop's counter and branch would otherwise cost as much as the arithmetic
  for (int r = 0; r < reps; ++r) v = Fused ? fmaf(x, v, y) : __fadd_rn(__fmul_rn(x, v), y);
  out[i] = v;
}

// One row per block of min(cols / 8, 256) threads. Each thread issues up to four 16-byte loads of
// 8 BF16 values before it waits for any (a 1024-thread block with one load each leaves HBM idle
// while its warps synchronise); the raw bits stay in registers for the second pass.
constexpr int kRmsThreads = 256, kRmsLoads = 4;

__device__ __forceinline__ float sum_of_squares(const uint4& raw) {
  const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
  float sum = 0;
#pragma unroll
  for (int p = 0; p < 4; ++p) {
    const float2 v = __bfloat1622float2(pairs[p]);
    sum += v.x * v.x + v.y * v.y;
  }
  return sum;
}

// 1 / rms of the block's row, from the row's 16-byte loads in each thread's registers: a warp
// shuffle sum, then one warp sums the warps' partial sums.
__device__ float row_scale(const uint4 (&raw)[kRmsLoads], int vecs, int cols, float eps) {
  __shared__ float partial[kRmsThreads / 32];
  float sum = 0;
#pragma unroll
  for (int u = 0; u < kRmsLoads; ++u) {
    if (static_cast<int>(threadIdx.x) + u * static_cast<int>(blockDim.x) < vecs) sum += sum_of_squares(raw[u]);
  }
#pragma unroll
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
  if (lane == 0) partial[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    const int warps = static_cast<int>(blockDim.x / 32);
    sum = lane < warps ? partial[lane] : 0.0f;
#pragma unroll
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (lane == 0) partial[0] = sum;
  }
  __syncthreads();
  return rsqrtf(partial[0] / static_cast<float>(cols) + eps);
}

// kFused: one pass, the row held in registers between the sum and the scaling. The unfused pair:
// kScales reads x and writes one float per row; kApply reads x again and its row's scale.
enum RmsMode { kFused, kScales, kApply };

template <RmsMode Mode>
__global__ void rmsnorm_kernel(const uint4* __restrict__ x, const uint4* __restrict__ w, uint4* __restrict__ y,
                               float* __restrict__ scales, int cols, float eps) {
  const int vecs = cols / 8;
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * vecs;
  uint4 raw[kRmsLoads];
#pragma unroll
  for (int u = 0; u < kRmsLoads; ++u) {
    const int j = static_cast<int>(threadIdx.x) + u * static_cast<int>(blockDim.x);
    if (j < vecs) raw[u] = x[row + j];
  }
  const float scale = Mode == kApply ? scales[blockIdx.x] : row_scale(raw, vecs, cols, eps);
  if constexpr (Mode == kScales) {
    if (threadIdx.x == 0) scales[blockIdx.x] = scale;
  } else {
#pragma unroll
    for (int u = 0; u < kRmsLoads; ++u) {
      const int j = static_cast<int>(threadIdx.x) + u * static_cast<int>(blockDim.x);
      if (j >= vecs) continue;
      const uint4 wraw = w[j];
      const __nv_bfloat162* xp = reinterpret_cast<const __nv_bfloat162*>(&raw[u]);
      const __nv_bfloat162* wp = reinterpret_cast<const __nv_bfloat162*>(&wraw);
      uint4 result;
      __nv_bfloat162* rp = reinterpret_cast<__nv_bfloat162*>(&result);
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        const float2 v = __bfloat1622float2(xp[p]), g = __bfloat1622float2(wp[p]);
        rp[p] = __floats2bfloat162_rn(v.x * scale * g.x, v.y * scale * g.y);
      }
      y[row + j] = result;
    }
  }
}

// Times one launch with events after one untimed launch; returns ms.
template <typename Launch>
double time_ms(Launch&& launch) {
  launch();
  CUDA_CHECK_LAUNCH("warm-up");
  cudalab::EventTimer timer;
  timer.start();
  launch();
  timer.stop();
  CUDA_CHECK_LAUNCH("timed");
  return timer.elapsed_ms();
}

}  // namespace

template <typename T>
void launch_dial(const T* in, T* out, std::size_t n, int k) {
  if (k < 1) throw std::invalid_argument("launch_dial: k >= 1");
  if (n == 0) return;
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0 || reinterpret_cast<std::uintptr_t>(out) % 16 != 0) {
    throw std::invalid_argument("launch_dial: in and out must be 16-byte aligned (as cudaMalloc returns them)");
  }
  constexpr std::size_t per = 16 / sizeof(T);
  const std::size_t threads = n / per + n % per;
  dial_kernel<T><<<blocks_for(threads), kBlock>>>(in, out, n, k);
  CUDA_CHECK_LAUNCH("dial_kernel");
}
template void launch_dial<float>(const float*, float*, std::size_t, int);
template void launch_dial<double>(const double*, double*, std::size_t, int);

namespace {
// Blocks of `threads` for one full wave of `kernel`: as many as fit on every SM at once, so every
// block runs from start to end (0 when none fits).
template <typename Kernel>
int one_wave(Kernel kernel, int threads) {
  return cudalab::launch_limits().sms * cudalab::resident_blocks(kernel, threads);
}
// The SM clock while a kernel ran: its longest block's clock64 cycles over the event time.
double clock_hz_of(const std::vector<long long>& cycles, double ms) {
  return static_cast<double>(*std::max_element(cycles.begin(), cycles.end())) / (ms * 1e-3);
}
}  // namespace

template <typename T>
FmaPeak fma_peak(int threads, int iters) {
  if (threads < 1 || iters < 1) throw std::invalid_argument("fma_peak: threads, iters >= 1");
  int device = 0, max_threads = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, device));
  if (threads > max_threads) throw std::invalid_argument("fma_peak: more threads than a block may have");
  const int blocks = one_wave(fma_peak_kernel<T>, threads);
  if (blocks < 1) throw std::invalid_argument("fma_peak: a block of this size does not fit on an SM");
  cudalab::DeviceBuffer<T> out(static_cast<std::size_t>(blocks) * threads);
  cudalab::DeviceBuffer<long long> cycles(static_cast<std::size_t>(blocks));
  const double ms = time_ms([&] { fma_peak_kernel<T><<<blocks, threads>>>(out.data(), cycles.data(), iters); });
  FmaPeak peak;
  peak.flops = 2.0 * 8.0 * iters * static_cast<double>(blocks) * threads / (ms * 1e-3);
  peak.clock_hz = clock_hz_of(cycles.download(), ms);
  return peak;
}
template FmaPeak fma_peak<float>(int, int);
template FmaPeak fma_peak<double>(int, int);

TensorPeak tensor_peak_bf16(int threads, int iters) {
  if (threads < 32 || threads % 32 != 0 || iters < 1 || iters > (1 << 20)) {
    throw std::invalid_argument("tensor_peak_bf16: threads a multiple of 32, 1 <= iters <= 2^20");
  }
  TensorPeak peak;
  int device = 0, major = 0, max_threads = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, device));
  if (threads > max_threads) throw std::invalid_argument("tensor_peak_bf16: more threads than a block may have");
  if (major < 8) return peak;  // no BF16 mma before sm_80
  peak.available = true;
  const int blocks = one_wave(tensor_peak_kernel, threads);
  cudalab::DeviceBuffer<float> out(2 * static_cast<std::size_t>(blocks) * threads);
  cudalab::DeviceBuffer<long long> cycles(static_cast<std::size_t>(blocks));
  const double ms = time_ms([&] { tensor_peak_kernel<<<blocks, threads>>>(out.data(), cycles.data(), iters); });
  const auto v = out.download();
  const float want = 16.0f * static_cast<float>(iters);
  peak.correct = std::all_of(v.begin(), v.end(), [want](float x) { return x == want; });
  const double mmas = static_cast<double>(blocks) * (threads / 32) * 8.0 * iters;
  peak.flops = mmas * (2.0 * 16 * 8 * 16) / (ms * 1e-3);
  peak.clock_hz = clock_hz_of(cycles.download(), ms);
  return peak;
}

double exp_throughput(ExpKind kind, const std::vector<float>& in, int reps, std::vector<float>* out) {
  cudalab::DeviceBuffer<float> d_in(in), d_out(in.size());
  const std::size_t n = in.size();
  const double ms = time_ms([&] {
    switch (kind) {
      case ExpKind::kExpf: exp_kernel<false><<<blocks_for(n), kBlock>>>(d_in.data(), d_out.data(), n, reps); break;
      case ExpKind::kIntrinsic: exp_kernel<true><<<blocks_for(n), kBlock>>>(d_in.data(), d_out.data(), n, reps); break;
      case ExpKind::kFastMath: launch_exp_fast_math(d_in.data(), d_out.data(), n, reps); break;
    }
  });
  if (out != nullptr) *out = d_out.download();
  return static_cast<double>(n) * reps / (ms * 1e-3);
}

double div_throughput(DivKind kind, const std::vector<std::uint32_t>& in, std::uint32_t divisor, int reps,
                      std::vector<std::uint32_t>* out) {
  if (divisor == 0) throw std::invalid_argument("div_throughput: divisor 0");
  std::uint32_t shift = 0;
  while ((std::uint32_t{1} << shift) < divisor) ++shift;
  if (kind == DivKind::kShiftMask && (std::uint32_t{1} << shift) != divisor) {
    throw std::invalid_argument("div_throughput: shift and mask need a power of two");
  }
  cudalab::DeviceBuffer<std::uint32_t> d_in(in), d_out(in.size());
  const std::size_t n = in.size();
  const double ms = time_ms([&] {
    if (kind == DivKind::kShiftMask) {
      div_kernel<true><<<blocks_for(n), kBlock>>>(d_in.data(), d_out.data(), n, divisor, shift, reps);
    } else {
      div_kernel<false><<<blocks_for(n), kBlock>>>(d_in.data(), d_out.data(), n, divisor, shift, reps);
    }
  });
  if (out != nullptr) *out = d_out.download();
  return static_cast<double>(n) * reps / (ms * 1e-3);
}

double fma_vs_mul_add(bool fused, const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
                      int reps, std::vector<float>* out) {
  cudalab::DeviceBuffer<float> d_a(a), d_b(b), d_c(c), d_out(a.size());
  const std::size_t n = a.size();
  const double ms = time_ms([&] {
    if (fused) {
      mul_add_kernel<true><<<blocks_for(n), kBlock>>>(d_a.data(), d_b.data(), d_c.data(), d_out.data(), n, reps);
    } else {
      mul_add_kernel<false><<<blocks_for(n), kBlock>>>(d_a.data(), d_b.data(), d_c.data(), d_out.data(), n, reps);
    }
  });
  if (out != nullptr) *out = d_out.download();
  return static_cast<double>(n) * reps / (ms * 1e-3);
}

void launch_rmsnorm(const std::uint16_t* x, const std::uint16_t* w, std::uint16_t* y, int rows, int cols, float eps,
                    float* scales) {
  if (cols % 256 != 0 || cols < 256 || cols > 8192 || rows < 1) {  // whole warps of 8-value loads
    throw std::invalid_argument("launch_rmsnorm: cols a multiple of 256 in 256 .. 8192, rows >= 1");
  }
  const int threads = std::min(cols / 8, kRmsThreads);  // cols / 8 <= kRmsLoads * threads
  const auto* xv = reinterpret_cast<const uint4*>(x);
  const auto* wv = reinterpret_cast<const uint4*>(w);
  auto* yv = reinterpret_cast<uint4*>(y);
  if (scales == nullptr) {
    rmsnorm_kernel<kFused><<<static_cast<unsigned>(rows), static_cast<unsigned>(threads)>>>(xv, wv, yv, nullptr, cols, eps);
    CUDA_CHECK_LAUNCH("rmsnorm_kernel<fused>");
    return;
  }
  rmsnorm_kernel<kScales><<<static_cast<unsigned>(rows), static_cast<unsigned>(threads)>>>(xv, wv, yv, scales, cols, eps);
  CUDA_CHECK_LAUNCH("rmsnorm_kernel<scales>");
  rmsnorm_kernel<kApply><<<static_cast<unsigned>(rows), static_cast<unsigned>(threads)>>>(xv, wv, yv, scales, cols, eps);
  CUDA_CHECK_LAUNCH("rmsnorm_kernel<apply>");
}

}  // namespace roofline
