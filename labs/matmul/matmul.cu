// matmul: the kernels of the SIMT ladder, their table, and cuBLAS.
//
// Every kernel computes C = A * B for row-major A (m x k), B (k x n), C (m x n) at any size:
// a tile that hangs over an edge loads zeros where the matrices end and stores only inside C.
// Each rung says what the one before it wasted and what it changes.
#include "matmul.hpp"
#include "common/cp_async.cuh"
#include "tile_order.cuh"
#include "workspace.hpp"

#include <cublas_v2.h>

#include <cmath>
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "common/device_cache.hpp"
#include "common/cuda_check.hpp"
#include "common/device_facts.hpp"
#include "common/device_buffer.hpp"
#include "common/math.hpp"

namespace matmul {
namespace {

using std::size_t;

// ---- 1. naive: one thread per element of C --------------------------------------------------
// threadIdx.x walks the ROWS of C: the 32 threads of a warp read 32 rows of A (k floats apart:
// 32 transactions per load) and one element of B, and store down a column of C. 2 global loads
// per FMA, and nothing is reused in the SM: every operand comes from L2 or DRAM.
__global__ void matmul_naive(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                             int n, int k) {
  const int row = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int col = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p) acc = fmaf(a[static_cast<size_t>(row) * k + p], b[static_cast<size_t>(p) * n + col], acc);
  c[static_cast<size_t>(row) * n + col] = acc;
}

// ---- 2. coalesced: threadIdx.x walks the columns -------------------------------------------
// The same arithmetic with the mapping turned: a warp reads one element of A (a broadcast) and
// 32 consecutive floats of B (one 128-byte line), and stores a row segment of C. Still 2 loads
// per FMA; L1 now serves most of them.
__global__ void matmul_coalesced(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                                 int n, int k) {
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int row = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p) acc = fmaf(a[static_cast<size_t>(row) * k + p], b[static_cast<size_t>(p) * n + col], acc);
  c[static_cast<size_t>(row) * n + col] = acc;
}

// ---- 3. shared-memory tiles: T x T threads share a T x T tile of A and of B ------------------
// Each element brought into shared memory is used by T threads: global loads per FMA fall from
// 2 to 2 / T. The inner loop now reads shared memory: 2 shared loads per FMA, which limits it.
// The tiles also change what L2 must hold: a block reads a panel of T rows of A and one of T
// columns of B, and the blocks in flight at once (a few hundred) share them only if they are
// neighbours in C. grouped_tile() (tile_order.cuh) hands them out kGroupRows tile rows at a
// time, column by column: the blocks in flight cover a square of C whose panels fit in L2
// together, where row order would cover a band two tiles high and stream all of B from DRAM
// again for each band.
constexpr int kGroupRows = 16;

template <int T>
__global__ void __launch_bounds__(T* T) matmul_smem(const float* __restrict__ a, const float* __restrict__ b,
                                                     float* __restrict__ c, int m, int n, int k) {
  __shared__ float as[T][T];
  __shared__ float bs[T][T];
  const int2 tile = grouped_tile(kGroupRows);
  const int bx = tile.x, by = tile.y;
  // STUDENT-BEGIN(matmul.smem_tile): the shared-memory tile
  // TASK: Thread (tx, ty) computes C[row][col] of the block's tile (bx, by), given above in the
  // grouped order, with row = by * T + ty and col = bx * T + tx. Walk K in steps of T: each
  // step, the block loads the T x T tile of A at
  // (by * T, p0) and of B at (p0, bx * T) into as and bs, one element per thread
  // (as[ty][tx] = A[row][p0 + tx], bs[ty][tx] = B[p0 + ty][col]; 0 outside the matrices), waits for
  // the whole tile, adds the T products as[ty][q] * bs[q][tx], and waits again before the next
  // tile overwrites them. Store C[row][col] only inside C. Use size_t offsets.
  // HINT: about 15 lines; two __syncthreads() per step.
  // STUB: (void)a; (void)b; (void)c; (void)m; (void)n; (void)k; (void)as; (void)bs; (void)bx; (void)by;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int row = by * T + ty, col = bx * T + tx;
  float acc = 0.0f;
  for (int p0 = 0; p0 < k; p0 += T) {
    as[ty][tx] = row < m && p0 + tx < k ? a[static_cast<size_t>(row) * k + p0 + tx] : 0.0f;
    bs[ty][tx] = p0 + ty < k && col < n ? b[static_cast<size_t>(p0 + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < T; ++q) acc = fmaf(as[ty][q], bs[q][tx], acc);
    __syncthreads();
  }
  if (row < m && col < n) c[static_cast<size_t>(row) * n + col] = acc;
  // STUDENT-END(matmul.smem_tile)
}

// ---- the loaders of the block-tiled kernels ---------------------------------------------------
// The BM x BK tile of A at (row0, p0) and the BK x BN tile of B at (p0, col0), zeros outside the
// matrices. Vec: 16-byte loads (k and n multiples of 4, so a float4 is wholly in or out).
template <int BM, int BK, int Threads>
__device__ __forceinline__ void load_a(const float* __restrict__ a, float (*as)[BK], int m, int k, int row0, int p0) {
  for (int i = static_cast<int>(threadIdx.x); i < BM * BK; i += Threads) {
    const int r = i / BK, q = i % BK;
    as[r][q] = row0 + r < m && p0 + q < k ? a[static_cast<size_t>(row0 + r) * k + p0 + q] : 0.0f;
  }
}
template <int BK, int BN, int Threads>
__device__ __forceinline__ void load_b(const float* __restrict__ b, float (*bs)[BN], int n, int k, int p0, int col0) {
  for (int i = static_cast<int>(threadIdx.x); i < BK * BN; i += Threads) {
    const int r = i / BN, q = i % BN;
    bs[r][q] = p0 + r < k && col0 + q < n ? b[static_cast<size_t>(p0 + r) * n + col0 + q] : 0.0f;
  }
}

// Four consecutive floats from `src`, of which the first `left` are inside the matrix (0 when
// the row is outside it): one 16-byte load when Vec (the row length is a multiple of 4, so the
// four are all in or all out), else one float at a time. Zeros for what lies outside.
template <bool Vec>
__device__ __forceinline__ float4 load4(const float* src, int left) {
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (left <= 0) return v;
  if constexpr (Vec) {
    v = *reinterpret_cast<const float4*>(src);
  } else {
    v.x = src[0];
    if (left > 1) v.y = src[1];
    if (left > 2) v.z = src[2];
    if (left > 3) v.w = src[3];
  }
  return v;
}

// A's tile stored transposed (ast[q * LDA + r]: the BM values of one k side by side, rows LDA
// floats apart), read from global memory 4 floats along k at a time. Two threads share each row
// of the tile (BK = 8): with LDA = BM their four stores land in the same banks (2-way); LDA = BM + 4
// moves the second thread's by 16 banks.
template <int BM, int BK, int LDA, int Threads, bool Vec>
__device__ __forceinline__ void load_a_transposed(const float* __restrict__ a, float* ast, int m, int k, int row0, int p0) {
  for (int g = static_cast<int>(threadIdx.x); g < BM * BK / 4; g += Threads) {
    const int r = g / (BK / 4), q = (g % (BK / 4)) * 4;
    const float* src = a + static_cast<size_t>(row0 + r) * k + p0 + q;
    const float4 v = load4<Vec>(src, row0 + r < m ? k - (p0 + q) : 0);
    ast[q * LDA + r] = v.x;
    ast[(q + 1) * LDA + r] = v.y;
    ast[(q + 2) * LDA + r] = v.z;
    ast[(q + 3) * LDA + r] = v.w;
  }
}
template <int BK, int BN, int Threads, bool Vec>
__device__ __forceinline__ void load_b_vec(const float* __restrict__ b, float (*bs)[BN], int n, int k, int p0, int col0) {
  for (int g = static_cast<int>(threadIdx.x); g < BK * BN / 4; g += Threads) {
    const int r = g / (BN / 4), q = (g % (BN / 4)) * 4;
    const float* src = b + static_cast<size_t>(p0 + r) * n + col0 + q;
    const float4 v = load4<Vec>(src, p0 + r < k ? n - (col0 + q) : 0);
    *reinterpret_cast<float4*>(&bs[r][q]) = v;
  }
}

// Four results of one row of C at (row, col..col+3): one 16-byte store when Vec (n % 4 == 0,
// so the four are all inside or all outside), else one at a time.
template <bool Vec>
__device__ __forceinline__ void store4(float* __restrict__ c, int m, int n, int row, int col, float x, float y, float z,
                                       float w) {
  if (row >= m) return;
  float* dst = c + static_cast<size_t>(row) * n + col;
  if constexpr (Vec) {
    if (col < n) *reinterpret_cast<float4*>(dst) = make_float4(x, y, z, w);
  } else {
    if (col < n) dst[0] = x;
    if (col + 1 < n) dst[1] = y;
    if (col + 2 < n) dst[2] = z;
    if (col + 3 < n) dst[3] = w;
  }
}

// ---- 4. 1D register tiling: each thread computes TM elements of a column of C ---------------
// A BM x BN block tile with BK-deep slices. A thread keeps TM accumulators and reuses each B
// value it reads from shared memory TM times: shared loads per FMA fall from 2 to 1 + 1/TM, and
// global loads per FMA are 1/BN + 1/BM.
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__(BM* BN / TM) matmul_reg1d(const float* __restrict__ a, const float* __restrict__ b,
                                                             float* __restrict__ c, int m, int n, int k) {
  constexpr int kThreads = BM * BN / TM;
  __shared__ float as[BM][BK];
  __shared__ float bs[BK][BN];
  const int tcol = static_cast<int>(threadIdx.x) % BN, trow = static_cast<int>(threadIdx.x) / BN;
  const int row0 = static_cast<int>(blockIdx.y) * BM, col0 = static_cast<int>(blockIdx.x) * BN;
  float acc[TM] = {};
  for (int p0 = 0; p0 < k; p0 += BK) {
    load_a<BM, BK, kThreads>(a, as, m, k, row0, p0);
    load_b<BK, BN, kThreads>(b, bs, n, k, p0, col0);
    __syncthreads();
#pragma unroll
    for (int q = 0; q < BK; ++q) {
      const float bq = bs[q][tcol];
#pragma unroll
      for (int i = 0; i < TM; ++i) acc[i] = fmaf(as[trow * TM + i][q], bq, acc[i]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + trow * TM + i, col = col0 + tcol;
    if (row < m && col < n) c[static_cast<size_t>(row) * n + col] = acc[i];
  }
}

// ---- 5. 2D register tiling: each thread computes a TM x TN block of C ------------------------
// Per k, a thread reads TM values of A and TN of B from shared memory into registers and does
// their TM x TN outer product: shared loads per FMA fall to 1/TN + 1/TM (1/4 at 8 x 8), global
// loads per FMA to 1/BN + 1/BM (1/64 at 128 x 128).
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(BM* BN / (TM * TN)) matmul_reg2d(const float* __restrict__ a, const float* __restrict__ b,
                                                                    float* __restrict__ c, int m, int n, int k) {
  constexpr int kThreads = BM * BN / (TM * TN);
  __shared__ float as[BM][BK];
  __shared__ float bs[BK][BN];
  // STUDENT-BEGIN(matmul.reg_tile_2d): the 2D register tile
  // TASK: The block computes the BM x BN tile of C at (row0, col0) = (blockIdx.y * BM,
  // blockIdx.x * BN); thread t owns the TM x TN block at rows row0 + (t / (BN / TN)) * TM and
  // columns col0 + (t % (BN / TN)) * TN. Keep its TM x TN sums in a register array. For each
  // BK-deep slice of K: load_a / load_b fill as and bs (zeros outside the matrices); after a
  // barrier, for each q < BK read TM values as[..][q] and TN values bs[q][..] into two register
  // arrays and add their outer product; a barrier before the next slice. Store the block of C,
  // only the elements inside C.
  // HINT: about 30 lines; index register arrays only with unrolled (constant) indices.
  // STUB: (void)a; (void)b; (void)c; (void)m; (void)n; (void)k; (void)as; (void)bs; (void)kThreads;
  const int trow = static_cast<int>(threadIdx.x) / (BN / TN), tcol = static_cast<int>(threadIdx.x) % (BN / TN);
  const int row0 = static_cast<int>(blockIdx.y) * BM, col0 = static_cast<int>(blockIdx.x) * BN;
  float acc[TM][TN] = {};
  float ra[TM], rb[TN];
  for (int p0 = 0; p0 < k; p0 += BK) {
    load_a<BM, BK, kThreads>(a, as, m, k, row0, p0);
    load_b<BK, BN, kThreads>(b, bs, n, k, p0, col0);
    __syncthreads();
#pragma unroll
    for (int q = 0; q < BK; ++q) {
#pragma unroll
      for (int i = 0; i < TM; ++i) ra[i] = as[trow * TM + i][q];
#pragma unroll
      for (int j = 0; j < TN; ++j) rb[j] = bs[q][tcol * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int row = row0 + trow * TM + i, col = col0 + tcol * TN + j;
      if (row < m && col < n) c[static_cast<size_t>(row) * n + col] = acc[i][j];
    }
  }
  // STUDENT-END(matmul.reg_tile_2d)
}

// ---- 6. 16-byte loads, A transposed in shared memory ----------------------------------------
// The 2D register tile read A's column q one float per row (TM scalar shared loads, each
// thread's rows BK words apart) and loaded global memory one float at a time. Here global loads
// are float4, A's tile is stored transposed (ast[q][row]) so a thread's TM values of A are two
// float4 side by side, and B's TN values two float4 too: 4 shared loads per 64 FMAs. Threads of
// a warp read B 32 bytes apart (TN = 8 floats): two of them per bank group, a 2-way conflict
// that the warp tile removes.
template <int BM, int BN, int BK, bool Vec>
__global__ void __launch_bounds__(BM* BN / 64) matmul_vectorized(const float* __restrict__ a, const float* __restrict__ b,
                                                                  float* __restrict__ c, int m, int n, int k) {
  constexpr int TM = 8, TN = 8, kThreads = BM * BN / (TM * TN);
  __shared__ __align__(16) float ast[BK][BM];
  __shared__ __align__(16) float bs[BK][BN];
  const int trow = static_cast<int>(threadIdx.x) / (BN / TN), tcol = static_cast<int>(threadIdx.x) % (BN / TN);
  const int row0 = static_cast<int>(blockIdx.y) * BM, col0 = static_cast<int>(blockIdx.x) * BN;
  float acc[TM][TN] = {};
  for (int p0 = 0; p0 < k; p0 += BK) {
    load_a_transposed<BM, BK, BM, kThreads, Vec>(a, &ast[0][0], m, k, row0, p0);
    load_b_vec<BK, BN, kThreads, Vec>(b, bs, n, k, p0, col0);
    __syncthreads();
#pragma unroll
    for (int q = 0; q < BK; ++q) {
      const float4 a0 = *reinterpret_cast<const float4*>(&ast[q][trow * TM]);
      const float4 a1 = *reinterpret_cast<const float4*>(&ast[q][trow * TM + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&bs[q][tcol * TN]);
      const float4 b1 = *reinterpret_cast<const float4*>(&bs[q][tcol * TN + 4]);
      const float ra[TM] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
      const float rb[TN] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int i = 0; i < TM; ++i) {
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int row = row0 + trow * TM + i, col = col0 + tcol * TN;
    store4<Vec>(c, m, n, row, col, acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    store4<Vec>(c, m, n, row, col + 4, acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

// ---- the warp tile ---------------------------------------------------------------------------
// The block's BM x BN tile is split among its warps, WM x WN each; a warp's 32 lanes form 8 rows
// x 4 columns, and each lane computes (WM / 32) x (WN / 16) sub-blocks of 4 x 4, the sub-blocks
// 32 rows and 16 columns apart. Per k, lane (lr, lc) reads float4s at rows i * 32 + lr * 4 of A
// and columns j * 16 + lc * 4 of B: the warp's 8 (A) and 4 (B) distinct float4s are consecutive,
// one shared-memory wavefront each, every other lane served by broadcast.
template <int BM, int BN, int WM, int WN>
struct WarpTile {
  static constexpr int kWarpsN = BN / WN;
  static constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  static constexpr int kIterM = WM / 32, kIterN = WN / 16;  // 4 x 4 sub-blocks per lane
  int wm0, wn0, lr, lc;
  __device__ WarpTile() {
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    wm0 = (warp / kWarpsN) * WM;
    wn0 = (warp % kWarpsN) * WN;
    lr = lane / 4;
    lc = lane % 4;
  }
  // acc += the outer products of one BK slice: ast[BK][ldA] (A transposed), bs[BK][ldB].
  template <int BK>
  __device__ __forceinline__ void multiply(const float* ast, int lda, const float* bs, int ldb,
                                           float (&acc)[kIterM * 4][kIterN * 4]) const {
#pragma unroll
    for (int q = 0; q < BK; ++q) {
      float ra[kIterM * 4], rb[kIterN * 4];
#pragma unroll
      for (int i = 0; i < kIterM; ++i) {
        const float4 v = *reinterpret_cast<const float4*>(ast + q * lda + wm0 + i * 32 + lr * 4);
        ra[i * 4] = v.x;
        ra[i * 4 + 1] = v.y;
        ra[i * 4 + 2] = v.z;
        ra[i * 4 + 3] = v.w;
      }
#pragma unroll
      for (int j = 0; j < kIterN; ++j) {
        const float4 v = *reinterpret_cast<const float4*>(bs + q * ldb + wn0 + j * 16 + lc * 4);
        rb[j * 4] = v.x;
        rb[j * 4 + 1] = v.y;
        rb[j * 4 + 2] = v.z;
        rb[j * 4 + 3] = v.w;
      }
#pragma unroll
      for (int i = 0; i < kIterM * 4; ++i) {
#pragma unroll
        for (int j = 0; j < kIterN * 4; ++j) acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
      }
    }
  }
  template <bool Vec>
  __device__ __forceinline__ void store(float* __restrict__ c, int m, int n, int row0, int col0,
                                        const float (&acc)[kIterM * 4][kIterN * 4]) const {
#pragma unroll
    for (int i = 0; i < kIterM; ++i) {
#pragma unroll
      for (int ii = 0; ii < 4; ++ii) {
        const int row = row0 + wm0 + i * 32 + lr * 4 + ii;
#pragma unroll
        for (int j = 0; j < kIterN; ++j) {
          const int col = col0 + wn0 + j * 16 + lc * 4;
          const float* v = acc[i * 4 + ii] + j * 4;
          store4<Vec>(c, m, n, row, col, v[0], v[1], v[2], v[3]);
        }
      }
    }
  }
};

// ---- 7. warp tiling --------------------------------------------------------------------------
// The vectorized kernel's threads each own one contiguous 8 x 8 block, so a warp's B reads are
// 32 bytes apart (2-way conflicts) and its 32 threads cover an 8 x 128 strip that shares little.
// Here each warp owns a 64 x 32 warp tile and each lane four 4 x 4 sub-blocks spread over it:
// conflict-free float4 reads, and a warp's operands come from a compact 64 x 32 region.
template <int BM, int BN, int BK, int WM, int WN, bool Vec>
__global__ void __launch_bounds__(WarpTile<BM, BN, WM, WN>::kThreads)
    matmul_warptile(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n, int k) {
  using W = WarpTile<BM, BN, WM, WN>;
  constexpr int kLda = BM + 4;  // conflict-free transposed stores (load_a_transposed)
  __shared__ __align__(16) float ast[BK][kLda];
  __shared__ __align__(16) float bs[BK][BN];
  const W w;
  const int row0 = static_cast<int>(blockIdx.y) * BM, col0 = static_cast<int>(blockIdx.x) * BN;
  float acc[W::kIterM * 4][W::kIterN * 4] = {};
  for (int p0 = 0; p0 < k; p0 += BK) {
    load_a_transposed<BM, BK, kLda, W::kThreads, Vec>(a, &ast[0][0], m, k, row0, p0);
    load_b_vec<BK, BN, W::kThreads, Vec>(b, bs, n, k, p0, col0);
    __syncthreads();
    w.template multiply<BK>(&ast[0][0], kLda, &bs[0][0], BN, acc);
    __syncthreads();
  }
  w.template store<Vec>(c, m, n, row0, col0, acc);
}

// ---- 8. asynchronous copies into a multi-stage pipeline --------------------------------------
// The warp tile waits at every slice: load, barrier, compute, barrier, and while the slice loads
// no FMA issues (two resident blocks per SM hide part of it). cp.async (sm_80+) copies global
// memory into shared memory without passing through registers and without blocking the thread:
// the block keeps Stages - 1 slices in flight while it computes on the oldest. One barrier per
// slice. A's elements go to their transposed places 4 bytes at a time, B's 16 bytes at a time.
// (cp_async4, cp_async16, cp_async_commit, cp_async_wait: common/cp_async.cuh.)

// The copies one thread issues for each slice, worked out once: its rows, columns and shared-
// memory offsets do not change from slice to slice (only p0 moves along K), so the loop that
// issues a slice is the copies and a compare each, not the index arithmetic of a generic loop
// (which took as many issue slots as the FMAs at first).
//
// A's slice goes to ast[q * LDA + r] 4 bytes at a time. A warp takes 8 rows x 4 consecutive k
// (16 bytes of each row: 8 sectors per request) and, with LDA = BM + 8, its 32 stores land in 32
// different banks (bank = 8 q + r mod 32). B's slice goes to bs[r * BN + q] as it is, 16 bytes
// at a time (Vec) or 4.
template <int BM, int BN, int BK, int LDA, int Threads, bool Vec>
struct SliceCopier {
  static_assert(BK % 4 == 0 && BM % (Threads / 4) == 0, "A: rows of Threads / 4 per pass");
  static constexpr int kRowsA = Threads / 4, kPassesA = BM / kRowsA;
  static constexpr int kWidthB = Vec ? 4 : 1;                        // floats per copy of B
  static constexpr int kPerRowB = BN / kWidthB;                      // copies per row of B's slice
  static_assert(Threads % kPerRowB == 0 && BK % (Threads / kPerRowB) == 0, "B: whole rows per pass");
  static constexpr int kRowsB = Threads / kPerRowB, kCopiesB = BK / kRowsB;
  const float* a_src;  // A[row0 + ra][qa]: this thread's first copy, at p0 = 0
  const float* b_src;  // B[rb][col0 + qb]
  int ra, qa, rb, qb;
  unsigned a_rows_in;  // bit p: row ra + p * kRowsA is inside A
  bool b_col_in;       // the column(s) this thread copies are inside B
  size_t a_pass;       // floats between passes over A's rows: kRowsA * k
  int m, n, k;
  int k_end;  // this block's range of K ends here (split-K: before k)
  __device__ SliceCopier(const float* a, const float* b, int m_, int n_, int k_, int k_end_, int row0, int col0)
      : m(m_), n(n_), k(k_), k_end(k_end_) {
    const int t = static_cast<int>(threadIdx.x);
    ra = t / 4;
    qa = t % 4;
    rb = t / kPerRowB;
    qb = (t % kPerRowB) * kWidthB;
    a_rows_in = 0;
#pragma unroll
    for (int p = 0; p < kPassesA; ++p) a_rows_in |= (row0 + ra + p * kRowsA < m ? 1u : 0u) << p;
    b_col_in = col0 + qb < n;  // Vec: n % 4 == 0, so the four are all in or all out
    a_pass = static_cast<size_t>(kRowsA) * k;
    a_src = a + static_cast<size_t>(row0 + ra) * k + qa;
    b_src = b + static_cast<size_t>(rb) * n + col0 + qb;
  }
  __device__ __forceinline__ void issue(float* ast, float* bs, int p0) const {
    const bool full = p0 + BK <= k_end;  // every k of the slice in range: no per-copy test of k
#pragma unroll
    for (int g = 0; g < BK / 4; ++g) {
      const bool k_in = full || p0 + qa + 4 * g < k_end;
#pragma unroll
      for (int p = 0; p < kPassesA; ++p) {
        const bool valid = k_in && ((a_rows_in >> p) & 1u);
        const float* src = a_src + p * a_pass + p0 + 4 * g;
        cp_async4(ast + (qa + 4 * g) * LDA + ra + p * kRowsA, valid ? src : a_src, valid);
      }
    }
#pragma unroll
    for (int c = 0; c < kCopiesB; ++c) {
      const int r = rb + c * kRowsB;
      const bool valid = b_col_in && (full || p0 + r < k_end);
      const float* src = b_src + static_cast<size_t>(p0 + c * kRowsB) * n;
      if constexpr (Vec) {
        cp_async16(bs + r * BN + qb, valid ? src : b_src, valid);
      } else {
        cp_async4(bs + r * BN + qb, valid ? src : b_src, valid);
      }
    }
  }
};

template <int BM, int BN, int BK, int WM, int WN, int Stages>
struct AsyncShape {
  static constexpr int kLda = BM + 8;                   // A's transposed rows (SliceCopier)
  static constexpr int kSliceA = BK * kLda;             // floats of A in one stage
  static constexpr int kSlice = kSliceA + BK * BN;      // floats of one stage
  static constexpr int kSmemBytes = Stages * kSlice * static_cast<int>(sizeof(float));
};

// Split-K: when the C tiles are too few to fill the SMs (1025^3 in 128 x 128 tiles: 81 blocks for
// 132 SMs), gridDim.z blocks share each tile, block z summing the products of its own range of K
// (k_chunk wide) into its own copy of C in `partial` (m x n each); reduce_splits then adds the
// copies in order z = 0, 1, ... (the same bits on every run).
template <int BM, int BN, int BK, int WM, int WN, int Stages, bool Vec>
__global__ void __launch_bounds__(WarpTile<BM, BN, WM, WN>::kThreads)
    matmul_async(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m, int n, int k,
                 int k_chunk, float* __restrict__ partial) {
  using W = WarpTile<BM, BN, WM, WN>;
  using S = AsyncShape<BM, BN, BK, WM, WN, Stages>;
  extern __shared__ __align__(16) float smem[];
  const W w;
  const int row0 = static_cast<int>(blockIdx.y) * BM, col0 = static_cast<int>(blockIdx.x) * BN;
  const int k_begin = static_cast<int>(blockIdx.z) * k_chunk, k_end = min(k, k_begin + k_chunk);
  const SliceCopier<BM, BN, BK, S::kLda, W::kThreads, Vec> copier(a, b, m, n, k, k_end, row0, col0);
  const int slices = k_end > k_begin ? (k_end - k_begin + BK - 1) / BK : 0;
  float acc[W::kIterM * 4][W::kIterN * 4] = {};
#pragma unroll
  for (int s = 0; s < Stages - 1; ++s) {
    if (s < slices) copier.issue(smem + s * S::kSlice, smem + s * S::kSlice + S::kSliceA, k_begin + s * BK);
    cp_async_commit();  // an empty group when there is no slice: the count stays right
  }
  for (int t = 0; t < slices; ++t) {
    cp_async_wait<Stages - 2>();  // slice t has landed (for this thread's copies) ...
    __syncthreads();              // ... for every thread's; and every warp is done with slice t - 1
    const int next = t + Stages - 1;
    if (next < slices) {
      float* st = smem + (next % Stages) * S::kSlice;  // the stage slice t - 1 used
      copier.issue(st, st + S::kSliceA, k_begin + next * BK);
    }
    cp_async_commit();
    const float* cur = smem + (t % Stages) * S::kSlice;
    w.template multiply<BK>(cur, S::kLda, cur + S::kSliceA, BN, acc);
  }
  cp_async_wait<0>();
  float* out = gridDim.z > 1 ? partial + blockIdx.z * static_cast<size_t>(m) * n : c;
  w.template store<Vec>(out, m, n, row0, col0, acc);
}

// Adds the split-K copies of C's first `rows` x `cols` elements (the tiles' part of C: the whole
// of it unless a fringe is left to matmul_fringe). C and each copy are m x n, `ldc` floats a row.
__global__ void reduce_splits(const float* __restrict__ partial, int splits, float* __restrict__ c, int rows, int cols,
                              int ldc, size_t count) {
  const size_t area = static_cast<size_t>(rows) * cols;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < area;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t at = (i / cols) * ldc + i % cols;
    float sum = partial[at];
    for (int z = 1; z < splits; ++z) sum += partial[z * count + at];
    c[at] = sum;
  }
}

// ---- the fringe: C's last rows and columns, where a tile would hold little of C ----------------
// 1025 = 8 x 128 + 1: a ninth row and column of 128 x 128 tiles hold one row or column of C each
// but cost a whole tile (26 % more FMAs than the product, and blocks that upset the waves). With
// a fringe, the tiles cover C's first m0 = m - m % BM rows and n0 = n - n % BN columns, and this
// kernel the rest: rows m0 .. m - 1 of every column (the bottom strip), then columns n0 .. n - 1
// of rows 0 .. m0 - 1 (the right strip). One warp per element of C: its lanes split K (lane l
// takes p = l, l + 32, ...: A's row read coalesced), and shuffles add the 32 partial sums in a
// fixed order. Neighbouring warps take neighbouring columns of the bottom strip, so they read
// the same 32-byte sectors of B (L1 serves the repeats).
__global__ void matmul_fringe(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                              int n, int k, int m0, int n0) {
  const long long bottom = static_cast<long long>(m - m0) * n, right = static_cast<long long>(m0) * (n - n0);
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (warp >= bottom + right) return;  // the whole warp: the shuffles below see all 32 lanes
  int row, col;
  if (warp < bottom) {
    row = m0 + static_cast<int>(warp / n);
    col = static_cast<int>(warp % n);
  } else {
    const long long w = warp - bottom;
    row = static_cast<int>(w / (n - n0));
    col = n0 + static_cast<int>(w % (n - n0));
  }
  const float* ar = a + static_cast<size_t>(row) * k;
  float sum = 0.0f;
#pragma unroll 8
  for (int p = lane; p < k; p += 32) sum = fmaf(ar[p], b[static_cast<size_t>(p) * n + col], sum);
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) c[static_cast<size_t>(row) * n + col] = sum;
}

// ---- the table -------------------------------------------------------------------------------

struct Problem {
  const float* a;
  const float* b;
  float* c;
  int m, n, k;
  cudaStream_t stream;
  bool vec;  // the 16-byte path is allowed
};

unsigned blocks(int count, int tile) { return static_cast<unsigned>((count + tile - 1) / tile); }

void launch_naive(const Problem& p) {
  matmul_naive<<<dim3(blocks(p.m, 32), blocks(p.n, 8)), dim3(32, 8), 0, p.stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
}
void launch_coalesced(const Problem& p) {
  matmul_coalesced<<<dim3(blocks(p.n, 32), blocks(p.m, 8)), dim3(32, 8), 0, p.stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
}
template <int T>
void launch_smem(const Problem& p) {
  matmul_smem<T><<<dim3(blocks(p.n, T), blocks(p.m, T)), dim3(T, T), 0, p.stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
}
void launch_reg1d(const Problem& p) {
  matmul_reg1d<64, 64, 8, 8><<<dim3(blocks(p.n, 64), blocks(p.m, 64)), 64 * 64 / 8, 0, p.stream>>>(p.a, p.b, p.c, p.m,
                                                                                                  p.n, p.k);
}
void launch_reg2d(const Problem& p) {
  matmul_reg2d<128, 128, 8, 8, 8><<<dim3(blocks(p.n, 128), blocks(p.m, 128)), 256, 0, p.stream>>>(p.a, p.b, p.c, p.m,
                                                                                                 p.n, p.k);
}
void launch_vectorized(const Problem& p) {
  const dim3 grid(blocks(p.n, 128), blocks(p.m, 128));
  if (p.vec) {
    matmul_vectorized<128, 128, 8, true><<<grid, 256, 0, p.stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
  } else {
    matmul_vectorized<128, 128, 8, false><<<grid, 256, 0, p.stream>>>(p.a, p.b, p.c, p.m, p.n, p.k);
  }
}
constexpr int kWarpBM = 128, kWarpBN = 128, kWarpBK = 8, kWarpWM = 64, kWarpWN = 32;
void launch_warptile(const Problem& p) {
  const dim3 grid(blocks(p.n, kWarpBN), blocks(p.m, kWarpBM));
  constexpr int threads = WarpTile<kWarpBM, kWarpBN, kWarpWM, kWarpWN>::kThreads;
  if (p.vec) {
    matmul_warptile<kWarpBM, kWarpBN, kWarpBK, kWarpWM, kWarpWN, true><<<grid, threads, 0, p.stream>>>(p.a, p.b, p.c, p.m,
                                                                                                       p.n, p.k);
  } else {
    matmul_warptile<kWarpBM, kWarpBN, kWarpBK, kWarpWM, kWarpWN, false><<<grid, threads, 0, p.stream>>>(p.a, p.b, p.c,
                                                                                                        p.m, p.n, p.k);
  }
}
// The pipeline's tile is chosen per problem. A big tile reuses more (1/BM + 1/BN loads per
// FMA) but makes fewer blocks: at 1025^3 a 128 x 256 tile gives 45 blocks for 132 SMs. The model:
// the busiest SM runs ceil(blocks / SMs) blocks, each costing its tile's area x its depth of K
// over the share of the FP32 peak that tile reached at 4096^3 on the H200 (0.905, 0.878, 0.778,
// 0.666 of cuBLAS); splitting K into s parts makes s times the blocks, each 1/s as deep, and
// costs 5 % per extra part (the partial copies of C and the pass that adds them). The smallest
// predicted time wins. (Wave quantization: 289 blocks of 64 x 64 at 1025^3 are 3 rounds on the
// busiest SM where 2.2 would be even.)
struct AsyncConfig {
  int bm, bn;
  int threads;  // per block: one warp per WM x WN warp tile
  double efficiency;
  void (*launch)(const Problem&, bool vec, int k_chunk, int splits, float* partial, int rows, int cols);
  int (*per_sm)();  // blocks of this tiling an SM holds at once (registers, shared memory, threads)
};

// The tiles of C's first rows x cols elements (all of C, or all but a fringe).
template <int BM, int BN, int BK, int WM, int WN, int Stages, bool Vec>
void launch_async_as(const Problem& p, int k_chunk, int splits, float* partial, int rows, int cols) {
  using S = AsyncShape<BM, BN, BK, WM, WN, Stages>;
  auto kernel = matmul_async<BM, BN, BK, WM, WN, Stages, Vec>;
  cudalab::allow_dynamic_shared_memory(kernel, S::kSmemBytes);  // > 48 KB
  constexpr int threads = WarpTile<BM, BN, WM, WN>::kThreads;
  const dim3 grid(blocks(cols, BN), blocks(rows, BM), static_cast<unsigned>(splits));
  kernel<<<grid, threads, S::kSmemBytes, p.stream>>>(p.a, p.b, p.c, p.m, p.n, p.k, k_chunk, partial);
}
template <int BM, int BN, int BK, int WM, int WN, int Stages>
void launch_async_config(const Problem& p, bool vec, int k_chunk, int splits, float* partial, int rows, int cols) {
  static_assert(BK == 16 || BK == 32, "k_chunk is a multiple of 32");
  vec ? launch_async_as<BM, BN, BK, WM, WN, Stages, true>(p, k_chunk, splits, partial, rows, cols)
      : launch_async_as<BM, BN, BK, WM, WN, Stages, false>(p, k_chunk, splits, partial, rows, cols);
}

template <int BM, int BN, int BK, int WM, int WN, int Stages>
int async_per_sm() {
  using S = AsyncShape<BM, BN, BK, WM, WN, Stages>;
  return cudalab::resident_blocks(matmul_async<BM, BN, BK, WM, WN, Stages, true>, WarpTile<BM, BN, WM, WN>::kThreads,
                                  S::kSmemBytes);
}
// One tiling of async_pipeline: its C tile, threads, launcher and occupancy from the same template
// arguments.
template <int BM, int BN, int BK, int WM, int WN, int Stages>
AsyncConfig async_config(double efficiency) {
  return {BM, BN, WarpTile<BM, BN, WM, WN>::kThreads, efficiency, launch_async_config<BM, BN, BK, WM, WN, Stages>,
          async_per_sm<BM, BN, BK, WM, WN, Stages>};
}

const std::vector<AsyncConfig>& async_configs() {
  static const std::vector<AsyncConfig> configs{
      async_config<128, 256, 16, 64, 64, 3>(0.905),  // 8 warps of 64 x 64
      async_config<128, 128, 32, 64, 32, 2>(0.878),  // 8 warps of 64 x 32
      async_config<64, 128, 16, 32, 64, 3>(0.778),   // 4 warps of 32 x 64
      async_config<64, 64, 32, 32, 32, 2>(0.666),    // 4 warps of 32 x 32
  };
  return configs;
}

constexpr int kMaxSplits = 4, kMinSplitDepth = 256;  // split only while each part keeps 256 of K
// A fringe (matmul_fringe) is tried when C's last partial row and column of tiles would hold at
// most this many rows or columns of C; the model prices its FMAs at 2 % of the peak (one warp
// per element of C, bound by the latency of its loads).
constexpr int kMaxFringe = 8;
constexpr double kFringeEfficiency = 0.02;
// Where the plan leaves at most one block on each SM and the tiling fits two (the 128 x 128 tile:
// 127 registers a thread and 68 KB of stages), twice the K parts put 16 warps on each SM instead
// of 8 to cover the copies' latency. That pays while each part keeps this much of K: 1024 x 1024
// x 4096 (K in 4 parts of 1024 instead of 2 of 2048) 1.078 x on an H100; at 1025^3 (parts of 288
// instead of 544) it lost, 0.895 x: the pipeline's fill and the sum of four copies outweigh the
// latency hidden.
constexpr int kCoresidentDepth = 1024;

struct AsyncPlan {
  const AsyncConfig* config;
  int splits;
  int k_chunk;  // a multiple of 32 (both BKs divide it)
  bool fringe;  // the tiles cover C's first rows - rows % bm rows and cols - cols % bn columns
};

// K's part for each of `splits` blocks: a multiple of 32 (both BKs divide it).
int split_chunk(int k, int splits) { return static_cast<int>(cudalab::ceil_div(cudalab::ceil_div(k, splits), 32) * 32); }
// C's rows (or columns) the tiles cover: all of them, or all but a fringe.
int tiled(int extent, int tile, bool fringe) { return fringe ? extent - extent % tile : extent; }

// The model's time for one plan, in FMAs of the busiest SM over the efficiency it runs at.
double plan_time(const AsyncConfig& c, int splits, int chunk, bool fringe, int m, int n, int k, double sms) {
  const int rows = tiled(m, c.bm, fringe), cols = tiled(n, c.bn, fringe);
  const double count = static_cast<double>(blocks(rows, c.bm)) * blocks(cols, c.bn) * splits;
  double time = std::ceil(count / sms) * c.bm * c.bn * chunk / c.efficiency * (1.0 + 0.05 * (splits - 1));
  if (fringe) {
    const double elements = static_cast<double>(m) * n - static_cast<double>(rows) * cols;
    time += elements * k / sms / kFringeEfficiency;
  }
  return time;
}

AsyncPlan async_plan_for(int m, int n, int k) {
  const double sms = cudalab::launch_limits().sms;
  AsyncPlan best{nullptr, 1, k, false};
  double best_time = 0;
  for (const AsyncConfig& c : async_configs()) {
    const int rest_m = m % c.bm, rest_n = n % c.bn;
    const bool thin = m >= c.bm && n >= c.bn && (rest_m || rest_n) && rest_m <= kMaxFringe && rest_n <= kMaxFringe;
    for (int s = 1; s <= kMaxSplits; ++s) {
      if (s > 1 && k < s * kMinSplitDepth) break;
      const int chunk = split_chunk(k, s);
      for (const bool fringe : {false, true}) {
        if (fringe && !thin) continue;
        const double time = plan_time(c, s, chunk, fringe, m, n, k, sms);
        if (!best.config || time < best_time) {
          best = {&c, s, s == 1 ? k : chunk, fringe};
          best_time = time;
        }
      }
    }
  }
  // kCoresidentDepth: two blocks on each SM where the plan leaves one
  const AsyncConfig& c = *best.config;
  const double count =
      static_cast<double>(blocks(tiled(m, c.bm, best.fringe), c.bm)) * blocks(tiled(n, c.bn, best.fringe), c.bn) * best.splits;
  const int doubled = split_chunk(k, 2 * best.splits);
  if (2 * best.splits <= kMaxSplits && count <= sms && doubled >= kCoresidentDepth && c.per_sm() >= 2) {
    best.splits *= 2;
    best.k_chunk = doubled;
  }
  return best;
}

}  // namespace

void* workspace(Workspace use, std::size_t bytes) {
  struct Space {
    cudalab::DeviceBuffer<unsigned char>* buffer = nullptr;
  };
  static Space spaces[64][2];
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  Space& s = spaces[device % 64][use == Workspace::kSplitK ? 0 : 1];
  if (!s.buffer || s.buffer->size() < bytes) {
    delete s.buffer;
    s.buffer = new cudalab::DeviceBuffer<unsigned char>(bytes);
    s.buffer->fill_bytes(0);
  }
  return s.buffer->data();
}

namespace {

void run_plan(const AsyncPlan& plan, const Problem& p) {
  const std::size_t count = static_cast<std::size_t>(p.m) * static_cast<std::size_t>(p.n);
  const int rows = tiled(p.m, plan.config->bm, plan.fringe), cols = tiled(p.n, plan.config->bn, plan.fringe);
  if (rows > 0 && cols > 0) {
    float* partial = plan.splits > 1 ? static_cast<float*>(workspace(Workspace::kSplitK, count * plan.splits * sizeof(float)))
                                     : nullptr;
    plan.config->launch(p, p.vec, plan.k_chunk, plan.splits, partial, rows, cols);
    if (plan.splits > 1) {
      CUDA_CHECK_LAUNCH("async_pipeline");
      const std::size_t area = static_cast<std::size_t>(rows) * cols;
      const unsigned grid = static_cast<unsigned>(std::min<std::size_t>(cudalab::ceil_div(area, std::size_t{256}), 4096));
      reduce_splits<<<grid, 256, 0, p.stream>>>(partial, plan.splits, p.c, rows, cols, p.n, count);
    }
  }
  if (rows < p.m || cols < p.n) {
    CUDA_CHECK_LAUNCH("async_pipeline");
    const std::size_t warps = count - static_cast<std::size_t>(rows) * cols;
    matmul_fringe<<<static_cast<unsigned>(cudalab::ceil_div(warps, std::size_t{8})), 256, 0, p.stream>>>(
        p.a, p.b, p.c, p.m, p.n, p.k, rows, cols);
  }
}
void launch_async(const Problem& p) { run_plan(async_plan_for(p.m, p.n, p.k), p); }

struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  void (*launch)(const Problem&);
  Traits traits;
  bool has_vector_path;  // 16-byte loads when the operands allow
};

constexpr int kSmem(int floats) { return floats * static_cast<int>(sizeof(float)); }

// The ladder, described once. A row is the whole variant: name, what it changes, launcher, and
// the tiling's traits (C tile per block, threads, shared memory, global loads per FMA).
const std::vector<Row>& ladder() {
  static const std::vector<Row> rows{
      {Variant::kNaive, "naive", "one thread per element of C, threadIdx.x down the rows: uncoalesced", launch_naive,
       {1, 1, 256, 0}, false},
      {Variant::kCoalesced, "coalesced", "threadIdx.x along the columns: B and C coalesced, A broadcast",
       launch_coalesced, {1, 1, 256, 0}, false},
      {Variant::kSmem16, "smem16", "16 x 16 shared tiles of A and B: 2/16 global loads per FMA", launch_smem<16>,
       {16, 16, 256, kSmem(2 * 16 * 16)}, false},
      {Variant::kSmem32, "smem32", "32 x 32 shared tiles: 2/32 global loads per FMA", launch_smem<32>,
       {32, 32, 1024, kSmem(2 * 32 * 32)}, false},
      {Variant::kRegTile1d, "reg_tile_1d", "64 x 64 block tile, 8 results per thread down a column", launch_reg1d,
       {64, 64, 512, kSmem(64 * 8 + 8 * 64)}, false},
      {Variant::kRegTile2d, "reg_tile_2d", "128 x 128 block tile, an 8 x 8 outer product per thread", launch_reg2d,
       {128, 128, 256, kSmem(2 * 128 * 8)}, false},
      {Variant::kVectorized, "vectorized", "16-byte global and shared loads, A's tile transposed", launch_vectorized,
       {128, 128, 256, kSmem(2 * 128 * 8)}, true},
      {Variant::kWarpTile, "warp_tile", "64 x 32 warp tiles, 4 x 4 sub-blocks per lane: no bank conflicts",
       launch_warptile, {kWarpBM, kWarpBN, 256, kSmem(kWarpBK * (kWarpBM + 4 + kWarpBN))}, true},
      {Variant::kAsyncPipeline, "async_pipeline", "cp.async stages, one barrier per slice; the tile fits the problem",
       launch_async, {128, 256, 256, AsyncShape<128, 256, 16, 64, 64, 3>::kSmemBytes}, true},
  };
  return rows;
}

const Row& row_of(Variant v) { return cudalab::row_of(ladder(), v, "matmul"); }

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder())

const Traits& traits(Variant v) { return row_of(v).traits; }

std::vector<Tile> async_tiles() {
  std::vector<Tile> tiles;
  for (const AsyncConfig& c : async_configs()) {
    for (int s = 1; s <= kMaxSplits; s += 3) {  // 1 part and 4, with the whole of C in tiles and with a fringe
      tiles.push_back({c.bm, c.bn, s, false, c.threads});
      tiles.push_back({c.bm, c.bn, s, true, c.threads});
    }
  }
  return tiles;
}

void launch_async_tile(Tile t, const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("matmul: m, n and k must be at least 1");
  if (t.splits < 1 || t.splits > kMaxSplits) throw std::invalid_argument("matmul: 1 to 4 parts of K");
  for (const AsyncConfig& config : async_configs()) {
    if (config.bm == t.m && config.bn == t.n) {
      run_plan({&config, t.splits, t.splits == 1 ? k : split_chunk(k, t.splits), t.fringe},
               {a, b, c, m, n, k, stream, vector_path(Variant::kAsyncPipeline, a, b, c, n, k)});
      CUDA_CHECK_LAUNCH("async_pipeline");
      return;
    }
  }
  throw std::invalid_argument("matmul: async_pipeline has no such tile");
}

Tile tile(Variant v, int m, int n, int k) {
  if (v == Variant::kAsyncPipeline) {
    const AsyncPlan plan = async_plan_for(m, n, k);
    return {plan.config->bm, plan.config->bn, plan.splits, plan.fringe, plan.config->threads};
  }
  return {traits(v).block_m, traits(v).block_n, 1, false, traits(v).threads};
}

bool vector_path(Variant v, const float* a, const float* b, const float* c, int n, int k) {
  return row_of(v).has_vector_path && n % 4 == 0 && k % 4 == 0 && cudalab::is_aligned(a, 16) &&
         cudalab::is_aligned(b, 16) && cudalab::is_aligned(c, 16);
}

std::string fallback(Variant v) {
  if (v != Variant::kAsyncPipeline) return "";
  return cudalab::launch_limits().cc_major < 8 ? "cp.async needs sm_80: plain copies in the same pipeline" : "";
}

void launch(Variant v, const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("matmul: m, n and k must be at least 1");
  const Row& row = row_of(v);
  row.launch({a, b, c, m, n, k, stream, vector_path(v, a, b, c, n, k)});
  CUDA_CHECK_LAUNCH(row.name);
}

// ---- cuBLAS ----------------------------------------------------------------------------------

namespace {
void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuBLAS: ") + what + " failed: " + cublasGetStatusString(status));
  }
}
}  // namespace

Cublas::Cublas() {
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  handle_ = h;
  check_cublas(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");  // FP32: no TF32
}

Cublas::~Cublas() { cublasDestroy(static_cast<cublasHandle_t>(handle_)); }

void Cublas::sgemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream) {
  auto h = static_cast<cublasHandle_t>(handle_);
  check_cublas(cublasSetStream(h, stream), "cublasSetStream");
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T: cuBLAS sees B (n x k, ld n) times A (k x m, ld k).
  check_cublas(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n), "cublasSgemm");
}

void Cublas::gemm_bf16(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream) {
  auto h = static_cast<cublasHandle_t>(handle_);
  check_cublas(cublasSetStream(h, stream), "cublasSetStream");
  const float one = 1.0f, zero = 0.0f;
  // The handle stays pedantic for sgemm (no TF32); this call may use every Tensor Core path.
  check_cublas(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  const cublasStatus_t status = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, CUDA_R_16BF, n, a, CUDA_R_16BF,
                                             k, &zero, c, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  check_cublas(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
  check_cublas(status, "cublasGemmEx (BF16)");
}

}  // namespace matmul
