// attention: softmax, the fused prefill and the decode, each rung saying what it changes over the
// one before it.
#include "attention.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/cp_async.cuh"
#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/dispatch.hpp"
#include "common/math.hpp"
#include "common/mma.cuh"
#include "common/occupancy_calc.hpp"
#include "common/vector_types.cuh"
#include "attention_wgmma.hpp"
#include "inputs.hpp"
#include "online_softmax.cuh"

namespace attention {
namespace {

using std::size_t;
using std::uint16_t;

constexpr unsigned kFull = 0xffffffffu;
constexpr float kLog2e = 1.4426950408889634f;


// ---- element access -----------------------------------------------------------------------------

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(uint16_t x) { return __uint_as_float(static_cast<unsigned>(x) << 16); }
__device__ __forceinline__ void store(float* p, size_t i, float v) { p[i] = v; }
__device__ __forceinline__ void store(uint16_t* p, size_t i, float v) { p[i] = __bfloat16_as_ushort(__float2bfloat16_rn(v)); }

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

template <typename Op>
__device__ __forceinline__ float warp_all_reduce(float v, Op op) {
#pragma unroll
  for (int o = 16; o > 0; o /= 2) v = op(v, __shfl_xor_sync(kFull, v, o));
  return v;
}

// v combined over the block (every thread gets the result); `red` holds 32 floats. The first
// barrier lets a second call reuse `red`.
template <typename Op>
__device__ float block_all_reduce(float v, Op op, float* red) {
  v = warp_all_reduce(v, op);
  __syncthreads();
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  v = red[0];
  for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) v = op(v, red[w]);
  return v;
}

// (m, s) of the online softmax, s the sum of exp(x - m): two partial results merged.
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
  const float mn = fmaxf(m, m2);
  if (mn == -INFINITY) return;  // both empty
  s = s * expf(m - mn) + s2 * expf(m2 - mn);
  m = mn;
}

// ---- 1. three passes ----------------------------------------------------------------------------
template <typename T>
__global__ void softmax_three_pass(const T* __restrict__ x, T* __restrict__ y, int cols) {
  __shared__ float red[32];
  const size_t base = static_cast<size_t>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, to_float(x[base + c]));
  m = block_all_reduce(m, MaxOp{}, red);
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(to_float(x[base + c]) - m);
  s = block_all_reduce(s, SumOp{}, red);
  const float inv = 1.0f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) store(y, base + c, expf(to_float(x[base + c]) - m) * inv);
}

// ---- 2. online: the max and the sum in one pass -------------------------------------------------
template <typename T>
__global__ void softmax_online(const T* __restrict__ x, T* __restrict__ y, int cols) {
  __shared__ float red_m[32], red_s[32];
  const size_t base = static_cast<size_t>(blockIdx.x) * cols;
  float m = -INFINITY, s = 0;
  // STUDENT-BEGIN(attention.online_softmax): the running maximum and its rescaled sum, in one pass
  // TASK: Walk this thread's elements of the row once (c = threadIdx.x, threadIdx.x + blockDim.x,
  // ... while c < cols; the value is to_float(x[base + c])), keeping m, the largest value seen,
  // and s, the sum of expf(v - m) over the values seen. When a value v passes m, everything in s
  // was taken against the old maximum: scale s by expf(m - v) before adding v's own term, 1, and
  // make v the maximum. The code after the region merges the threads' (m, s) pairs.
  // HINT: about 9 lines; the README's "online softmax".
  // STUB: (void)x; (void)base; (void)cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = to_float(x[base + c]);
    if (v > m) {  // a new maximum rescales what was summed so far
      s = s * expf(m - v) + 1.0f;
      m = v;
    } else {
      s += expf(v - m);
    }
  }
  // STUDENT-END(attention.online_softmax)
#pragma unroll
  for (int o = 16; o > 0; o /= 2) merge(m, s, __shfl_xor_sync(kFull, m, o), __shfl_xor_sync(kFull, s, o));
  if (threadIdx.x % 32 == 0) {
    red_m[threadIdx.x / 32] = m;
    red_s[threadIdx.x / 32] = s;
  }
  __syncthreads();
  m = red_m[0];
  s = red_s[0];
  for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) merge(m, s, red_m[w], red_s[w]);
  const float inv = 1.0f / s;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) store(y, base + c, expf(to_float(x[base + c]) - m) * inv);
}

// ---- 3. the row in registers --------------------------------------------------------------------
// Each thread holds Chunks pieces of 4 consecutive elements (Vec: one 16-byte load for FP32, 8 for
// BF16; else 4 scalar loads), so the row is read once. Columns past `valid` (the causal mask of
// the unfused prefill: valid = min(cols, (row % q_len) + diag + 1) when diag >= 0) count as -inf
// and are written as 0.
__device__ __forceinline__ void unpack(float4 v, float (&f)[4]) {
  f[0] = v.x;
  f[1] = v.y;
  f[2] = v.z;
  f[3] = v.w;
}
__device__ __forceinline__ void unpack(ushort4 v, float (&f)[4]) {
  f[0] = to_float(v.x);
  f[1] = to_float(v.y);
  f[2] = to_float(v.z);
  f[3] = to_float(v.w);
}

// Four outputs f[e] * inv at p (16-byte aligned for FP32, 8-byte for BF16).
__device__ __forceinline__ void store4(float* p, const float (&f)[4], float inv) {
  *reinterpret_cast<float4*>(p) = make_float4(f[0] * inv, f[1] * inv, f[2] * inv, f[3] * inv);
}
__device__ __forceinline__ void store4(uint16_t* p, const float (&f)[4], float inv) {
  const auto bits = [inv](float x) { return __bfloat16_as_ushort(__float2bfloat16_rn(x * inv)); };
  *reinterpret_cast<ushort4*>(p) = make_ushort4(bits(f[0]), bits(f[1]), bits(f[2]), bits(f[3]));
}

template <typename Tin, typename Tout, int Threads, int Chunks, bool Vec>
__global__ void __launch_bounds__(Threads) softmax_registers(const Tin* __restrict__ x, Tout* __restrict__ y, int cols, int q_len, int diag) {
  __shared__ float red[32];
  const size_t base = static_cast<size_t>(blockIdx.x) * cols;
  const int valid = diag < 0 ? cols : min(cols, static_cast<int>(blockIdx.x % q_len) + diag + 1);
  float v[Chunks][4];
  float m = -INFINITY;
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c0 = 4 * (static_cast<int>(threadIdx.x) + i * Threads);
    if (Vec && c0 + 3 < valid) {
      unpack(*reinterpret_cast<const cudalab::vec4_t<Tin>*>(x + base + c0), v[i]);
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e) v[i][e] = c0 + e < valid ? to_float(x[base + c0 + e]) : -INFINITY;
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) m = fmaxf(m, v[i][e]);
  }
  m = block_all_reduce(m, MaxOp{}, red);
  float s = 0;
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
#pragma unroll
    for (int e = 0; e < 4; ++e) s += (v[i][e] = expf(v[i][e] - m));  // -inf -> 0
  }
  s = block_all_reduce(s, SumOp{}, red);
  const float inv = 1.0f / s;
#pragma unroll
  for (int i = 0; i < Chunks; ++i) {
    const int c0 = 4 * (static_cast<int>(threadIdx.x) + i * Threads);
    if (Vec && c0 + 3 < cols) {  // one 16-byte (FP32) or 8-byte (BF16) store, as the loads
      store4(y + base + c0, v[i], inv);
    } else {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        if (c0 + e < cols) store(y, base + c0 + e, v[i][e] * inv);
      }
    }
  }
}

// BF16 rows of up to 8,192 elements (cols a multiple of 8): 128 threads a row, the row held
// packed, two BF16 to a register (uint4 pieces of 8, 16-byte loads and stores), and each
// exponential taken twice (for the sum, then for the output) instead of kept as a float. A row
// of 4,096 is 16 registers a thread where the float path holds 16 values over twice the threads:
// the fewer registers and threads a row, the more rows an SM holds at once, and a BF16 row
// carries half the bytes of an FP32 one, so it needs twice the rows in flight for the same bytes.
__device__ __forceinline__ float bf16_lo(unsigned w) { return __uint_as_float(w << 16); }
__device__ __forceinline__ float bf16_hi(unsigned w) { return __uint_as_float(w & 0xffff0000u); }

// The blocks an SM should hold: a whole SM of threads up to 4 pieces (32 registers a thread on
// Hopper's 2,048 threads and 64K registers), half of one at 8. Where an SM holds fewer threads
// (1,024 on Turing, 1,536 on sm_86 and sm_89) that many blocks cannot fit, and the bound asks for
// 1 block there, no cap (ptxas would ignore the larger count, with a warning).
#ifdef __CUDA_ARCH__
constexpr int kSmThreads = cudalab::occupancy::max_threads_per_sm(__CUDA_ARCH__ / 100, __CUDA_ARCH__ / 10 % 10);
#else
constexpr int kSmThreads = 2048;  // the host pass: the launch bounds that count are the device passes'
#endif
constexpr int softmax_bf16_blocks(int threads, int pieces) {
  const int want = pieces <= 4 ? 2048 / threads : 1024 / threads;
  return want * threads <= kSmThreads ? want : 1;
}

// The register pieces are fenced after each block reduction (an empty asm that "changes" them),
// so that the compiler takes each element from its packed bits again instead of keeping the row's
// 32 floats (or their exponentials) alive across the barriers: that is what keeps the kernel at
// 32 registers. Only for rows with nothing masked (the softmax variants; the unfused prefill's
// rows are FP32).
template <int Threads, int Pieces>
__global__ void __launch_bounds__(Threads, softmax_bf16_blocks(Threads, Pieces))
    softmax_registers_bf16(const uint16_t* __restrict__ x, uint16_t* __restrict__ y, int cols) {
  __shared__ float red[32];
  const size_t base = static_cast<size_t>(blockIdx.x) * cols;
  uint4 v[Pieces];
  const auto fence = [&] {
#pragma unroll
    for (int i = 0; i < Pieces; ++i) asm volatile("" : "+r"(v[i].x), "+r"(v[i].y), "+r"(v[i].z), "+r"(v[i].w));
  };
  const auto word = [&](int i, int h) { return h == 0 ? v[i].x : h == 1 ? v[i].y : h == 2 ? v[i].z : v[i].w; };
  const auto present = [&](int i) { return 8 * (static_cast<int>(threadIdx.x) + i * Threads) < cols; };
#pragma unroll
  for (int i = 0; i < Pieces; ++i) {
    const int c0 = 8 * (static_cast<int>(threadIdx.x) + i * Threads);
    v[i] = present(i) ? *reinterpret_cast<const uint4*>(x + base + c0) : make_uint4(0, 0, 0, 0);
  }
  float m = -INFINITY;
#pragma unroll
  for (int i = 0; i < Pieces; ++i) {
    if (!present(i)) continue;
#pragma unroll
    for (int h = 0; h < 4; ++h) m = fmaxf(m, fmaxf(bf16_lo(word(i, h)), bf16_hi(word(i, h))));
  }
  m = block_all_reduce(m, MaxOp{}, red);
  fence();
  float s = 0;
#pragma unroll
  for (int i = 0; i < Pieces; ++i) {
    if (!present(i)) continue;
#pragma unroll
    for (int h = 0; h < 4; ++h) s += expf(bf16_lo(word(i, h)) - m) + expf(bf16_hi(word(i, h)) - m);
  }
  s = block_all_reduce(s, SumOp{}, red);
  fence();
  const float inv = 1.0f / s;
#pragma unroll
  for (int i = 0; i < Pieces; ++i) {
    if (!present(i)) continue;
    unsigned w[4];
#pragma unroll
    for (int h = 0; h < 4; ++h) {
      w[h] = cudalab::pack_bf16(expf(bf16_lo(word(i, h)) - m) * inv, expf(bf16_hi(word(i, h)) - m) * inv);
    }
    *reinterpret_cast<uint4*>(y + base + 8 * (static_cast<int>(threadIdx.x) + i * Threads)) = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

// Threads and pieces per thread for rows of `cols`: 256 threads and the fewest pieces of 4 that
// hold the row (up to 8: 32 values a thread), else 512 or 1,024 threads with 8 pieces each (the
// register budget of 1,024 threads, 64 a thread, still holds 32 values).
template <typename Tin, typename Tout>
void launch_registers(const Tin* x, Tout* y, int rows, int cols, int q_len, int diag, cudaStream_t stream) {
  if (cols > kMaxSoftmaxCols) {
    throw std::invalid_argument("attention: softmax_registers holds rows of at most " + std::to_string(kMaxSoftmaxCols) +
                                " elements");
  }
  // 16-byte (FP32) or 8-byte (BF16) pieces need every row to start aligned: cols a multiple of 4.
  const bool vec = cols % 4 == 0;
  const auto go = [&](auto kernel, int threads) {
    kernel<<<static_cast<unsigned>(rows), threads, 0, stream>>>(x, y, cols, q_len, diag);
    CUDA_CHECK_LAUNCH("softmax_registers");
  };
  const auto go_packed = [&](auto kernel, int threads) {
    kernel<<<static_cast<unsigned>(rows), threads, 0, stream>>>(x, y, cols);
    CUDA_CHECK_LAUNCH("softmax_registers");
  };
#define ATTENTION_REGISTERS(T, C)                                                                          \
  vec ? go(softmax_registers<Tin, Tout, T, C, true>, T) : go(softmax_registers<Tin, Tout, T, C, false>, T); \
  return
  if constexpr (std::is_same_v<Tin, uint16_t> && std::is_same_v<Tout, uint16_t>) {
    // BF16 in and out, nothing masked, whole 16-byte pieces (cols a multiple of 8), up to 8,192:
    // packed, 128 threads a row
    if (diag < 0 && cols % 8 == 0 && cols <= 8 * 8 * 128) {
      if (cols <= 8 * 128) { go_packed(softmax_registers_bf16<128, 1>, 128); return; }
      if (cols <= 2 * 8 * 128) { go_packed(softmax_registers_bf16<128, 2>, 128); return; }
      if (cols <= 4 * 8 * 128) { go_packed(softmax_registers_bf16<128, 4>, 128); return; }
      go_packed(softmax_registers_bf16<128, 8>, 128);
      return;
    }
  }
  if (cols <= 4 * 256) { ATTENTION_REGISTERS(256, 1); }
  if (cols <= 8 * 256) { ATTENTION_REGISTERS(256, 2); }
  if (cols <= 16 * 256) { ATTENTION_REGISTERS(256, 4); }
  if (cols <= 32 * 256) { ATTENTION_REGISTERS(256, 8); }
  if (cols <= 32 * 512) { ATTENTION_REGISTERS(512, 8); }
  ATTENTION_REGISTERS(1024, 8);
#undef ATTENTION_REGISTERS
}

// The softmax launchers, one per variant, for FP32 or BF16 rows (Elem).
template <typename T>
void three_pass_typed(const void* x, void* y, int rows, int cols, cudaStream_t stream) {
  softmax_three_pass<T><<<static_cast<unsigned>(rows), 256, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(y), cols);
}
template <typename T>
void online_typed(const void* x, void* y, int rows, int cols, cudaStream_t stream) {
  softmax_online<T><<<static_cast<unsigned>(rows), 256, 0, stream>>>(static_cast<const T*>(x), static_cast<T*>(y), cols);
}
template <typename T>
void registers_typed(const void* x, void* y, int rows, int cols, cudaStream_t stream) {
  launch_registers<T, T>(static_cast<const T*>(x), static_cast<T*>(y), rows, cols, 1, -1, stream);
}
using SoftmaxLaunch = void (*)(const void*, void*, int, int, cudaStream_t);
struct SoftmaxPair {
  SoftmaxLaunch f32 = nullptr, bf16 = nullptr;  // null: not a softmax
};

// ---- 4. fused prefill on the SIMT cores ----------------------------------------------------------
// A block of 8 warps takes 8 query rows of one head; each tile of 32 keys and their values goes
// through shared memory (as floats; K's rows padded by one so that lane j reading key j's column
// c hits bank (j + c) % 32), and each warp keeps its row's running max m, sum l and output o
// (D / 32 columns a lane). Lane j scores key j; the warp's max and sum follow by shuffles.
constexpr int kSimtRows = 8;
constexpr int kSimtKeys = 32;

template <int D>
__global__ void __launch_bounds__(kSimtRows * 32) prefill_fused_simt(const uint16_t* __restrict__ q,
                                                                     const uint16_t* __restrict__ k,
                                                                     const uint16_t* __restrict__ v,
                                                                     uint16_t* __restrict__ o, int q_len, int kv_len,
                                                                     bool causal, float scale_log2) {
  __shared__ float ks[kSimtKeys][D + 1];
  __shared__ float vs[kSimtKeys][D];
  __shared__ float qs[kSimtRows][D];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int head = blockIdx.y;
  const int row0 = blockIdx.x * kSimtRows, row = row0 + warp;
  const int diag = kv_len - q_len;  // query i sees keys 0 .. i + diag (causal)
  const size_t qbase = static_cast<size_t>(head) * q_len * D, kvbase = static_cast<size_t>(head) * kv_len * D;
  const bool live = row < q_len;
  for (int c = lane; c < D; c += 32) qs[warp][c] = live ? to_float(q[qbase + static_cast<size_t>(row) * D + c]) : 0.0f;

  constexpr int kPer = D / 32;
  float acc[kPer];
#pragma unroll
  for (int i = 0; i < kPer; ++i) acc[i] = 0;
  float m = -INFINITY, l = 0;
  // Keys past the block's last row's diagonal are seen by none of its rows: their tiles are skipped.
  const int kv_end = causal ? min(kv_len, min(row0 + kSimtRows, q_len) + diag) : kv_len;
  for (int kv0 = 0; kv0 < kv_end; kv0 += kSimtKeys) {
    __syncthreads();  // the last tile is read by every warp
    for (int i = threadIdx.x; i < kSimtKeys * D; i += blockDim.x) {
      const int j = i / D, c = i % D;
      const bool in = kv0 + j < kv_len;
      const size_t at = kvbase + static_cast<size_t>(kv0 + j) * D + c;
      ks[j][c] = in ? to_float(k[at]) : 0.0f;
      vs[j][c] = in ? to_float(v[at]) : 0.0f;
    }
    __syncthreads();
    if (!live) continue;
    const int key = kv0 + lane;
    float score = -INFINITY;
    if (key < kv_len && (!causal || key <= row + diag)) {
      float dot = 0;
#pragma unroll 16
      for (int c = 0; c < D; ++c) dot += qs[warp][c] * ks[lane][c];
      score = dot * scale_log2;  // base 2: exp(x / sqrt(d)) = 2^(x log2(e) / sqrt(d))
    }
    const float m_new = fmaxf(m, warp_all_reduce(score, MaxOp{}));
    if (m_new == -INFINITY) continue;  // no key of this tile is seen (warp-uniform)
    const float alpha = exp2f(m - m_new), p = exp2f(score - m_new);
    l = l * alpha + warp_all_reduce(p, SumOp{});
#pragma unroll
    for (int i = 0; i < kPer; ++i) acc[i] *= alpha;
    for (int j = 0; j < kSimtKeys; ++j) {
      const float pj = __shfl_sync(kFull, p, j);
#pragma unroll
      for (int i = 0; i < kPer; ++i) acc[i] += pj * vs[j][lane + 32 * i];
    }
    m = m_new;
  }
  if (!live) return;
  const float inv = 1.0f / l;
#pragma unroll
  for (int i = 0; i < kPer; ++i) store(o, qbase + static_cast<size_t>(row) * D + lane + 32 * i, acc[i] * inv);
}

// ---- 5. FlashAttention-2 on mma.sync --------------------------------------------------------------
// A block of 4 warps takes 128 query rows, each warp 32 of them as two m-tiles of 16, and walks
// tiles of 64 keys: S = Q K^T as 2 x 8 mma tiles of 16 x 8 per warp, the online softmax on S's
// accumulators (a row's 64 scores sit in the 4 lanes of a quad: two shuffles give its max), then
// P V with P converted in registers from the accumulator layout to the A operand's
// (FlashAttention-2's trick: no trip through shared memory). K's and V's fragments come from
// shared memory by ldmatrix (four 8 x 8 matrices per instruction, V's transposed on the way: two
// keys of one dimension in a register), and each feeds both m-tiles: two mma per fragment, so
// shared memory serves half the bytes per FLOP of a warp with 16 rows (at one m-tile a warp's
// ldmatrix traffic alone is about what shared memory delivers at the Tensor Cores' mma.sync
// rate). Q stays in shared memory, its fragments read again at each k-step (registers hold S's
// 64 and O's 128 floats a thread). The key tiles arrive by cp.async in two stages, the next tile
// copied while the warps compute on this one. Rows in shared memory are padded by 8 BF16 (16
// bytes) so that the 8 row addresses of an ldmatrix hit different banks.
constexpr int kMmaRows = 128;
constexpr int kMmaThreads = 128;
constexpr int kMmaKeys = 64;
constexpr int kMmaTiles = kMmaRows / (kMmaThreads / 32) / 16;  // m-tiles of 16 rows per warp
static_assert(kMmaTiles * 16 * (kMmaThreads / 32) == kMmaRows, "the warps' m-tiles cover the query block");

// Q's kMmaRows rows, then two stages of a K tile and a V tile of kMmaKeys rows, each row D + 8
// BF16 (8 of padding: the rows' 16-byte pieces fall on other banks for ldmatrix).
template <int D>
constexpr std::size_t mma_smem_bytes() {
  return (kMmaRows + 4 * static_cast<std::size_t>(kMmaKeys)) * (D + 8) * sizeof(uint16_t);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800

// ROWS x D BF16 of a [tokens][D] tensor from `row0` into shared memory (LD elements a row), 16
// bytes a piece, by cp.async (zeros past rows_total): the copy runs while the block computes.
template <int D, int LD, int ROWS>
__device__ __forceinline__ void copy_rows_async(uint16_t* s, const uint16_t* __restrict__ g, int row0, int rows_total) {
  constexpr int kPieces = ROWS * D / 8;
  for (int i = threadIdx.x; i < kPieces; i += kMmaThreads) {
    const int r = i / (D / 8), c = (i % (D / 8)) * 8;
    const bool valid = row0 + r < rows_total;
    cp_async16(s + r * LD + c, g + static_cast<size_t>(valid ? row0 + r : 0) * D + c, valid);
  }
}
#endif

template <int D>
__global__ void __launch_bounds__(kMmaThreads) prefill_mma_sync(const uint16_t* __restrict__ q,
                                                                const uint16_t* __restrict__ k,
                                                                const uint16_t* __restrict__ v,
                                                                uint16_t* __restrict__ o, int q_len, int kv_len,
                                                                bool causal, float scale_log2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int LD = D + 8;
  constexpr int KS = D / 16;  // k-steps of Q K^T
  constexpr int ND = D / 8;   // n-tiles of O
  constexpr int MT = kMmaTiles;
  extern __shared__ __align__(16) uint16_t mma_smem[];  // Q, then [stage][K, V]: mma_smem_bytes<D>()
  uint16_t* const qs = mma_smem;
  const auto k_stage = [&](int st) { return mma_smem + (kMmaRows + (2 * st) * kMmaKeys) * LD; };
  const auto v_stage = [&](int st) { return mma_smem + (kMmaRows + (2 * st + 1) * kMmaKeys) * LD; };
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int head = blockIdx.y, q0 = blockIdx.x * kMmaRows;
  const int diag = kv_len - q_len;
  const uint16_t* qh = q + static_cast<size_t>(head) * q_len * D;
  const uint16_t* kh = k + static_cast<size_t>(head) * kv_len * D;
  const uint16_t* vh = v + static_cast<size_t>(head) * kv_len * D;
  const int r0 = q0 + warp * 16 * MT + g;  // this thread's rows: r0 + 16 mt (+ 8)

  float acc[MT][ND][4];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int n = 0; n < ND; ++n) acc[mt][n][0] = acc[mt][n][1] = acc[mt][n][2] = acc[mt][n][3] = 0;
  }
  float m[MT][2], l[MT][2];
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) m[mt][0] = m[mt][1] = -INFINITY, l[mt][0] = l[mt][1] = 0;

  // Q's rows and the first key tile in one group of copies; then two stages: while the warps
  // compute on tile j (stage j % 2), cp.async copies tile j + 1 into the other stage; a tile
  // waits for its own copy only (wait_group 1 leaves the next in flight).
  const int kv_end = causal ? min(kv_len, min(q0 + kMmaRows, q_len) + diag) : kv_len;
  copy_rows_async<D, LD, kMmaRows>(qs, qh, q0, q_len);
  if (kv_end > 0) {
    copy_rows_async<D, LD, kMmaKeys>(k_stage(0), kh, 0, kv_len);
    copy_rows_async<D, LD, kMmaKeys>(v_stage(0), vh, 0, kv_len);
  }
  cp_async_commit();
  if (kv_end <= 0) cp_async_wait<0>();  // no key tile: no copy may outlive the block
  // ldmatrix.x4 row addresses. A (Q, 16 x 16 at rows 16 mt, dims 16 kk): lane L gives row L % 16,
  // dims + 8 for lanes 16..31. B = K^T (two key tiles, keys 16 np .. 16 np + 15, dims 16 kk ..):
  // key 16 np + L % 8 (+ 8 for lanes 16..31), dims + 8 for lanes 8..15 and 24..31. V (.trans, two
  // dimension tiles): key 16 kk + L % 16, dims 16 np (+ 8 for lanes 16..31).
  const int a_row = lane & 15, a_col = (lane >> 4) * 8;
  const int k_row = (lane & 7) + ((lane >> 4) << 3), k_col = ((lane >> 3) & 1) * 8;
  const int v_row = lane & 15, v_col = (lane >> 4) * 8;
  const unsigned q_at = cudalab::smem_address(qs + (warp * 16 * MT + a_row) * LD + a_col);
  int stage = 0;
  for (int kv0 = 0; kv0 < kv_end; kv0 += kMmaKeys, stage ^= 1) {
    __syncthreads();  // every warp is done with the other stage (the tile before)
    if (kv0 + kMmaKeys < kv_end) {
      copy_rows_async<D, LD, kMmaKeys>(k_stage(stage ^ 1), kh, kv0 + kMmaKeys, kv_len);
      copy_rows_async<D, LD, kMmaKeys>(v_stage(stage ^ 1), vh, kv0 + kMmaKeys, kv_len);
      cp_async_commit();
      cp_async_wait<1>();  // this tile's copies have landed; the next tile's may still be in flight
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();  // this tile, copied by every thread, is seen by every warp
    const unsigned ks = cudalab::smem_address(k_stage(stage));
    const unsigned vs = cudalab::smem_address(v_stage(stage));

    float s[MT][8][4];
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
      for (int n = 0; n < 8; ++n) s[mt][n][0] = s[mt][n][1] = s[mt][n][2] = s[mt][n][3] = 0;
    }
#pragma unroll
    for (int kk = 0; kk < KS; ++kk) {
      unsigned qa[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) cudalab::ldmatrix_x4_at(qa[mt], q_at + 2 * (mt * 16 * LD + kk * 16));
#pragma unroll
      for (int np = 0; np < 4; ++np) {
        unsigned kb[4];
        cudalab::ldmatrix_x4_at(kb, ks + 2 * ((np * 16 + k_row) * LD + kk * 16 + k_col));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          cudalab::mma_bf16(s[mt][2 * np], qa[mt], kb[0], kb[1]);
          cudalab::mma_bf16(s[mt][2 * np + 1], qa[mt], kb[2], kb[3]);
        }
      }
    }
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      // Scale to base 2, mask (past the sequence; past the diagonal), and each row's max.
      const int ra = r0 + 16 * mt, rb = ra + 8;
      float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
      for (int n = 0; n < 8; ++n) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int key = kv0 + n * 8 + 2 * t + (e & 1), row = e < 2 ? ra : rb;
          float x = s[mt][n][e] * scale_log2;
          if (key >= kv_len || (causal && key > row + diag)) x = -INFINITY;
          s[mt][n][e] = x;
          mx[e / 2] = fmaxf(mx[e / 2], x);
        }
      }
      float alpha[2], base[2];
      online_max_step(mx, m[mt], l[mt], alpha, base);  // the quad's max, the rows' new m; l *= alpha
#pragma unroll
      for (int n = 0; n < 8; ++n) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          s[mt][n][e] = exp2f(s[mt][n][e] - base[e / 2]);
          l[mt][e / 2] += s[mt][n][e];  // this lane's share; the quad's sum is taken at the end
        }
      }
#pragma unroll
      for (int n = 0; n < ND; ++n) {
        acc[mt][n][0] *= alpha[0];
        acc[mt][n][1] *= alpha[0];
        acc[mt][n][2] *= alpha[1];
        acc[mt][n][3] *= alpha[1];
      }
    }
    // O += P V: P's accumulators of key tiles 2kk and 2kk+1 are the A fragment of keys 16kk ..
    // 16kk+15; each V fragment pair (ldmatrix.x4.trans) feeds both m-tiles.
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      unsigned pa[MT][4];
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        pa[mt][0] = cudalab::pack_bf16(s[mt][2 * kk][0], s[mt][2 * kk][1]);
        pa[mt][1] = cudalab::pack_bf16(s[mt][2 * kk][2], s[mt][2 * kk][3]);
        pa[mt][2] = cudalab::pack_bf16(s[mt][2 * kk + 1][0], s[mt][2 * kk + 1][1]);
        pa[mt][3] = cudalab::pack_bf16(s[mt][2 * kk + 1][2], s[mt][2 * kk + 1][3]);
      }
#pragma unroll
      for (int np = 0; np < ND / 2; ++np) {
        unsigned vb[4];
        cudalab::ldmatrix_x4_trans_at(vb, vs + 2 * ((kk * 16 + v_row) * LD + np * 16 + v_col));
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
          cudalab::mma_bf16(acc[mt][2 * np], pa[mt], vb[0], vb[1]);
          cudalab::mma_bf16(acc[mt][2 * np + 1], pa[mt], vb[2], vb[3]);
        }
      }
    }
  }
  uint16_t* oh = o + static_cast<size_t>(head) * q_len * D;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    float inv[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      l[mt][h] += __shfl_xor_sync(kFull, l[mt][h], 1);
      l[mt][h] += __shfl_xor_sync(kFull, l[mt][h], 2);
      inv[h] = 1.0f / l[mt][h];
    }
    const int ra = r0 + 16 * mt, rb = ra + 8;
#pragma unroll
    for (int n = 0; n < ND; ++n) {
      const int c = n * 8 + 2 * t;
      if (ra < q_len) {
        *reinterpret_cast<unsigned*>(oh + static_cast<size_t>(ra) * D + c) =
            cudalab::pack_bf16(acc[mt][n][0] * inv[0], acc[mt][n][1] * inv[0]);
      }
      if (rb < q_len) {
        *reinterpret_cast<unsigned*>(oh + static_cast<size_t>(rb) * D + c) =
            cudalab::pack_bf16(acc[mt][n][2] * inv[1], acc[mt][n][3] * inv[1]);
      }
    }
  }
#endif
}

// ---- 6 and 7. decode ------------------------------------------------------------------------------
// A block of 256 threads takes a range of keys of one head: 16 groups of 16 lanes (two to a warp),
// each group two keys at a time, both loaded before either is used (a lane holds D / 16 of a key's
// dimensions: one 16-byte load for D = 128), the dot
// product summed over the group by 4 shuffles, the group's own running (m, l, o). The groups
// then merge in shared memory. Split (flash-decoding): each block writes its (m, l, o) and a
// second kernel merges a head's splits; per head: one block, which writes O itself.
constexpr int kDecodeThreads = 256;

// E consecutive BF16 (8: one 16-byte load; 4: one 8-byte load) as floats.
template <int E>
__device__ __forceinline__ void load_dims(const uint16_t* p, float (&f)[E]) {
  if constexpr (E == 8) {
    const uint4 w = *reinterpret_cast<const uint4*>(p);
    const unsigned words[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      f[2 * i] = __uint_as_float(words[i] << 16);
      f[2 * i + 1] = __uint_as_float(words[i] & 0xFFFF0000u);
    }
  } else {
    static_assert(E == 4, "64 or 128 dimensions: 4 or 8 per lane");
    unpack(*reinterpret_cast<const ushort4*>(p), f);
  }
}
constexpr int kDecodeGroups = kDecodeThreads / 16;

// 3 blocks an SM (80 registers a thread, ptxas at sm_90: 89 unbounded would leave room for 2):
// 24 warps of 2 KB of K and V in flight each.
template <int D>
__global__ void __launch_bounds__(kDecodeThreads, 3) decode_part(const uint16_t* __restrict__ q,
                                                              const uint16_t* __restrict__ k,
                                                              const uint16_t* __restrict__ v,
                                                              uint16_t* __restrict__ o, float* __restrict__ partials,
                                                              int kv_len, int chunk, float scale_log2) {
  constexpr int E = D / 16;  // dimensions per lane
  __shared__ float gm[kDecodeGroups], gl[kDecodeGroups];
  __shared__ float go[kDecodeGroups][D];
  const int head = blockIdx.y, split = blockIdx.x, splits = gridDim.x;
  const int group = threadIdx.x / 16, hl = threadIdx.x % 16;
  const int first = split * chunk, last = min(kv_len, first + chunk);
  const size_t kvbase = static_cast<size_t>(head) * kv_len * D;
  float qv[E], acc[E];
#pragma unroll
  for (int e = 0; e < E; ++e) {
    qv[e] = to_float(q[static_cast<size_t>(head) * D + hl * E + e]);
    acc[e] = 0;
  }
  float m = -INFINITY, l = 0;
  // The two groups of a warp take keys base and base + 1, and base + kDecodeGroups and the one
  // after it, and loop together (a group past the last key idles through the iteration): the
  // shuffles below need all 32 lanes, whatever the count. Two keys a group an iteration: the
  // loads of both are issued before either is used, twice the bytes in flight a warp.
  const int warp = threadIdx.x / 32, half = group % 2;
  for (int base = first + 2 * warp; base < last; base += 2 * kDecodeGroups) {
    const int key0 = base + half, key1 = key0 + kDecodeGroups;
    const bool live0 = key0 < last, live1 = key1 < last;
    float kf[2][E], vf[2][E];
    float dot[2] = {0, 0};
    if (live0) {
      const size_t at = kvbase + static_cast<size_t>(key0) * D + hl * E;
      load_dims<E>(k + at, kf[0]);
      load_dims<E>(v + at, vf[0]);
    }
    if (live1) {
      const size_t at = kvbase + static_cast<size_t>(key1) * D + hl * E;
      load_dims<E>(k + at, kf[1]);
      load_dims<E>(v + at, vf[1]);
    }
#pragma unroll
    for (int e = 0; e < E; ++e) {
      if (live0) dot[0] += qv[e] * kf[0][e];
      if (live1) dot[1] += qv[e] * kf[1][e];
    }
#pragma unroll
    for (int off = 8; off > 0; off /= 2) {  // within the 16 lanes
      dot[0] += __shfl_xor_sync(kFull, dot[0], off);
      dot[1] += __shfl_xor_sync(kFull, dot[1], off);
    }
    if (!live0) continue;  // then key1 is past the end too
    const float s0 = dot[0] * scale_log2, s1 = live1 ? dot[1] * scale_log2 : -INFINITY;
    const float m_new = fmaxf(m, fmaxf(s0, s1));
    const float alpha = exp2f(m - m_new), p0 = exp2f(s0 - m_new), p1 = live1 ? exp2f(s1 - m_new) : 0.0f;
    l = l * alpha + p0 + p1;
#pragma unroll
    for (int e = 0; e < E; ++e) acc[e] = acc[e] * alpha + p0 * vf[0][e] + (live1 ? p1 * vf[1][e] : 0.0f);
    m = m_new;
  }
  if (hl == 0) {
    gm[group] = m;
    gl[group] = l;
  }
#pragma unroll
  for (int e = 0; e < E; ++e) go[group][hl * E + e] = acc[e];
  __syncthreads();
  float mm = -INFINITY;
  for (int gi = 0; gi < kDecodeGroups; ++gi) mm = fmaxf(mm, gm[gi]);
  for (int c = threadIdx.x; c < D; c += kDecodeThreads) {
    float lsum = 0, osum = 0;
    for (int gi = 0; gi < kDecodeGroups; ++gi) {
      const float w = gm[gi] == -INFINITY ? 0.0f : exp2f(gm[gi] - mm);  // a group with no key adds nothing
      lsum += gl[gi] * w;
      osum += go[gi][c] * w;
    }
    if (splits == 1) {
      store(o, static_cast<size_t>(head) * D + c, osum / lsum);
    } else {
      float* part = partials + (static_cast<size_t>(head) * splits + split) * (D + 2);
      part[2 + c] = osum;
      if (c == 0) {
        part[0] = mm;
        part[1] = lsum;
      }
    }
  }
}

// O of each head from its splits' (m, l, o): one block of D threads per head.
template <int D>
__global__ void decode_merge(const float* __restrict__ partials, uint16_t* __restrict__ o, int splits) {
  const int head = blockIdx.x, c = threadIdx.x;
  const float* p = partials + static_cast<size_t>(head) * splits * (D + 2);
  // STUDENT-BEGIN(attention.decode_merge): flash-decoding's last step, the splits' partial results merged
  // TASK: Split s of this head left three things at p + s * (D + 2): [0] m, its largest score (in
  // base 2), [1] l, the sum of exp2f(score - m) over its keys, and [2 + j] its weighted sum of V
  // in column j, not yet divided by l. Write column c of the head's output: with mm the largest m
  // of the splits, weight each split by exp2f(m - mm) (0 for a split whose m is -INFINITY: it had
  // no key), add up the weighted l and the weighted column c, and store the ratio:
  // store(o, static_cast<size_t>(head) * D + c, osum / lsum).
  // HINT: about 10 lines: one loop for mm, one for the sums; the README's "online softmax" is the
  // same merge.
  // STUB: (void)p; (void)o; (void)splits; (void)c;
  float mm = -INFINITY;
  for (int s = 0; s < splits; ++s) mm = fmaxf(mm, p[static_cast<size_t>(s) * (D + 2)]);
  float lsum = 0, osum = 0;
  for (int s = 0; s < splits; ++s) {
    const float* ps = p + static_cast<size_t>(s) * (D + 2);
    const float w = ps[0] == -INFINITY ? 0.0f : exp2f(ps[0] - mm);
    lsum += ps[1] * w;
    osum += ps[2 + c] * w;
  }
  store(o, static_cast<size_t>(head) * D + c, osum / lsum);
  // STUDENT-END(attention.decode_merge)
}

__global__ void fill_bf16(uint16_t* x, size_t n, std::uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    x[i] = __bfloat16_as_ushort(__float2bfloat16_rn(scale * to_float(input_bits(seed, i))));
  }
}
__global__ void fill_f32(float* x, size_t n, std::uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    x[i] = scale * to_float(input_bits(seed, i));
  }
}

void require_shape(const Shape& s) {
  if (!supported_dim(s.d)) throw std::invalid_argument("attention: head dim " + std::to_string(s.d) + " (64 or 128 only)");
  if (s.heads <= 0 || s.q_len <= 0 || s.kv_len <= 0) throw std::invalid_argument("attention: the sizes must be positive");
  if (s.heads > 65535) throw std::invalid_argument("attention: at most 65535 heads (the grid's y)");
  if (s.causal && s.q_len > s.kv_len) throw std::invalid_argument("attention: a causal prefill needs q_len <= kv_len");
}

// The fused attention launchers, one per variant; the head dimension (64 or 128) is a template
// argument of every kernel, chosen from the one declared list.
using HeadDims = cudalab::int_list<64, 128>;
struct Attend {
  const Shape& s;
  const uint16_t *q, *k, *v;
  uint16_t* o;
  DecodeWorkspace* ws;
  cudaStream_t stream;
};
template <typename F>
void with_head_dim(const Attend& a, F&& f) {
  cudalab::dispatch(HeadDims{}, a.s.d, "attention: the head dimension", [&](auto d) {
    constexpr int D = decltype(d)::value;
    f(std::integral_constant<int, D>{}, kLog2e / std::sqrt(static_cast<float>(D)));
  });
}

void launch_prefill_simt(const Attend& a) {
  with_head_dim(a, [&](auto d, float scale_log2) {
    constexpr int D = decltype(d)::value;
    prefill_fused_simt<D><<<dim3(static_cast<unsigned>(cudalab::ceil_div(a.s.q_len, kSimtRows)), static_cast<unsigned>(a.s.heads)),
                            kSimtRows * 32, 0, a.stream>>>(a.q, a.k, a.v, a.o, a.s.q_len, a.s.kv_len, a.s.causal, scale_log2);
  });
}

void launch_prefill_mma(const Attend& a) {
  // the suite's per-device cache: attend() runs inside timed loops
  if (cudalab::launch_limits().cc_major < 8) {
    throw std::runtime_error("attention: prefill_mma_sync: BF16 mma.sync needs sm_80 or later");
  }
  with_head_dim(a, [&](auto d, float scale_log2) {
    constexpr int D = decltype(d)::value;
    constexpr std::size_t smem = mma_smem_bytes<D>();  // 104,448 bytes at D = 128: past the 48 KB default
    static const bool opted_in = [] {
      CUDA_CHECK(cudaFuncSetAttribute(prefill_mma_sync<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(smem)));
      return true;
    }();
    (void)opted_in;
    prefill_mma_sync<D><<<dim3(static_cast<unsigned>(cudalab::ceil_div(a.s.q_len, kMmaRows)), static_cast<unsigned>(a.s.heads)),
                          kMmaThreads, smem, a.stream>>>(a.q, a.k, a.v, a.o, a.s.q_len, a.s.kv_len, a.s.causal, scale_log2);
  });
}

void launch_prefill_wgmma_as(const Attend& a, bool pingpong) {
  if (const std::string why = hopper::unavailable(); !why.empty()) {
    throw std::runtime_error("attention: prefill_wgmma: " + why);
  }
  with_head_dim(a, [&](auto d, float scale_log2) {
    hopper::launch_prefill(decltype(d)::value, a.q, a.k, a.v, a.o, a.s.heads, a.s.q_len, a.s.kv_len, a.s.causal,
                           scale_log2, pingpong, a.stream);
  });
}
void launch_prefill_wgmma(const Attend& a) { launch_prefill_wgmma_as(a, false); }
void launch_prefill_wgmma_pingpong(const Attend& a) { launch_prefill_wgmma_as(a, true); }

void launch_decode_per_head(const Attend& a) {
  with_head_dim(a, [&](auto d, float scale_log2) {
    constexpr int D = decltype(d)::value;
    decode_part<D><<<dim3(1, static_cast<unsigned>(a.s.heads)), kDecodeThreads, 0, a.stream>>>(
        a.q, a.k, a.v, a.o, nullptr, a.s.kv_len, a.s.kv_len, scale_log2);
  });
}

void launch_decode_split(const Attend& a) {
  if (!a.ws) throw std::invalid_argument("attention: decode_split needs a DecodeWorkspace");
  const int splits = std::min(decode_splits(a.s, cudalab::launch_limits().sms), a.ws->max_splits());
  const int chunk = cudalab::ceil_div(a.s.kv_len, splits);
  const int used = cudalab::ceil_div(a.s.kv_len, chunk);  // none empty
  const unsigned heads = static_cast<unsigned>(a.s.heads);
  with_head_dim(a, [&](auto d, float scale_log2) {
    constexpr int D = decltype(d)::value;
    decode_part<D><<<dim3(static_cast<unsigned>(used), heads), kDecodeThreads, 0, a.stream>>>(
        a.q, a.k, a.v, a.o, a.ws->partials(), a.s.kv_len, chunk, scale_log2);
    CUDA_CHECK_LAUNCH("decode_part");
    if (used > 1) decode_merge<D><<<heads, D, 0, a.stream>>>(a.ws->partials(), a.o, used);
  });
}

// ---- the ladder, described once ------------------------------------------------------------------

struct Row {
  Variant id;
  const char* name;
  const char* what;
  Kind kind;
  SoftmaxPair softmax{};                   // the softmax rows' launchers (FP32, BF16)
  void (*attend)(const Attend&) = nullptr;  // the prefill and decode rows' launcher
  bool sm90a = false;                        // the Hopper rungs (attention_wgmma.cu): compute capability 9.0 only
};

const std::vector<Row>& ladder() {
  static const std::vector<Row> rows{
      {Variant::kSoftmaxThreePass, "softmax_three_pass",
       "a block per row: the max, the sum of exponentials, the outputs: three reads of the row", Kind::kSoftmax,
       {three_pass_typed<float>, three_pass_typed<uint16_t>}},
      {Variant::kSoftmaxOnline, "softmax_online",
       "the max and the sum in one pass (a running max rescales the sum), then the outputs: two reads",
       Kind::kSoftmax, {online_typed<float>, online_typed<uint16_t>}},
      {Variant::kSoftmaxRegisters, "softmax_registers",
       "the row held in registers, 16-byte loads and stores (BF16 packed, 128 threads a row): one read and one "
       "write, the copy's bytes",
       Kind::kSoftmax, {registers_typed<float>, registers_typed<uint16_t>}},
      {Variant::kPrefillFusedSimt, "prefill_fused_simt",
       "one kernel: a warp per query row walks K and V tiles in shared memory with the online softmax "
       "(FlashAttention-1's idea); the S x S scores never reach DRAM",
       Kind::kPrefill, {}, launch_prefill_simt},
      {Variant::kPrefillMmaSync, "prefill_mma_sync",
       "FlashAttention-2 on Tensor Cores: a warp per 32 query rows (each K and V fragment feeds two m-tiles), "
       "Q K^T and P V by mma.sync fed by ldmatrix, "
       "P kept in registers as the A operand, K and V tiles by cp.async in two stages; causal tiles past the "
       "diagonal skipped",
       Kind::kPrefill, {}, launch_prefill_mma},
      {Variant::kPrefillWgmma, "prefill_wgmma",
       "Hopper: the same loop on wgmma (S from shared memory, P V with P in registers), K and V tiles of 128 keys "
       "by TMA from a producer warpgroup, two consumer warpgroups of 64 query rows (sm_90a)",
       Kind::kPrefill, {}, launch_prefill_wgmma, true},
      {Variant::kPrefillWgmmaPingpong, "prefill_wgmma_pingpong",
       "the wgmma rung with its two consumer warpgroups taking turns (named barriers): each issues P V of the "
       "tile before with S of this tile, and runs its softmax while the other's GEMMs run (sm_90a)",
       Kind::kPrefill, {}, launch_prefill_wgmma_pingpong, true},
      {Variant::kDecodePerHead, "decode_per_head", "one block per head walks the whole KV cache", Kind::kDecode, {},
       launch_decode_per_head},
      {Variant::kDecodeSplit, "decode_split",
       "the cache split over the SMs (flash-decoding), the splits' partial results merged by a second kernel",
       Kind::kDecode, {}, launch_decode_split},
  };
  return rows;
}

const Row& row_of(Variant v) { return cudalab::row_of(ladder(), v, "attention"); }

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder())

Kind kind_of(Variant v) { return row_of(v).kind; }
std::string unavailable(Variant v) {
  if (row_of(v).sm90a) return hopper::unavailable();
  if (v == Variant::kPrefillMmaSync && cudalab::launch_limits().cc_major < 8) return "BF16 mma.sync needs sm_80 or later";
  return "";
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kSoftmax: return "softmax";
    case Kind::kPrefill: return "prefill";
    case Kind::kDecode: return "decode";
  }
  return "?";
}

void softmax(Variant v, Elem e, const void* x, void* y, int rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) throw std::invalid_argument("attention: softmax sizes must be positive");
  if (cols > kMaxSoftmaxCols) throw std::invalid_argument("attention: softmax rows of at most 32768 elements");
  const Row& r = row_of(v);
  const SoftmaxLaunch launch = e == Elem::kF32 ? r.softmax.f32 : r.softmax.bf16;
  if (!launch) throw std::invalid_argument(std::string("attention: ") + r.name + " is not a softmax");
  launch(x, y, rows, cols, stream);
  CUDA_CHECK_LAUNCH(r.name);
}

DecodeWorkspace::DecodeWorkspace(int heads, int d, int max_splits)
    : max_splits_(max_splits), partials_(static_cast<size_t>(heads) * max_splits * (d + 2)) {}

int decode_splits(const Shape& s, int sms) {
  const int fill = cudalab::ceil_div(2 * sms, std::max(1, s.heads));  // blocks to fill the GPU twice
  return std::max(1, std::min(fill, s.kv_len / 256));
}

void attend(Variant v, const Shape& s, const uint16_t* q, const uint16_t* k, const uint16_t* vv, uint16_t* o,
            DecodeWorkspace* ws, cudaStream_t stream) {
  require_shape(s);
  const Kind kind = kind_of(v);
  if (kind == Kind::kDecode && s.q_len != 1) throw std::invalid_argument("attention: a decode has one query token");
  if (kind == Kind::kDecode && s.causal) throw std::invalid_argument("attention: a decode sees every key (not causal)");
  const Row& r = row_of(v);
  if (!r.attend) throw std::invalid_argument("attention: " + std::string(r.name) + " is not a fused attention kernel");
  r.attend({s, q, k, vv, o, ws, stream});
  CUDA_CHECK_LAUNCH(r.name);
}

void masked_softmax_bf16(const float* x, uint16_t* y, int heads, int q_len, int kv_len, bool causal,
                         cudaStream_t stream) {
  const long long rows = static_cast<long long>(heads) * q_len;
  if (rows > 0x7FFFFFFF) throw std::invalid_argument("attention: too many rows for one grid");
  launch_registers<float, uint16_t>(x, y, static_cast<int>(rows), kv_len, q_len, causal ? kv_len - q_len : -1, stream);
}

// ---- the unfused baseline ------------------------------------------------------------------------

namespace {
void cublas_check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("attention: ") + what + " failed (cuBLAS status " + std::to_string(static_cast<int>(s)) + ")");
}
}  // namespace

double Unfused::scratch_bytes(const Shape& s) {
  return 6.0 * s.heads * static_cast<double>(s.q_len) * s.kv_len;  // FP32 scores and BF16 probabilities
}

Unfused::Unfused(const Shape& s)
    : s_(s), scores_(static_cast<size_t>(s.heads) * s.q_len * s.kv_len),
      probs_(static_cast<size_t>(s.heads) * s.q_len * s.kv_len) {
  require_shape(s);
  if (s.kv_len > kMaxSoftmaxCols) throw std::invalid_argument("attention: the unfused path's softmax holds at most 32768 keys");
  cublasHandle_t h = nullptr;
  cublas_check(cublasCreate(&h), "cublasCreate");
  handle_ = h;
}

Unfused::~Unfused() {
  if (handle_) cublasDestroy(static_cast<cublasHandle_t>(handle_));
}

void Unfused::run(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o, cudaStream_t stream) {
  auto h = static_cast<cublasHandle_t>(handle_);
  cublas_check(cublasSetStream(h, stream), "cublasSetStream");
  const float alpha = 1.0f / std::sqrt(static_cast<float>(s_.d)), one = 1.0f, zero = 0.0f;
  const long long qs = static_cast<long long>(s_.q_len) * s_.d, kvs = static_cast<long long>(s_.kv_len) * s_.d;
  const long long ss = static_cast<long long>(s_.q_len) * s_.kv_len;
  // Row-major S (q_len x kv_len) is column-major S^T = K Q^T: K as stored is d x kv_len (transposed),
  // Q is d x q_len.
  cublas_check(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, s_.kv_len, s_.q_len, s_.d, &alpha, k, CUDA_R_16BF,
                                          s_.d, kvs, q, CUDA_R_16BF, s_.d, qs, &zero, scores_.data(), CUDA_R_32F,
                                          s_.kv_len, ss, s_.heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "Q K^T (cublasGemmStridedBatchedEx)");
  masked_softmax_bf16(scores_.data(), probs_.data(), s_.heads, s_.q_len, s_.kv_len, s_.causal, stream);
  // Row-major O (q_len x d) is column-major O^T = V^T P^T: V as stored is d x kv_len, P is kv_len x q_len.
  cublas_check(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s_.d, s_.q_len, s_.kv_len, &one, v, CUDA_R_16BF,
                                          s_.d, kvs, probs_.data(), CUDA_R_16BF, s_.kv_len, ss, &zero, o, CUDA_R_16BF,
                                          s_.d, qs, s_.heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
               "P V (cublasGemmStridedBatchedEx)");
}

void fill_inputs(uint16_t* x, size_t n, std::uint64_t seed, float scale, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>(cudalab::ceil_div(n, size_t{256}), 4096));
  fill_bf16<<<blocks, 256, 0, stream>>>(x, n, seed, scale);
  CUDA_CHECK_LAUNCH("fill_bf16");
}
void fill_inputs(float* x, size_t n, std::uint64_t seed, float scale, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned blocks = static_cast<unsigned>(std::min<size_t>(cudalab::ceil_div(n, size_t{256}), 4096));
  fill_f32<<<blocks, 256, 0, stream>>>(x, n, seed, scale);
  CUDA_CHECK_LAUNCH("fill_f32");
}

}  // namespace attention
