// matmul on Tensor Cores: BF16 A and B, FP32 accumulation and C. Each rung says what the one
// before it left on the table and what it changes.
//
// Every kernel handles any M, N, K: a tile over an edge loads zeros (a zero adds nothing to a
// dot product) and stores only inside C. The BF16 instructions need sm_80 or later; on an older
// GPU the kernels are empty and launch() refuses them (unavailable()).
#include "tensor.hpp"
#include "common/cp_async.cuh"
#include "tile_order.cuh"
#include "wgmma.hpp"

#include <cuda_bf16.h>
#include <mma.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/banks.hpp"
#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/math.hpp"
#include "common/mma.cuh"

namespace matmul::tensor {
namespace {

using std::size_t;
using bf16 = __nv_bfloat16;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define MATMUL_TENSOR_CORES 1
#endif

// Copies `Chunks` 16-byte pieces (8 elements) or single elements of a rows x cols tile of a
// row-major matrix (ld elements a row) at (row0, col0) into shared memory (lds elements a row).
// Outside the matrix: zeros. Vec: one 16-byte load per piece (K and N multiples of 8, so a piece
// is wholly inside or wholly outside); otherwise element by element.
template <int Rows, int Cols, int Threads, bool Vec>
__device__ __forceinline__ void load_tile(bf16* s, int lds, const bf16* __restrict__ g, int ld, int rows_total,
                                          int cols_total, int row0, int col0) {
  if constexpr (Vec) {
    constexpr int kPieces = Rows * Cols / 8;
    for (int p = static_cast<int>(threadIdx.x); p < kPieces; p += Threads) {
      const int r = p / (Cols / 8), q = (p % (Cols / 8)) * 8;
      const int row = row0 + r, col = col0 + q;
      uint4 v = make_uint4(0, 0, 0, 0);
      if (row < rows_total && col < cols_total) v = *reinterpret_cast<const uint4*>(g + static_cast<size_t>(row) * ld + col);
      *reinterpret_cast<uint4*>(s + r * lds + q) = v;
    }
  } else {
    for (int e = static_cast<int>(threadIdx.x); e < Rows * Cols; e += Threads) {
      const int r = e / Cols, q = e % Cols;
      const int row = row0 + r, col = col0 + q;
      s[r * lds + q] = row < rows_total && col < cols_total ? g[static_cast<size_t>(row) * ld + col] : __float2bfloat16(0.0f);
    }
  }
}

// ---- 1. WMMA: 16 x 16 x 16 fragments from shared memory ----------------------------------------
// The SIMT ladder's best rung issues one FMA per lane per cycle. nvcuda::wmma hands a warp's
// 16 x 16 x 16 product to the Tensor Cores in one call: 4096 multiply-adds. A 64 x 64 block
// tile, 4 warps of 32 x 32 (2 x 2 fragments each), K in slices of 32 through shared memory
// (rows padded by 8 elements: 16 bytes, keeping every fragment 32-byte aligned). The results go
// through shared memory to C, so that an edge tile stores only what lies inside C. One slice
// at a time, loaded by the threads themselves: every slice waits for its loads.
constexpr int kWmmaBM = 64, kWmmaBN = 64, kWmmaBK = 32, kWmmaThreads = 128;

template <bool Vec>
__global__ void __launch_bounds__(kWmmaThreads) matmul_wmma(const bf16* __restrict__ a, const bf16* __restrict__ b,
                                                            float* __restrict__ c, int m, int n, int k) {
#ifdef MATMUL_TENSOR_CORES
  using namespace nvcuda;
  constexpr int kWmmaLda = kWmmaBK + 8, kWmmaLdb = kWmmaBN + 8, kWmmaLdc = kWmmaBN + 4;  // elements a row
  __shared__ __align__(32) bf16 as[kWmmaBM * kWmmaLda];
  __shared__ __align__(32) bf16 bs[kWmmaBK * kWmmaLdb];
  __shared__ __align__(32) float cs[kWmmaBM * kWmmaLdc];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int wm = warp / 2, wn = warp % 2;  // this warp's 32 x 32 quarter of the tile
  const int m0 = static_cast<int>(blockIdx.y) * kWmmaBM, n0 = static_cast<int>(blockIdx.x) * kWmmaBN;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
  for (auto& row : acc) {
    for (auto& f : row) wmma::fill_fragment(f, 0.0f);
  }
  for (int k0 = 0; k0 < k; k0 += kWmmaBK) {
    load_tile<kWmmaBM, kWmmaBK, kWmmaThreads, Vec>(as, kWmmaLda, a, k, m, k, m0, k0);
    load_tile<kWmmaBK, kWmmaBN, kWmmaThreads, Vec>(bs, kWmmaLdb, b, n, k, n, k0, n0);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kWmmaBK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> fb[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], as + (wm * 32 + i * 16) * kWmmaLda + kk, kWmmaLda);
#pragma unroll
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], bs + kk * kWmmaLdb + wn * 32 + j * 16, kWmmaLdb);
#pragma unroll
      for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
      }
    }
    __syncthreads();  // the slice is read before the next one overwrites it
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      wmma::store_matrix_sync(cs + (wm * 32 + i * 16) * kWmmaLdc + wn * 32 + j * 16, acc[i][j], kWmmaLdc,
                              wmma::mem_row_major);
    }
  }
  __syncthreads();
  for (int e = static_cast<int>(threadIdx.x); e < kWmmaBM * kWmmaBN; e += kWmmaThreads) {
    const int r = e / kWmmaBN, q = e % kWmmaBN;
    if (m0 + r < m && n0 + q < n) c[static_cast<size_t>(m0 + r) * n + n0 + q] = cs[r * kWmmaLdc + q];
  }
#else
  (void)a; (void)b; (void)c; (void)m; (void)n; (void)k;
#endif
}

// ---- 2. mma.sync fed by ldmatrix and a cp.async pipeline ---------------------------------------
// WMMA loads its fragments with ordinary shared-memory loads and waits for every slice. This
// rung issues the PTX instruction under WMMA itself, mma.sync.m16n8k16 (a 16 x 16 by 16 x 8
// product per warp), and loads its operands with ldmatrix: one instruction brings four 8 x 8
// BF16 matrices from shared memory straight into the fragment layout, each lane giving the
// address of one 16-byte row. Three layouts of shared memory (MmaLayout below): as it is
// (mma_sync_plain: bank conflicts), padded (mma_sync_padded) and XOR-swizzled
// (mma_sync_swizzled); Nsight's shared-memory wavefronts show the difference. A 128 x 128 block
// tile, 8 warps of
// 64 x 32 (4 x 4 mma tiles, 64 accumulators per thread), K in slices of 32 copied by cp.async
// into 3 stages, so two slices are in flight while the warps compute on a third.
// A block's tile and its warps: BM x BN of C, K in slices of BK, WM x WN warps (each a
// BM / WM x BN / WN piece), Stages slices in flight.
template <int BM_, int BN_, int BK_, int WM_, int WN_, int Stages_>
struct MmaTile {
  static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, stages = Stages_;
  static constexpr int threads = 32 * WM * WN, warp_m = BM / WM, warp_n = BN / WN;
  static constexpr int mi = warp_m / 16, nj = warp_n / 8;  // mma tiles of a warp
  static_assert(warp_m % 16 == 0 && warp_n % 16 == 0 && BK % 16 == 0, "whole mma tiles");
  static_assert(mi * 16 == warp_m && nj * 8 == warp_n, "a warp's piece of C is mi x nj mma tiles");
};
using MmaBase = MmaTile<128, 128, 32, 2, 4, 3>;  // the three layout rungs: 8 warps of 64 x 32
// mma_sync_wide: twice the C tile (128 x 256) for the same 8 warps, each 64 x 64 (32 mma tiles
// and 8 ldmatrix per k step where the layout rungs have 16 and 6), K slices of 64 (half the
// barriers), 3 stages (144 KB). Of ten tiles timed at 8192^3 on the H200 (BM, BN 64-256, BK 32
// or 64, 4 or 8 warps, 3 or 4 stages: 230-291 TFLOP/s) the K slices of 64 were the ones that
// moved (288 and 291); the wider tile alone with K slices of 32 ran at 245.
using MmaWide = MmaTile<128, 256, 64, 2, 4, 3>;
// mma_sync_pipelined: the same tile, software-pipelined (matmul_mma_pipelined below).
using MmaPipe = MmaWide;
constexpr int kPipeMinBlocks = 1, kPipeGroupRows = 16;
// The shared-memory layout of a stage, where element (r, c) of A's BM x BK slice and of B's
// BK x BN slice goes. ldmatrix reads 8 rows x 16 bytes (one 16-byte chunk of each row) at a
// time; the layout decides how many passes that takes.
//   kPlain    rows as they are: A's rows 64 bytes apart put rows r and r + 2 in the same banks
//             (4-way for each ldmatrix of A), B's rows 256 bytes apart all in the same (8-way);
//   kPadded   every row 16 bytes longer (A 80 bytes, B 272): the 8 rows in 8 different 4-bank
//             groups, for 8 % more shared memory;
//   kSwizzled rows as they are, but chunk j of row r stored at chunk j XOR f(r) (a row of 4
//             chunks: (r / 2) % 4; of 8 or more: r % 8): the 8 rows of a read land in 8
//             different chunks of the banks, with no byte of padding.
enum MmaLayoutKind { kPlain, kPadded, kSwizzled };
template <int Layout, typename T = MmaBase>
struct MmaLayout {
  static constexpr int lda = T::BK + (Layout == kPadded ? 8 : 0), ldb = T::BN + (Layout == kPadded ? 8 : 0);
  static constexpr int stage_elems = T::BM * lda + T::BK * ldb;
  static constexpr int smem_bytes = T::stages * stage_elems * static_cast<int>(sizeof(bf16));
  __host__ __device__ static constexpr int swizzle(int chunks, int r) { return chunks >= 8 ? r % 8 : (r / 2) % 4; }
  // Element offsets of A's (r, c) and B's (r, c) within their parts of a stage.
  __host__ __device__ static constexpr int a(int r, int c) {
    return r * lda + (Layout == kSwizzled ? ((c / 8) ^ swizzle(T::BK / 8, r)) * 8 + c % 8 : c);
  }
  __host__ __device__ static constexpr int b(int r, int c) {
    return r * ldb + (Layout == kSwizzled ? ((c / 8) ^ swizzle(T::BN / 8, r)) * 8 + c % 8 : c);
  }
};

#ifdef MATMUL_TENSOR_CORES
using cudalab::ldmatrix_x4;
using cudalab::ldmatrix_x4_at;
using cudalab::ldmatrix_x4_trans;
using cudalab::ldmatrix_x4_trans_at;
using cudalab::mma_bf16;
using cudalab::smem_address;

// One slice (A: 128 x 32, B: 32 x 128) into a stage at the layout's places: cp.async, 16 bytes a
// piece and zeros outside the matrices (Vec); otherwise one element at a time.
template <bool Vec, int Layout, typename T>
__device__ __forceinline__ void load_slice(bf16* stage, const bf16* __restrict__ a, const bf16* __restrict__ b, int m,
                                           int n, int k, int m0, int n0, int k0) {
  using L = MmaLayout<Layout, T>;
  bf16* as = stage;
  bf16* bs = stage + T::BM * L::lda;
  if constexpr (Vec) {
    for (int p = static_cast<int>(threadIdx.x); p < T::BM * T::BK / 8; p += T::threads) {
      const int r = p / (T::BK / 8), q = (p % (T::BK / 8)) * 8;
      const bool in = m0 + r < m && k0 + q < k;
      cp_async16(as + L::a(r, q), in ? a + static_cast<size_t>(m0 + r) * k + k0 + q : a, in);
    }
    for (int p = static_cast<int>(threadIdx.x); p < T::BK * T::BN / 8; p += T::threads) {
      const int r = p / (T::BN / 8), q = (p % (T::BN / 8)) * 8;
      const bool in = k0 + r < k && n0 + q < n;
      cp_async16(bs + L::b(r, q), in ? b + static_cast<size_t>(k0 + r) * n + n0 + q : b, in);
    }
  } else {
    const bf16 zero = __float2bfloat16(0.0f);
    for (int e = static_cast<int>(threadIdx.x); e < T::BM * T::BK; e += T::threads) {
      const int r = e / T::BK, q = e % T::BK;
      as[L::a(r, q)] = m0 + r < m && k0 + q < k ? a[static_cast<size_t>(m0 + r) * k + k0 + q] : zero;
    }
    for (int e = static_cast<int>(threadIdx.x); e < T::BK * T::BN; e += T::threads) {
      const int r = e / T::BN, q = e % T::BN;
      bs[L::b(r, q)] = k0 + r < k && n0 + q < n ? b[static_cast<size_t>(k0 + r) * n + n0 + q] : zero;
    }
  }
}
#endif

#ifdef MATMUL_TENSOR_CORES
// A warp's accumulators into C: thread (g = lane / 4, q = lane % 4) holds rows g and g + 8,
// columns 2q and 2q + 1 of each 16 x 8 tile; only what lies inside C is stored.
template <typename T>
__device__ __forceinline__ void store_accumulators(const float (&acc)[T::mi][T::nj][4], float* __restrict__ c, int m, int n,
                                                   int m0, int n0, int wm, int wn, int lane) {
  const int g = lane / 4, q = lane % 4;
#pragma unroll
  for (int mi = 0; mi < T::mi; ++mi) {
#pragma unroll
    for (int nj = 0; nj < T::nj; ++nj) {
      const int col = n0 + wn * T::warp_n + nj * 8 + 2 * q;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = m0 + wm * T::warp_m + mi * 16 + g + 8 * half;
        if (row >= m) continue;
        float* dst = c + static_cast<size_t>(row) * n + col;
        const float x = acc[mi][nj][2 * half], y = acc[mi][nj][2 * half + 1];
        if (col + 1 < n && n % 2 == 0) {
          *reinterpret_cast<float2*>(dst) = make_float2(x, y);
        } else {
          if (col < n) dst[0] = x;
          if (col + 1 < n) dst[1] = y;
        }
      }
    }
  }
}
#endif

template <bool Vec, int Layout, typename T>
__global__ void __launch_bounds__(T::threads) matmul_mma_sync(const bf16* __restrict__ a, const bf16* __restrict__ b,
                                                               float* __restrict__ c, int m, int n, int k) {
#ifdef MATMUL_TENSOR_CORES
  using L = MmaLayout<Layout, T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  bf16* smem = reinterpret_cast<bf16*>(smem_raw);
  const int lane = static_cast<int>(threadIdx.x) % 32, warp = static_cast<int>(threadIdx.x) / 32;
  const int wm = warp / T::WN, wn = warp % T::WN;  // this warp's piece of the tile
  const int m0 = static_cast<int>(blockIdx.y) * T::BM, n0 = static_cast<int>(blockIdx.x) * T::BN;
  const int slices = (k + T::BK - 1) / T::BK;
  float acc[T::mi][T::nj][4] = {};

  // Prologue: the first Stages - 1 slices in flight (a group is committed even when empty, so
  // that wait_group counts the same in every iteration).
#pragma unroll
  for (int s = 0; s < T::stages - 1; ++s) {
    if (s < slices) load_slice<Vec, Layout, T>(smem + s * L::stage_elems, a, b, m, n, k, m0, n0, s * T::BK);
    cp_async_commit();
  }
  for (int t = 0; t < slices; ++t) {
    cp_async_wait<T::stages - 2>();
    __syncthreads();  // slice t has landed for every thread, and slice t - 1 is no longer read
    const int next = t + T::stages - 1;
    if (next < slices) {
      load_slice<Vec, Layout, T>(smem + (next % T::stages) * L::stage_elems, a, b, m, n, k, m0, n0, next * T::BK);
    }
    cp_async_commit();

    const bf16* as = smem + (t % T::stages) * L::stage_elems;
    const bf16* bs = as + T::BM * L::lda;
#pragma unroll
    for (int ks = 0; ks < T::BK; ks += 16) {
      unsigned fa[T::mi][4], fb[T::nj][2];
#pragma unroll
      for (int mi = 0; mi < T::mi; ++mi) {
        // Lanes 0-15 give rows 0-15 at column ks, lanes 16-31 the same rows at ks + 8: the four
        // matrices are a0 (rows 0-7, k 0-7), a1 (rows 8-15), a2 and a3 (k 8-15).
        ldmatrix_x4(fa[mi], as + L::a(wm * T::warp_m + mi * 16 + lane % 16, ks + (lane / 16) * 8));
      }
#pragma unroll
      for (int pair = 0; pair < T::nj / 2; ++pair) {
        // B's slice is stored a row of k at a time (n contiguous); .trans hands each lane the
        // column-major fragment mma wants. Lanes 0-15 give k rows 0-15 at column n, lanes 16-31
        // the same rows at n + 8: b0 and b1 of two 8-column tiles.
        unsigned r[4];
        ldmatrix_x4_trans(r, bs + L::b(ks + lane % 16, wn * T::warp_n + pair * 16 + (lane / 16) * 8));
        fb[2 * pair][0] = r[0];
        fb[2 * pair][1] = r[1];
        fb[2 * pair + 1][0] = r[2];
        fb[2 * pair + 1][1] = r[3];
      }
#pragma unroll
      for (int mi = 0; mi < T::mi; ++mi) {
#pragma unroll
        for (int nj = 0; nj < T::nj; ++nj) mma_bf16(acc[mi][nj], fa[mi], fb[nj][0], fb[nj][1]);
      }
    }
  }
  cp_async_wait<0>();

  store_accumulators<T>(acc, c, m, n, m0, n0, wm, wn, lane);
#else
  (void)a; (void)b; (void)c; (void)m; (void)n; (void)k;
#endif
}

// ---- 3. mma.sync, software-pipelined ------------------------------------------------------------
// mma_sync_wide keeps the tensor pipe busy less than half the time (Nsight: 45 %) with 8 warps
// per SM, two per scheduler: 64 x 64 tiles of FP32 accumulators take 128 registers a thread, so
// no more warps fit, and each warp's own instructions come in phases: its 8 ldmatrix, then its
// 32 mma waiting on them, and at every slice all 8 warps meet at the barrier. This rung keeps
// the same tile and layout and overlaps the phases inside each warp (the way CUTLASS's
// multistage main loop does):
//   - two sets of fragments: the ldmatrix of step s + 1 are issued before the mma of step s,
//     so the mma never waits on shared memory (the next slice's first step is loaded across the
//     barrier, from the stage that has just landed);
//   - the addresses are worked out once: a thread's ldmatrix and cp.async offsets do not depend
//     on the slice, only its stage does (one add), and its row and column predicates are fixed;
//   - the tiles go out in grouped order (tile_order.cuh), so the blocks in flight share their
//     panels of A and B in L2.
// Each change was timed on its own at 8192^3 (docs/reports/tune-mma-pipelined-h200.txt holds the
// numbers): the addresses worked out once and the two fragment sets are what paid; the grouped
// order trims DRAM reads without a change measurable there, and spreading the copies between the
// mma (as CUTLASS does) was no faster, so they go at once.
// The 16-byte path only (K and N multiples of 8, A and B 16-byte aligned); otherwise launch()
// runs mma_sync_wide's element-by-element kernel.
template <typename T, int MinBlocks, int GroupRows>
__global__ void __launch_bounds__(T::threads, MinBlocks)
    matmul_mma_pipelined(const bf16* __restrict__ a, const bf16* __restrict__ b, float* __restrict__ c, int m, int n,
                         int k) {
#ifdef MATMUL_TENSOR_CORES
  using L = MmaLayout<kSwizzled, T>;
  constexpr int kSteps = T::BK / 16;                                    // k16 steps per slice
  constexpr int kStageBytes = L::stage_elems * static_cast<int>(sizeof(bf16));
  constexpr int kBBytes = T::BM * L::lda * static_cast<int>(sizeof(bf16));  // where B starts in a stage
  constexpr int kAChunks = T::BK / 8, kBChunks = T::BN / 8;             // 16-byte chunks of a row
  constexpr int kARowStep = T::threads / kAChunks, kBRowStep = T::threads / kBChunks;
  constexpr int kAPieces = T::BM / kARowStep, kBPieces = T::BK / kBRowStep, kPieces = kAPieces + kBPieces;
  static_assert(kSteps % 2 == 0 && kSteps >= 2, "an even number of k16 steps per slice (the fragment sets alternate)");
  static_assert(T::threads % kAChunks == 0 && T::threads % kBChunks == 0, "whole rows of chunks per pass");
  static_assert(kARowStep % 8 == 0 && kBRowStep % 8 == 0, "a thread's rows share their swizzle");
  static_assert(T::BM % kARowStep == 0 && T::BK % kBRowStep == 0, "whole passes");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const unsigned smem0 = smem_address(smem_raw);
  const int tid = static_cast<int>(threadIdx.x), lane = tid % 32, warp = tid / 32;
  const int wm = warp / T::WN, wn = warp % T::WN;
  const int2 tile = grouped_tile(GroupRows);
  const int m0 = tile.y * T::BM, n0 = tile.x * T::BN;
  const int slices = (k + T::BK - 1) / T::BK;

  // ldmatrix: byte offsets within a stage. A's rows 16 apart share their swizzle, so the mma
  // tiles of a warp differ by a constant; the k step and B's 16-column pairs change the XOR.
  unsigned a_ld[kSteps], b_ld[T::nj / 2];
#pragma unroll
  for (int s = 0; s < kSteps; ++s) a_ld[s] = 2u * L::a(wm * T::warp_m + lane % 16, s * 16 + (lane / 16) * 8);
#pragma unroll
  for (int p = 0; p < T::nj / 2; ++p) b_ld[p] = kBBytes + 2u * L::b(lane % 16, wn * T::warp_n + p * 16 + (lane / 16) * 8);

  // cp.async: piece i of A is row ar + i * kARowStep, chunk column aq; of B row br + i * kBRowStep.
  const int ar = tid / kAChunks, aq = (tid % kAChunks) * 8, br = tid / kBChunks, bq = (tid % kBChunks) * 8;
  const unsigned a_st = 2u * L::a(ar, aq), b_st = kBBytes + 2u * L::b(br, bq);
  const bf16* ga = a + static_cast<size_t>(min(m0 + ar, m - 1)) * k + aq;
  const bf16* gb = b + static_cast<size_t>(br) * n + min(n0 + bq, n - 8);
  unsigned a_rows_in = 0;  // bit i: piece i's row of A lies inside A
#pragma unroll
  for (int i = 0; i < kAPieces; ++i) a_rows_in |= (m0 + ar + i * kARowStep < m ? 1u : 0u) << i;
  const bool b_col_in = n0 + bq < n;

  // Piece `i` of slice `t` into stage `stage` (a byte address): zeros outside A and B.
  const auto copy_piece = [&](int i, int t, unsigned stage) {
    const int k0 = t * T::BK;
    if (i < kAPieces) {
      const bool in = ((a_rows_in >> i) & 1u) && k0 + aq < k;
      const bf16* src = ga + static_cast<size_t>(i) * kARowStep * k + k0;
      cp_async16_at(stage + a_st + i * kARowStep * L::lda * 2, in ? src : a, in);
    } else {
      const int j = i - kAPieces;
      const bool in = b_col_in && k0 + br + j * kBRowStep < k;
      const bf16* src = gb + static_cast<size_t>(k0 + j * kBRowStep) * n;
      cp_async16_at(stage + b_st + j * kBRowStep * L::ldb * 2, in ? src : b, in);
    }
  };
  unsigned fa[2][T::mi][4], fb[2][T::nj][2];
  const auto load_fragments = [&](int set, unsigned stage, int s) {
#pragma unroll
    for (int mi = 0; mi < T::mi; ++mi) ldmatrix_x4_at(fa[set][mi], stage + a_ld[s] + mi * 16 * L::lda * 2);
#pragma unroll
    for (int p = 0; p < T::nj / 2; ++p) {
      unsigned r[4];
      ldmatrix_x4_trans_at(r, stage + b_ld[p] + s * 16 * L::ldb * 2);
      fb[set][2 * p][0] = r[0];
      fb[set][2 * p][1] = r[1];
      fb[set][2 * p + 1][0] = r[2];
      fb[set][2 * p + 1][1] = r[3];
    }
  };
  float acc[T::mi][T::nj][4] = {};

#pragma unroll
  for (int s = 0; s < T::stages - 1; ++s) {
    if (s < slices) {
#pragma unroll
      for (int i = 0; i < kPieces; ++i) copy_piece(i, s, smem0 + s * kStageBytes);
    }
    cp_async_commit();
  }
  cp_async_wait<T::stages - 2>();
  __syncthreads();
  load_fragments(0, smem0, 0);

  int read = 0, write = T::stages - 1;  // the stages of slice t and of slice t + stages - 1
  for (int t = 0; t < slices; ++t) {
    const unsigned cur = smem0 + read * kStageBytes, out = smem0 + write * kStageBytes;
    const bool copy = t + T::stages - 1 < slices;
#pragma unroll
    for (int s = 0; s < kSteps; ++s) {
      if (s == kSteps - 1) {
        // Slice t + 1 has landed for every thread, and every thread has loaded its last
        // fragments of slice t (this step's, during the step before): the next slice's copies
        // may refill slice t's stage once every thread is past this barrier.
        cp_async_wait<T::stages - 2>();
        __syncthreads();
        read = read + 1 == T::stages ? 0 : read + 1;
        write = write + 1 == T::stages ? 0 : write + 1;
        if (t + 1 < slices) load_fragments(0, smem0 + read * kStageBytes, 0);
      } else {
        load_fragments((s + 1) % 2, cur, s + 1);
      }
      if (s == 0) {  // slice t + stages - 1 into slice t - 1's stage, freed at the last barrier
        if (copy) {
#pragma unroll
          for (int i = 0; i < kPieces; ++i) copy_piece(i, t + T::stages - 1, out);
        }
        cp_async_commit();
      }
#pragma unroll
      for (int mi = 0; mi < T::mi; ++mi) {
#pragma unroll
        for (int nj = 0; nj < T::nj; ++nj) {
          // Serpentine over the columns: consecutive mma share an operand.
          const int j = mi % 2 ? T::nj - 1 - nj : nj;
          mma_bf16(acc[mi][j], fa[s % 2][mi], fb[s % 2][j][0], fb[s % 2][j][1]);
        }
      }
    }
  }
  cp_async_wait<0>();
  store_accumulators<T>(acc, c, m, n, m0, n0, wm, wn, lane);
#else
  (void)a; (void)b; (void)c; (void)m; (void)n; (void)k;
#endif
}

// ---- the table ---------------------------------------------------------------------------------

struct Problem {
  const bf16* a;
  const bf16* b;
  float* c;
  int m, n, k;
  bool vec;
  cudaStream_t stream;
};

dim3 grid_for(const Shape& s, int m, int n) {
  return dim3(static_cast<unsigned>(cudalab::ceil_div(n, s.block_n)), static_cast<unsigned>(cudalab::ceil_div(m, s.block_m)));
}

void launch_wgmma_tma(const Problem& p) {
  hopper::launch_tma(reinterpret_cast<const std::uint16_t*>(p.a), reinterpret_cast<const std::uint16_t*>(p.b), p.c, p.m, p.n,
                     p.k, p.stream);
}
void launch_wgmma_ws(const Problem& p) {
  hopper::launch_warp_specialized(reinterpret_cast<const std::uint16_t*>(p.a), reinterpret_cast<const std::uint16_t*>(p.b),
                                  p.c, p.m, p.n, p.k, p.stream);
}

void launch_wgmma_grouped(const Problem& p) {
  hopper::launch_warp_specialized_grouped(reinterpret_cast<const std::uint16_t*>(p.a),
                                          reinterpret_cast<const std::uint16_t*>(p.b), p.c, p.m, p.n, p.k, p.stream);
}

void launch_wgmma_persistent(const Problem& p) {
  hopper::launch_persistent(reinterpret_cast<const std::uint16_t*>(p.a), reinterpret_cast<const std::uint16_t*>(p.b), p.c,
                            p.m, p.n, p.k, p.stream);
}

void launch_wgmma_tma_store(const Problem& p) {
  hopper::launch_tma_store(reinterpret_cast<const std::uint16_t*>(p.a), reinterpret_cast<const std::uint16_t*>(p.b), p.c,
                           p.m, p.n, p.k, p.stream);
}

void launch_wgmma_stream_k(const Problem& p) {
  hopper::launch_stream_k(reinterpret_cast<const std::uint16_t*>(p.a), reinterpret_cast<const std::uint16_t*>(p.b), p.c,
                          p.m, p.n, p.k, p.stream);
}

void launch_wgmma_cluster(const Problem& p) {
  hopper::launch_cluster(reinterpret_cast<const std::uint16_t*>(p.a), reinterpret_cast<const std::uint16_t*>(p.b), p.c,
                         p.m, p.n, p.k, p.stream);
}

void launch_wmma(const Problem& p) {
  const Shape s{kWmmaBM, kWmmaBN, kWmmaBK, kWmmaThreads, 1};
  if (p.vec) {
    matmul_wmma<true><<<grid_for(s, p.m, p.n), s.threads, 0, p.stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
  } else {
    matmul_wmma<false><<<grid_for(s, p.m, p.n), s.threads, 0, p.stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
  }
}

template <bool Vec, int Layout, typename T>
void launch_mma_sync_of(const Problem& p) {
  constexpr int bytes = MmaLayout<Layout, T>::smem_bytes;
  cudalab::allow_dynamic_shared_memory(matmul_mma_sync<Vec, Layout, T>, bytes);  // > 48 KB
  const Shape s{T::BM, T::BN, T::BK, T::threads, T::stages};
  matmul_mma_sync<Vec, Layout, T><<<grid_for(s, p.m, p.n), s.threads, bytes, p.stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
}

void launch_mma_pipelined(const Problem& p) {
  if (!p.vec) {  // the one-element copies: mma_sync_wide's kernel
    launch_mma_sync_of<false, kSwizzled, MmaPipe>(p);
    return;
  }
  constexpr auto kernel = matmul_mma_pipelined<MmaPipe, kPipeMinBlocks, kPipeGroupRows>;
  constexpr int bytes = MmaLayout<kSwizzled, MmaPipe>::smem_bytes;
  cudalab::allow_dynamic_shared_memory(kernel, bytes);
  const Shape s{MmaPipe::BM, MmaPipe::BN, MmaPipe::BK, MmaPipe::threads, MmaPipe::stages};
  kernel<<<grid_for(s, p.m, p.n), s.threads, bytes, p.stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
}

template <int Layout, typename T = MmaBase>
void launch_mma_sync(const Problem& p) {
  if (p.vec) {
    launch_mma_sync_of<true, Layout, T>(p);
  } else {
    launch_mma_sync_of<false, Layout, T>(p);
  }
}

// Every 8 x 8 matrix read ldmatrix makes of a slice: 8 rows from a multiple of 8, one 16-byte
// chunk column; the worst conflict degree over all of them, and whether the layout is one to one.
template <int Layout, typename T = MmaBase>
LayoutCheck check_layout() {
  using L = MmaLayout<Layout, T>;
  const auto worst = [](int rows, int cols, auto offset) {
    int passes = 0;
    for (int r0 = 0; r0 < rows; r0 += 8) {
      for (int c = 0; c < cols; c += 8) {
        std::vector<std::size_t> bytes;
        for (int r = r0; r < r0 + 8; ++r) {
          for (int w = 0; w < 4; ++w) bytes.push_back(static_cast<std::size_t>(offset(r, c)) * sizeof(bf16) + 4 * w);
        }
        passes = std::max(passes, cudalab::conflict_degree(bytes));
      }
    }
    return passes;
  };
  const auto one_to_one = [](int rows, int cols, int size, auto offset) {
    std::vector<bool> used(static_cast<std::size_t>(size), false);
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) {
        const int o = offset(r, c);
        if (o < 0 || o >= size || used[static_cast<std::size_t>(o)]) return false;
        used[static_cast<std::size_t>(o)] = true;
      }
    }
    return true;
  };
  LayoutCheck out;
  out.a_passes = worst(T::BM, T::BK, [](int r, int c) { return L::a(r, c); });
  out.b_passes = worst(T::BK, T::BN, [](int r, int c) { return L::b(r, c); });
  out.a_one_to_one = one_to_one(T::BM, T::BK, T::BM * L::lda, [](int r, int c) { return L::a(r, c); });
  out.b_one_to_one = one_to_one(T::BK, T::BN, T::BK * L::ldb, [](int r, int c) { return L::b(r, c); });
  return out;
}

struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  void (*launch)(const Problem&);
  Shape shape;
  LayoutCheck (*layout)() = nullptr;  // the mma_sync rungs: the bank arithmetic of their shared tiles
  bool sm90a = false;                  // the Hopper rungs (wgmma.cu): compute capability 9.0 only
};

// The ladder, described once: a row is the whole variant.
const std::vector<Row>& ladder() {
  static const std::vector<Row> rows{
      {Variant::kWmma, "wmma", "nvcuda::wmma 16x16x16 fragments from shared memory, 64 x 64 block tile", launch_wmma,
       {kWmmaBM, kWmmaBN, kWmmaBK, kWmmaThreads, 1}},
      {Variant::kMmaSyncPlain, "mma_sync_plain",
       "mma.sync m16n8k16 fed by ldmatrix, 128 x 128 tile, 3 cp.async stages; rows as they are: bank conflicts",
       launch_mma_sync<kPlain>, {MmaBase::BM, MmaBase::BN, MmaBase::BK, MmaBase::threads, MmaBase::stages},
       check_layout<kPlain>},
      {Variant::kMmaSyncPadded, "mma_sync_padded", "the same with every row 16 bytes longer: ldmatrix conflict-free",
       launch_mma_sync<kPadded>, {MmaBase::BM, MmaBase::BN, MmaBase::BK, MmaBase::threads, MmaBase::stages},
       check_layout<kPadded>},
      {Variant::kMmaSyncSwizzled, "mma_sync_swizzled",
       "rows as they are, 16-byte chunks XOR-swizzled by row: conflict-free with no padding",
       launch_mma_sync<kSwizzled>, {MmaBase::BM, MmaBase::BN, MmaBase::BK, MmaBase::threads, MmaBase::stages},
       check_layout<kSwizzled>},
      {Variant::kMmaSyncWide, "mma_sync_wide",
       "swizzled, a 128 x 256 tile for the same 8 warps (64 x 64 each: 32 mma per 8 ldmatrix), K slices of 64, 3 stages",
       launch_mma_sync<kSwizzled, MmaWide>, {MmaWide::BM, MmaWide::BN, MmaWide::BK, MmaWide::threads, MmaWide::stages},
       check_layout<kSwizzled, MmaWide>},
      {Variant::kMmaSyncPipelined, "mma_sync_pipelined",
       "the wide tile software-pipelined: next step's ldmatrix before this step's mma (two fragment sets), "
       "addresses worked out once, grouped tile order",
       launch_mma_pipelined, {MmaPipe::BM, MmaPipe::BN, MmaPipe::BK, MmaPipe::threads, MmaPipe::stages},
       check_layout<kSwizzled, MmaPipe>},
      {Variant::kWgmmaTma, "wgmma_tma",
       "Hopper: TMA copies into 4 swizzled stages, wgmma.m64n128k16 from shared memory, one warpgroup (sm_90a)",
       launch_wgmma_tma, {hopper::kTmaBM, hopper::kTmaBN, hopper::kBK, hopper::kTmaThreads, hopper::kTmaStages}, nullptr, true},
      {Variant::kWgmmaWarpSpecialized, "wgmma_warp_specialized",
       "a producer warpgroup for TMA, two consumers of m64n256k16, full/empty mbarriers, setmaxnreg (sm_90a)",
       launch_wgmma_ws, {hopper::kWsBM, hopper::kWsBN, hopper::kBK, hopper::kWsThreads, hopper::kWsStages}, nullptr, true},
      {Variant::kWgmmaGrouped, "wgmma_grouped",
       "the warp-specialised kernel with its tiles handed out 8 tile rows at a time: the blocks in flight share "
       "panels of A and B in L2 (sm_90a)",
       launch_wgmma_grouped, {hopper::kWsBM, hopper::kWsBN, hopper::kBK, hopper::kWsThreads, hopper::kWsStages}, nullptr, true},
      {Variant::kWgmmaPersistent, "wgmma_persistent",
       "persistent: one block per SM walks the tiles in that grouped order, its stages and barriers running on "
       "from one tile to the next (sm_90a)",
       launch_wgmma_persistent, {hopper::kWsBM, hopper::kWsBN, hopper::kBK, hopper::kWsThreads, hopper::kWsStages}, nullptr, true},
      {Variant::kWgmmaTmaStore, "wgmma_tma_store",
       "the persistent kernel with C stored through shared memory by TMA (64 x 64 FP32 boxes), each store left "
       "to drain while the consumer starts its next tile (sm_90a)",
       launch_wgmma_tma_store, {hopper::kWsBM, hopper::kWsBN, hopper::kBK, hopper::kWsThreads, hopper::kWsStages}, nullptr, true},
      {Variant::kWgmmaStreamK, "wgmma_stream_k",
       "stream-K: whole tiles for the full rounds, then, when they would leave over half of the last round idle, "
       "the left-over tiles' k slices split evenly over every SM, partial tiles added through a workspace (sm_90a)",
       launch_wgmma_stream_k, {hopper::kWsBM, hopper::kWsBN, hopper::kBK, hopper::kWsThreads, hopper::kWsStages}, nullptr, true},
      {Variant::kWgmmaCluster, "wgmma_cluster",
       "wgmma_tma_store's blocks in clusters of two on tile rows 2r and 2r + 1: each brings its A and half of the "
       "B slice both need, and TMA multicasts that half into both (32 KB a slice from L2 instead of 48) (sm_90a)",
       launch_wgmma_cluster, {hopper::kWsBM, hopper::kWsBN, hopper::kBK, hopper::kWsThreads, hopper::kWsStages}, nullptr, true},
  };
  return rows;
}

const Row& row_of(Variant v) { return cudalab::row_of(ladder(), v, "matmul (Tensor Cores)"); }

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder())

Shape shape(Variant v) { return row_of(v).shape; }

LayoutCheck layout_check(Variant v) {
  const Row& r = row_of(v);
  if (!r.layout) throw std::invalid_argument("layout_check: " + variant_name(v) + " has no mma_sync layout");
  return r.layout();
}

std::string unavailable(Variant v) {
  if (row_of(v).sm90a) return hopper::unavailable();
  // the suite's per-device cache: launch() asks inside timed loops
  return cudalab::launch_limits().cc_major >= 8 ? "" : "BF16 Tensor Core instructions need sm_80 or later";
}

bool vector_path(const std::uint16_t* a, const std::uint16_t* b, int n, int k) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return n % 8 == 0 && k % 8 == 0 && aligned(a) && aligned(b);
}

void launch(Variant v, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("matmul::tensor::launch: M, N and K must be at least 1");
  const Row& row = row_of(v);
  if (const std::string why = unavailable(v); !why.empty()) throw std::runtime_error(std::string(row.name) + ": " + why);
  row.launch({reinterpret_cast<const bf16*>(a), reinterpret_cast<const bf16*>(b), c, m, n, k, vector_path(a, b, n, k), stream});
  CUDA_CHECK_LAUNCH(row.name);
}

}  // namespace matmul::tensor
