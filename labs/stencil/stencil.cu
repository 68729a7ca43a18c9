// stencil: the kernels of the three ladders (convolution, 2D heat, 3D heat).
//
// Napkin math (H200, float, 16384^2 = 1 GiB per image): a stencil that reads its input once and
// writes its output once moves 8 bytes per cell, 2.1 GB, at least 0.45 ms at 4.8 TB/s. A filter
// of radius R reads (2R + 1)^2 inputs per output, but its neighbours read the same ones: from
// DRAM each input needs reading once; the question is which level of the memory hierarchy
// serves the other (2R + 1)^2 - 1 reads. L1 (256 KB per SM, shared with shared memory) and L2
// do it for free at small R; a shared tile does it on purpose, at a price: the halo (every
// block loads (T + 2R)^2 cells for T^2 outputs) and a barrier.
#include "stencil.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "common/dispatch.hpp"
#include "common/math.hpp"
#include "common/variants.hpp"

namespace stencil {

namespace {

__constant__ float c_filter[kMaxTaps];

__host__ __device__ __forceinline__ int clampi(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

// ---- convolution: out[y][x] = sum over dy, dx of w[dy][dx] * in[clamp(y + dy)][clamp(x + dx)] ----
// Every variant adds the taps in the same order (dy, then dx, each an FMA), so they differ only
// in where the inputs come from.

constexpr int kBx = 32, kBy = 8;  // every 2D kernel: 32 x 8 threads (a warp is one row of 32)

// One output per thread, straight from global memory: plain loads (no `const __restrict__`, so
// the compiler does not choose the read-only path by itself; L1 and L2 still catch the
// neighbours' reuse), or, with ReadOnly, every load through the read-only data path (__ldg:
// LDG.NC, the texture cache's path, no coherence).
template <bool ReadOnly>
__global__ void conv_global(const float* in, float* out, int nx, int ny, int r) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= nx || y >= ny) return;
  const int w = 2 * r + 1;
  float acc = 0.0f;
  for (int dy = -r; dy <= r; ++dy) {
    const float* row = in + static_cast<std::size_t>(clampi(y + dy, ny - 1)) * nx;
    for (int dx = -r; dx <= r; ++dx) {
      const float* p = row + clampi(x + dx, nx - 1);
      acc = fmaf(c_filter[(dy + r) * w + dx + r], ReadOnly ? __ldg(p) : *p, acc);
    }
  }
  out[static_cast<std::size_t>(y) * nx + x] = acc;
}

// A shared tile: the block's kBx x (kBy * ROWS) outputs and a halo of r on every side, loaded by
// the whole block (clamped at the image's borders), then every tap from shared memory. With ROWS
// outputs per thread (rows ty, ty + kBy, ...: a warp stays on one row) the halo is shared by more
// outputs. Dynamic shared memory: (kBx + 2r) x (kBy * ROWS + 2r) floats.
template <int ROWS>
__global__ void __launch_bounds__(kBx* kBy) conv_shared(const float* __restrict__ in, float* __restrict__ out, int nx,
                                                        int ny, int r) {
  extern __shared__ float tile[];
  constexpr int kTh = kBy * ROWS;
  const int sw = kBx + 2 * r, sh = kTh + 2 * r;
  const int x0 = static_cast<int>(blockIdx.x) * kBx, y0 = static_cast<int>(blockIdx.y) * kTh;
  const int tid = static_cast<int>(threadIdx.y) * kBx + static_cast<int>(threadIdx.x);
  // STUDENT-BEGIN(stencil.conv_tile): the shared tile and its halo, loaded by the whole block
  // TASK: Fill tile[0 .. sw * sh) (row-major, sw = kBx + 2r floats a row) with the input cells
  // the block's outputs need: tile cell (sy, sx) holds the input at row y0 + sy - r, column
  // x0 + sx - r, each clamped into the image (clampi(v, n - 1): a read past an edge takes the
  // edge cell). The block's kBx * kBy threads share the loads: thread tid takes cells tid,
  // tid + kBx * kBy, ... Then a __syncthreads(): every thread reads cells others loaded.
  // HINT: about 6 lines; the README's halo picture.
  // STUB: (void)in; (void)nx; (void)ny; (void)sh; (void)x0; (void)y0; (void)tid;
  for (int i = tid; i < sw * sh; i += kBx * kBy) {
    const int sy = i / sw, sx = i - sy * sw;
    tile[i] = in[static_cast<std::size_t>(clampi(y0 + sy - r, ny - 1)) * nx + clampi(x0 + sx - r, nx - 1)];
  }
  __syncthreads();
  // STUDENT-END(stencil.conv_tile)
  const int w = 2 * r + 1;
  const int tx = static_cast<int>(threadIdx.x), x = x0 + tx;
#pragma unroll
  for (int k = 0; k < ROWS; ++k) {
    const int ty = static_cast<int>(threadIdx.y) + k * kBy, y = y0 + ty;
    if (x >= nx || y >= ny) continue;
    float acc = 0.0f;
    for (int dy = -r; dy <= r; ++dy) {
      const float* row = tile + (ty + dy + r) * sw + tx + r;
      for (int dx = -r; dx <= r; ++dx) acc = fmaf(c_filter[(dy + r) * w + dx + r], row[dx], acc);
    }
    out[static_cast<std::size_t>(y) * nx + x] = acc;
  }
}

// Register tiling along x: each thread writes kOx = 12 consecutive outputs of one row. For each
// of the 2R + 1 input rows it reads the kOx + 2R inputs its outputs need from the shared tile into
// registers (16-byte loads), and every one of them serves up to kOx taps: kOx (2R + 1) FMAs per
// kOx + 2R shared loads (204 per 28 at R = 8), where the one-output tile does one load per FMA.
// R is a template argument, so the tap and row loops unroll and every weight is an FMA operand
// read from the constant bank: no load per tap and row (with the row loop kept rolled, each tap
// cost a constant load; unrolling it took R = 8 from 55.8 % to 60.8 % of the FP32 peak on an
// H100, at 40 registers and no spills).
// Why 12: the 8 lanes of a quarter warp (the threads one 16-byte shared load serves at a time)
// start 12 floats apart, at banks 12 k mod 32 = 0, 12, 24, 4, 16, 28, 8, 20, and each load covers
// 4 banks from there: all 32 banks once, no conflict, with rows that need no padding. With 8
// outputs a thread the lanes start 8 floats apart and meet in the banks (Nsight Compute counted 6.7
// wavefronts per 16-byte load there, against the 4 a conflict-free one takes), and each load served
// 8 FMAs a tap instead of 12.
constexpr int kOx = 12;               // outputs per thread along x
constexpr int kRegTileX = kBx * kOx;  // 384 outputs per block row

// The tile's column 0 is the image's column x0 - kPad, kPad the radius rounded up to 4, so that
// every 16-byte piece of a tile row is a 16-byte piece of an image row (when nx is a multiple of
// 4): the block loads its tile 16 bytes at a time. A thread's window then starts kShift = kPad - R
// floats into its first 16-byte load.
template <int R>
struct RegTile {
  static constexpr int kPad = (R + 3) / 4 * 4;
  static constexpr int kShift = kPad - R;
  static constexpr int kWindow = kOx + 2 * R;                    // inputs one thread's row needs
  static constexpr int kVectors = (kShift + kWindow + 3) / 4;     // 16-byte loads per row
  static constexpr int kCols = kRegTileX - kOx + 4 * kVectors;     // >= kPad + kRegTileX + R, a multiple of 4
  static constexpr int kRows = kBy + 2 * R;
  static_assert(kCols % 4 == 0 && kCols >= kPad + kRegTileX + R, "the tile holds every column the block reads");
};
static_assert(RegTile<kMaxRadius>::kRows * RegTile<kMaxRadius>::kCols * 4 <= 48 * 1024, "the tile fits static shared memory");

template <int R>
__global__ void __launch_bounds__(kBx* kBy) conv_register_tile(const float* __restrict__ in, float* __restrict__ out,
                                                               int nx, int ny) {
  using T = RegTile<R>;
  __shared__ __align__(16) float tile[T::kRows * T::kCols];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int x0 = static_cast<int>(blockIdx.x) * kRegTileX, y0 = static_cast<int>(blockIdx.y) * kBy;
  // tile cell (sy, sx) holds the input at row y0 + sy - R, column x0 + sx - kPad, clamped
  if ((nx & 3) == 0 && cudalab::is_aligned(in, 16)) {
    // 16 bytes at a time: a piece lies wholly inside the row or wholly past one of its ends (nx
    // and the piece's first column are multiples of 4); one past an end is read cell by cell, clamped
    constexpr int kPieces = T::kCols / 4, kAll = T::kRows * kPieces, kThreads = kBx * kBy;
    const int tid = ty * kBx + tx;
    const auto piece = [&](int i) {  // tile piece i: a 16-byte load, or four clamped cells past a row's end
      const int sy = i / kPieces, sp = i - sy * kPieces;
      const float* src = in + static_cast<std::size_t>(clampi(y0 + sy - R, ny - 1)) * nx;
      const int gx = x0 - T::kPad + 4 * sp;
      return gx >= 0 && gx < nx ? *reinterpret_cast<const float4*>(src + gx)
                                : make_float4(src[clampi(gx, nx - 1)], src[clampi(gx + 1, nx - 1)],
                                              src[clampi(gx + 2, nx - 1)], src[clampi(gx + 3, nx - 1)]);
    };
    const auto put = [&](int i, float4 v) {
      const int sy = i / kPieces, sp = i - sy * kPieces;
      *reinterpret_cast<float4*>(tile + sy * T::kCols + 4 * sp) = v;
    };
    if constexpr (R <= 2) {
      // Where the rung is bound by memory: a thread's pieces (4 at R = 1: 980 on 256 threads; 5
      // at R = 2) all loaded before the first is stored, four or five 16-byte loads in flight a
      // thread instead of one. The larger radii keep the loop (more loads there would cost them occupancy: their
      // time is the FMAs').
      constexpr int kPerThread = (kAll + kThreads - 1) / kThreads;
      static_assert(kPerThread <= 5, "a small radius's tile is one batch of loads");
      float4 v[kPerThread];
#pragma unroll
      for (int q = 0; q < kPerThread; ++q) {
        if (tid + q * kThreads < kAll) v[q] = piece(tid + q * kThreads);
      }
#pragma unroll
      for (int q = 0; q < kPerThread; ++q) {
        if (tid + q * kThreads < kAll) put(tid + q * kThreads, v[q]);
      }
    } else {
      for (int i = tid; i < kAll; i += kThreads) put(i, piece(i));
    }
  } else {
    for (int i = ty * kBx + tx; i < T::kRows * T::kCols; i += kBx * kBy) {
      const int sy = i / T::kCols, sx = i - sy * T::kCols;
      tile[i] = in[static_cast<std::size_t>(clampi(y0 + sy - R, ny - 1)) * nx + clampi(x0 + sx - T::kPad, nx - 1)];
    }
  }
  __syncthreads();
  float acc[kOx];
#pragma unroll
  for (int k = 0; k < kOx; ++k) acc[k] = 0.0f;
#pragma unroll
  for (int dy = 0; dy <= 2 * R; ++dy) {
    const float* row = tile + (ty + dy) * T::kCols + tx * kOx;  // 16-byte aligned: kCols and kOx are multiples of 4
    float win[4 * T::kVectors];
#pragma unroll
    for (int q = 0; q < T::kVectors; ++q) {
      const float4 v = *reinterpret_cast<const float4*>(row + 4 * q);
      win[4 * q] = v.x;
      win[4 * q + 1] = v.y;
      win[4 * q + 2] = v.z;
      win[4 * q + 3] = v.w;
    }
#pragma unroll
    for (int dx = 0; dx <= 2 * R; ++dx) {
      const float w = c_filter[dy * (2 * R + 1) + dx];
#pragma unroll
      for (int k = 0; k < kOx; ++k) acc[k] = fmaf(w, win[T::kShift + k + dx], acc[k]);
    }
  }
  const int y = y0 + ty, x = x0 + tx * kOx;
  if (y >= ny) return;
  float* o = out + static_cast<std::size_t>(y) * nx + x;
  if ((nx & 3) == 0 && x + kOx <= nx) {  // rows 16-byte aligned and all 12 inside: three 16-byte stores
#pragma unroll
    for (int k = 0; k < kOx; k += 4) *reinterpret_cast<float4*>(o + k) = make_float4(acc[k], acc[k + 1], acc[k + 2], acc[k + 3]);
    return;
  }
#pragma unroll
  for (int k = 0; k < kOx; ++k) {
    if (x + k < nx) o[k] = acc[k];
  }
}

// ---- the 2D heat equation: u' = u + a * (n + s + w + e - 4u), borders clamped ----

__device__ __forceinline__ float heat5(float c, float n, float s, float w, float e, float a) {
  return c + a * (((n + s) + (w + e)) - 4.0f * c);
}

__global__ void heat2d_naive(const float* in, float* out, int nx, int ny, float a) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= nx || y >= ny) return;
  const std::size_t row = static_cast<std::size_t>(y) * nx;
  const float c = in[row + x];
  const float n = in[static_cast<std::size_t>(clampi(y - 1, ny - 1)) * nx + x];
  const float s = in[static_cast<std::size_t>(clampi(y + 1, ny - 1)) * nx + x];
  const float w = in[row + clampi(x - 1, nx - 1)], e = in[row + clampi(x + 1, nx - 1)];
  out[row + x] = heat5(c, n, s, w, e, a);
}

// One step from a (kBx + 2) x (kBy + 2) shared tile: the block loads its cells and the 1-cell
// halo (clamped), then each thread reads its four neighbours from shared memory.
__global__ void __launch_bounds__(kBx* kBy) heat2d_shared(const float* __restrict__ in, float* __restrict__ out, int nx,
                                                          int ny, float a) {
  __shared__ float tile[kBy + 2][kBx + 2];
  const int x0 = static_cast<int>(blockIdx.x) * kBx, y0 = static_cast<int>(blockIdx.y) * kBy;
  const int tid = static_cast<int>(threadIdx.y) * kBx + static_cast<int>(threadIdx.x);
  for (int i = tid; i < (kBx + 2) * (kBy + 2); i += kBx * kBy) {
    const int sy = i / (kBx + 2), sx = i - sy * (kBx + 2);
    tile[sy][sx] = in[static_cast<std::size_t>(clampi(y0 + sy - 1, ny - 1)) * nx + clampi(x0 + sx - 1, nx - 1)];
  }
  __syncthreads();
  const int tx = static_cast<int>(threadIdx.x) + 1, ty = static_cast<int>(threadIdx.y) + 1;
  const int x = x0 + tx - 1, y = y0 + ty - 1;
  if (x >= nx || y >= ny) return;
  out[static_cast<std::size_t>(y) * nx + x] =
      heat5(tile[ty][tx], tile[ty - 1][tx], tile[ty + 1][tx], tile[ty][tx - 1], tile[ty][tx + 1], a);
}

// Register tiling along y, with coarsening: each thread walks kColumnRows rows of its column, the
// cell north of it, its own and the one south in registers (one new load per cell: the south
// one), west and east from global memory (the row the warp loaded as "south" one step before:
// L1 hits). DRAM sees each row about once, plus one row above and below each 128-row band.
// __launch_bounds__(256, 2): ptxas (sm_90) then gives the kernel 64 registers, room for a band's
// loads in flight; without the bound it takes 32 and sinks the loads back toward their uses.
constexpr int kColumnRows = 16;

__global__ void __launch_bounds__(kBx* kBy, 2) heat2d_columns(const float* __restrict__ in, float* __restrict__ out, int nx,
                                                           int ny, float a) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y0 = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y) * kColumnRows;
  if (x >= nx || y0 >= ny) return;
  const int xw = clampi(x - 1, nx - 1), xe = clampi(x + 1, nx - 1);
  const int y_end = y0 + kColumnRows < ny ? y0 + kColumnRows : ny;
  float n = in[static_cast<std::size_t>(clampi(y0 - 1, ny - 1)) * nx + x];
  float c = in[static_cast<std::size_t>(y0) * nx + x];
  if (y0 + kColumnRows < ny) {
    // A whole band whose south row is inside the grid (every band but the last): all its loads
    // first (16 south cells and the 16 rows' west and east neighbours), then the 16 outputs.
    // The loop below has one south row in flight a thread, and at 4.8 TB/s an SM needs about
    // 25 KB in flight: 2,048 threads x 4 bytes is 8 KB; 16 rows a thread is 16 times that.
    const float* col = in + static_cast<std::size_t>(y0) * nx;
    float* dst = out + static_cast<std::size_t>(y0) * nx;
    float s[kColumnRows], w[kColumnRows], e[kColumnRows];
#pragma unroll
    for (int i = 0; i < kColumnRows; ++i) {
      const std::size_t row = static_cast<std::size_t>(i) * nx;
      s[i] = col[row + nx + x];
      w[i] = col[row + xw];
      e[i] = col[row + xe];
    }
#pragma unroll
    for (int i = 0; i < kColumnRows; ++i) {
      dst[static_cast<std::size_t>(i) * nx + x] = heat5(c, n, s[i], w[i], e[i], a);
      n = c;
      c = s[i];
    }
    return;
  }
  for (int y = y0; y < y_end; ++y) {
    const std::size_t row = static_cast<std::size_t>(y) * nx;
    const float s = in[static_cast<std::size_t>(clampi(y + 1, ny - 1)) * nx + x];
    out[row + x] = heat5(c, n, s, in[row + xw], in[row + xe], a);
    n = c;
    c = s;
  }
}

// heat2d_columns with four columns a thread, where rows are whole 16-byte pieces (nx a multiple of
// 4, both fields 16-byte aligned): north, centre and south as 16-byte loads, the west of the first
// column and the east of the last as two 4-byte loads (L1 hits: the neighbouring threads'
// pieces), one 16-byte store a row. A row costs a thread 3 loads and a store for four cells where
// the one-column walk spends 3 loads and a store on each, and every vector load brings 16 bytes:
// four times the bytes in flight per load issued, which the H200's copy rate asks for.
__global__ void __launch_bounds__(kBx* kBy, 2) heat2d_columns4(const float* __restrict__ in, float* __restrict__ out,
                                                            int nx, int ny, float a) {
  const int x = 4 * static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y0 = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y) * kColumnRows;
  if (x >= nx || y0 >= ny) return;
  const int xw = clampi(x - 1, nx - 1), xe = clampi(x + 4, nx - 1);
  const int y_end = y0 + kColumnRows < ny ? y0 + kColumnRows : ny;
  const auto load4 = [&](std::size_t i) { return *reinterpret_cast<const float4*>(in + i); };
  const auto step4 = [&](float4 c, float4 n, float4 s, float w, float e) {
    float4 r;
    r.x = heat5(c.x, n.x, s.x, w, c.y, a);
    r.y = heat5(c.y, n.y, s.y, c.x, c.z, a);
    r.z = heat5(c.z, n.z, s.z, c.y, c.w, a);
    r.w = heat5(c.w, n.w, s.w, c.z, e, a);
    return r;
  };
  float4 n = load4(static_cast<std::size_t>(clampi(y0 - 1, ny - 1)) * nx + x);
  float4 c = load4(static_cast<std::size_t>(y0) * nx + x);
  if (y0 + kColumnRows < ny) {  // a whole band: all its loads first, then its rows, as heat2d_columns
    const float* col = in + static_cast<std::size_t>(y0) * nx;
    float* dst = out + static_cast<std::size_t>(y0) * nx;
    float4 s[kColumnRows];
    float w[kColumnRows], e[kColumnRows];
#pragma unroll
    for (int i = 0; i < kColumnRows; ++i) {
      const std::size_t row = static_cast<std::size_t>(i) * nx;
      s[i] = *reinterpret_cast<const float4*>(col + row + nx + x);
      w[i] = col[row + xw];
      e[i] = col[row + xe];
    }
#pragma unroll
    for (int i = 0; i < kColumnRows; ++i) {
      *reinterpret_cast<float4*>(dst + static_cast<std::size_t>(i) * nx + x) = step4(c, n, s[i], w[i], e[i]);
      n = c;
      c = s[i];
    }
    return;
  }
  for (int y = y0; y < y_end; ++y) {
    const std::size_t row = static_cast<std::size_t>(y) * nx;
    const float4 s = load4(static_cast<std::size_t>(clampi(y + 1, ny - 1)) * nx + x);
    *reinterpret_cast<float4*>(out + row + x) = step4(c, n, s, in[row + xw], in[row + xe]);
    n = c;
    c = s;
  }
}

// Temporal blocking: k (<= kTemporalSteps) steps in shared memory per launch. The block owns a
// kTw x kTw tile of outputs and loads it with a halo of kTemporalSteps cells; step s is valid on
// the region shrunk by s, so after k steps the tile itself is right, and DRAM saw one read and
// one write per cell for k steps (plus the halo). A neighbour is read at its clamped global
// position, mapped into the shared region: at the image's borders that is the cell itself, as
// in every other variant.
constexpr int kTw = 32, kHalo = kTemporalSteps, kSw = kTw + 2 * kHalo;

__global__ void __launch_bounds__(kBx* kBy) heat2d_temporal(const float* __restrict__ in, float* __restrict__ out,
                                                            int nx, int ny, float a, int k) {
  __shared__ float buf[2][kSw * kSw];
  const int ox = static_cast<int>(blockIdx.x) * kTw - kHalo, oy = static_cast<int>(blockIdx.y) * kTw - kHalo;
  const int tid = static_cast<int>(threadIdx.y) * kBx + static_cast<int>(threadIdx.x);
  for (int i = tid; i < kSw * kSw; i += kBx * kBy) {
    const int sy = i / kSw, sx = i - sy * kSw;
    buf[0][i] = in[static_cast<std::size_t>(clampi(oy + sy, ny - 1)) * nx + clampi(ox + sx, nx - 1)];
  }
  __syncthreads();
  int cur = 0;
  for (int s = 1; s <= k; ++s) {
    const float* u = buf[cur];
    float* v = buf[cur ^ 1];
    const int lo = s, hi = kSw - s;  // the region this step makes valid
    for (int i = tid; i < kSw * kSw; i += kBx * kBy) {
      const int sy = i / kSw, sx = i - sy * kSw;
      const int gx = ox + sx, gy = oy + sy;
      if (sx < lo || sx >= hi || sy < lo || sy >= hi || gx < 0 || gx >= nx || gy < 0 || gy >= ny) continue;
      const int n = (clampi(gy - 1, ny - 1) - oy) * kSw + sx, sth = (clampi(gy + 1, ny - 1) - oy) * kSw + sx;
      const int w = sy * kSw + clampi(gx - 1, nx - 1) - ox, e = sy * kSw + clampi(gx + 1, nx - 1) - ox;
      v[i] = heat5(u[i], u[n], u[sth], u[w], u[e], a);
    }
    __syncthreads();
    cur ^= 1;
  }
  for (int i = tid; i < kTw * kTw; i += kBx * kBy) {
    const int ty = i / kTw, tx = i - ty * kTw;
    const int gx = ox + kHalo + tx, gy = oy + kHalo + ty;
    if (gx < nx && gy < ny) out[static_cast<std::size_t>(gy) * nx + gx] = buf[cur][(ty + kHalo) * kSw + tx + kHalo];
  }
}

// Temporal blocking in registers: K steps per launch with no shared memory and no barrier. A
// warp owns a strip 32 columns wide (lane = column) and kStripRows rows tall, and marches down
// it: at row i it loads level 0's row i (the input) and every level l < K, holding its rows
// i - l - 2 and i - l - 1 in two registers, turns the row it receives into level l + 1's row
// i - l - 1 (north and south from its registers, west and east from the lanes beside it by
// shuffle). Level K's rows are the output. Lanes 0 and 31 read nothing past the warp, so each
// step spoils one more column on each side: of the 32 columns, the middle 32 - 2K are written,
// and the strips overlap by 2K columns (and the warp starts K rows above its strip). DRAM sees
// about one read and one write per K steps; the cost moves to the shuffles and FMAs.
constexpr int kStripRows = 64;

template <int K>
__global__ void __launch_bounds__(kBx* kBy) heat2d_temporal_regs(const float* __restrict__ in, float* __restrict__ out,
                                                                 int nx, int ny, float a) {
  constexpr int kUseful = 32 - 2 * K;  // the columns a strip writes
  const int lane = static_cast<int>(threadIdx.x);
  const int first = (static_cast<int>(blockIdx.x) * kBy + static_cast<int>(threadIdx.y)) * kUseful;
  if (first >= nx) return;  // the whole warp: no shuffle loses a partner
  const int x = first - K + lane, xc = clampi(x, nx - 1);
  const bool writes = x >= 0 && x < nx && lane >= K && lane < 32 - K;
  const int ys = static_cast<int>(blockIdx.y) * kStripRows;
  const int ye = ys + kStripRows < ny ? ys + kStripRows : ny;
  float n[K], c[K];  // level l: rows r - 2 and r - 1 when it receives row r
#pragma unroll
  for (int l = 0; l < K; ++l) n[l] = c[l] = 0.0f;
  const int i0 = ys - K > 0 ? ys - K : 0, last = ye - 1 + K;
  // Row i's work: level 0 receives `incoming`, each level hands the row it makes to the next.
  const auto row = [&](int i, float incoming) {
#pragma unroll
    for (int l = 0; l < K; ++l) {
      const int r = i - l;  // the row level l receives now (the same in every lane)
      if (r < 0 || r > ny) continue;
      if (r == ny) incoming = c[l];  // the row past the bottom is the bottom row (clamped)
      float produced = 0.0f;         // level l + 1, row r - 1
      if (r >= 1) {
        const float cc = c[l];
        const float nn = r - 1 == 0 ? cc : n[l];  // the row above the top is the top row
        float w = __shfl_up_sync(0xffffffffu, cc, 1), e = __shfl_down_sync(0xffffffffu, cc, 1);
        if (x == 0) w = cc;
        if (x == nx - 1) e = cc;
        produced = heat5(cc, nn, incoming, w, e, a);
      }
      n[l] = c[l];
      c[l] = incoming;
      incoming = produced;
    }
    const int r = i - K;  // level K's row, made by the last level above
    if (writes && r >= ys && r < ye) out[static_cast<std::size_t>(r) * nx + x] = incoming;
  };
  // kAhead rows loaded before any is used: kAhead loads in flight per lane, not one
  constexpr int kAhead = 4;
  for (int i = i0; i <= last; i += kAhead) {
    float v[kAhead];
#pragma unroll
    for (int u = 0; u < kAhead; ++u) v[u] = i + u < ny ? in[static_cast<std::size_t>(i + u) * nx + xc] : 0.0f;
#pragma unroll
    for (int u = 0; u < kAhead; ++u) {
      if (i + u <= last) row(i + u, v[u]);
    }
  }
}

// ---- the 3D heat equation: 7 points, borders clamped ----

__device__ __forceinline__ float heat7(float c, float n, float s, float w, float e, float below, float above, float a) {
  return c + a * ((((n + s) + (w + e)) + (below + above)) - 6.0f * c);
}

// One thread per (x, y) column, marching in z: each plane's cells are read by the column and by
// its four neighbours' columns (L1 and L2), and the columns above and below by the next and the
// previous step of the march.
__global__ void heat3d_naive(const float* in, float* out, int nx, int ny, int nz, float a) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= nx || y >= ny) return;
  const std::size_t plane = static_cast<std::size_t>(nx) * ny;
  const std::size_t row = static_cast<std::size_t>(y) * nx;
  const std::size_t n = static_cast<std::size_t>(clampi(y - 1, ny - 1)) * nx + x;
  const std::size_t s = static_cast<std::size_t>(clampi(y + 1, ny - 1)) * nx + x;
  const std::size_t w = row + clampi(x - 1, nx - 1), e = row + clampi(x + 1, nx - 1), c = row + x;
  for (int z = 0; z < nz; ++z) {
    const std::size_t p = static_cast<std::size_t>(z) * plane;
    const std::size_t below = static_cast<std::size_t>(clampi(z - 1, nz - 1)) * plane;
    const std::size_t above = static_cast<std::size_t>(clampi(z + 1, nz - 1)) * plane;
    out[p + c] = heat7(in[p + c], in[p + n], in[p + s], in[p + w], in[p + e], in[below + c], in[above + c], a);
  }
}

// The z march cut into chunks of kZChunk planes (grid z), one thread per (x, y, chunk): below,
// centre and above in registers (one new load per cell), the four neighbours in the plane from
// L1 (the warp's own row and the block's other rows loaded them in the same step), no shared
// memory and no barrier: heat2d_columns' idea in 3D. Marching whole columns gives nx * ny
// threads, 65,536 at 256^3 (16 warps per SM on 132 SMs): too few loads in flight to fill DRAM's
// pipe; chunks multiply the threads by nz / kZChunk at the price of two extra plane reads
// (below and above the chunk, mostly from L2) per kZChunk. Measured on an H100 (step / copy at
// 256^3 and 512^3): chunks of 8 planes 1.24 and 1.22, 16: 1.29 and 1.24, 32: 1.31 and 1.26,
// 64: 1.41 and 1.27; whole columns (heat3d_naive) 2.93 and 1.77.
constexpr int kZChunk = 8;

// Where a thread of the column kernels works: its chunk of planes (grid z) and, within a plane,
// the offsets of its row and of its cell's north and south neighbours (clamped at the edges).
struct ChunkCell {
  int z0, z_end;
  std::size_t plane, row, n, s;
};

__device__ __forceinline__ ChunkCell chunk_cell(int x, int y, int nx, int ny, int nz) {
  ChunkCell k;
  k.z0 = static_cast<int>(blockIdx.z) * kZChunk;
  k.z_end = k.z0 + kZChunk < nz ? k.z0 + kZChunk : nz;
  k.plane = static_cast<std::size_t>(nx) * ny;
  k.row = static_cast<std::size_t>(y) * nx;
  k.n = static_cast<std::size_t>(clampi(y - 1, ny - 1)) * nx + x;
  k.s = static_cast<std::size_t>(clampi(y + 1, ny - 1)) * nx + x;
  return k;
}

__global__ void __launch_bounds__(kBx* kBy) heat3d_columns(const float* __restrict__ in, float* __restrict__ out,
                                                           int nx, int ny, int nz, float a) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= nx || y >= ny) return;
  const ChunkCell cc = chunk_cell(x, y, nx, ny, nz);
  const int z0 = cc.z0, z_end = cc.z_end;
  const std::size_t plane = cc.plane, row = cc.row, n = cc.n, s = cc.s;
  const std::size_t w = row + clampi(x - 1, nx - 1), e = row + clampi(x + 1, nx - 1), c = row + x;
  float below = in[static_cast<std::size_t>(clampi(z0 - 1, nz - 1)) * plane + c];
  float centre = in[static_cast<std::size_t>(z0) * plane + c];
  const auto step = [&](int z) {
    const std::size_t p = static_cast<std::size_t>(z) * plane;
    const float above = in[static_cast<std::size_t>(clampi(z + 1, nz - 1)) * plane + c];
    out[p + c] = heat7(centre, in[p + n], in[p + s], in[p + w], in[p + e], below, above, a);
    below = centre;
    centre = above;
  };
  if (z_end - z0 == kZChunk) {  // a whole chunk: unrolled, so its loads can all be in flight at once
#pragma unroll
    for (int k = 0; k < kZChunk; ++k) step(z0 + k);
  } else {
    for (int z = z0; z < z_end; ++z) step(z);
  }
}

// heat3d_columns with four cells of a row a thread, where rows are whole 16-byte pieces (nx a
// multiple of 4, both fields 16-byte aligned): the centre, north, south and above as 16-byte
// loads, the west of the first cell and the east of the last as two 4-byte loads (L1 hits: the
// neighbouring threads' pieces), and one 16-byte store. A plane costs a thread 5 loads and a
// store for four cells where the one-cell march spends 6 loads and a store on each, and every
// vector load brings 16 bytes, so the SM keeps four times the bytes in flight per load it issues.
__global__ void __launch_bounds__(kBx* kBy) heat3d_columns4(const float* __restrict__ in, float* __restrict__ out,
                                                            int nx, int ny, int nz, float a) {
  const int x = 4 * static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= nx || y >= ny) return;
  const ChunkCell cc = chunk_cell(x, y, nx, ny, nz);
  const int z0 = cc.z0, z_end = cc.z_end;
  const std::size_t plane = cc.plane, row = cc.row, n = cc.n, s = cc.s;
  const std::size_t c = row + x, w = row + clampi(x - 1, nx - 1), e = row + clampi(x + 4, nx - 1);
  const auto load4 = [&](std::size_t i) { return *reinterpret_cast<const float4*>(in + i); };
  float4 below = load4(static_cast<std::size_t>(clampi(z0 - 1, nz - 1)) * plane + c);
  float4 centre = load4(static_cast<std::size_t>(z0) * plane + c);
  const auto step = [&](int z) {
    const std::size_t p = static_cast<std::size_t>(z) * plane;
    const float4 above = load4(static_cast<std::size_t>(clampi(z + 1, nz - 1)) * plane + c);
    const float4 no = load4(p + n), so = load4(p + s);
    const float we = in[p + w], ea = in[p + e];
    float4 r;
    r.x = heat7(centre.x, no.x, so.x, we, centre.y, below.x, above.x, a);
    r.y = heat7(centre.y, no.y, so.y, centre.x, centre.z, below.y, above.y, a);
    r.z = heat7(centre.z, no.z, so.z, centre.y, centre.w, below.z, above.z, a);
    r.w = heat7(centre.w, no.w, so.w, centre.z, ea, below.w, above.w, a);
    *reinterpret_cast<float4*>(out + p + c) = r;
    below = centre;
    centre = above;
  };
  if (z_end - z0 == kZChunk) {
#pragma unroll
    for (int k = 0; k < kZChunk; ++k) step(z0 + k);
  } else {
    for (int z = z0; z < z_end; ++z) step(z);
  }
}

// 2.5D blocking: the block marches a kBx x kBy tile through z. The current plane sits in shared
// memory (the threads' own cells from registers, the 1-cell halo loaded by the edge threads:
// a 5-point plane needs no corners); the cells below and above stay in each thread's registers,
// so every cell is read from DRAM about once per step. Threads past the image's edge hold their
// clamped cell, so a neighbour past the edge is the edge cell, as in every other variant.
__global__ void __launch_bounds__(kBx* kBy) heat3d_plane(const float* __restrict__ in, float* __restrict__ out, int nx,
                                                         int ny, int nz, float a) {
  __shared__ float tile[kBy + 2][kBx + 2];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int gx = static_cast<int>(blockIdx.x) * kBx + tx, gy = static_cast<int>(blockIdx.y) * kBy + ty;
  const int x = clampi(gx, nx - 1), y = clampi(gy, ny - 1);
  const bool mine = gx < nx && gy < ny;
  const std::size_t plane = static_cast<std::size_t>(nx) * ny;
  const std::size_t c = static_cast<std::size_t>(y) * nx + x;
  const int x0 = static_cast<int>(blockIdx.x) * kBx, y0 = static_cast<int>(blockIdx.y) * kBy;
  // STUDENT-BEGIN(stencil.plane_march): 2.5D blocking, a plane in shared memory and a column in registers
  // TASK: March z = 0 .. nz - 1 and write out[z * plane + c] for every cell of the block that is
  // in the image (`mine`): heat7 of the cell, its four neighbours in the plane and the cells
  // below (z - 1) and above (z + 1), each index clamped into the grid as the other variants do.
  // Keep below, centre and above in registers (each read from `in` once), read the neighbours
  // in the plane from `tile`: each thread stores its centre at tile[ty + 1][tx + 1], the threads
  // on the block's edges also load the 1-cell halo beside them (clamped), then a __syncthreads()
  // before the reads and another after them (the next plane overwrites the tile). Then shift:
  // below takes centre, centre takes above, above reads the plane z + 2 (while z + 2 < nz).
  // HINT: about 22 lines; the README's 2.5D picture.
  // STUB: (void)in; (void)out; (void)nz; (void)a; (void)tile; (void)mine; (void)plane; (void)c; (void)x0; (void)y0;
  float below = in[c];  // z = -1 is clamped to 0
  float centre = in[c];
  float above = in[static_cast<std::size_t>(clampi(1, nz - 1)) * plane + c];
  for (int z = 0; z < nz; ++z) {
    const std::size_t p = static_cast<std::size_t>(z) * plane;
    tile[ty + 1][tx + 1] = centre;
    if (tx == 0) tile[ty + 1][0] = in[p + static_cast<std::size_t>(y) * nx + clampi(x0 - 1, nx - 1)];
    if (tx == kBx - 1) tile[ty + 1][kBx + 1] = in[p + static_cast<std::size_t>(y) * nx + clampi(x0 + kBx, nx - 1)];
    if (ty == 0) tile[0][tx + 1] = in[p + static_cast<std::size_t>(clampi(y0 - 1, ny - 1)) * nx + x];
    if (ty == kBy - 1) tile[kBy + 1][tx + 1] = in[p + static_cast<std::size_t>(clampi(y0 + kBy, ny - 1)) * nx + x];
    __syncthreads();
    if (mine) {
      out[p + c] = heat7(centre, tile[ty][tx + 1], tile[ty + 2][tx + 1], tile[ty + 1][tx], tile[ty + 1][tx + 2], below,
                         above, a);
    }
    __syncthreads();  // the tile is read before the next plane overwrites it
    below = centre;
    centre = above;
    if (z + 2 < nz) above = in[static_cast<std::size_t>(z + 2) * plane + c];  // else clamped: stays
  }
  // STUDENT-END(stencil.plane_march)
}

// ---- the ladder, described once ----

// What a launcher is given: one launch's input and output, the sizes, the filter's radius (conv)
// and the steps this launch takes (heat2d_temporal: up to kTemporalSteps; the others: 1).
struct Step {
  const float* in;
  float* out;
  int nx, ny, nz, radius, steps;
  cudaStream_t stream;
};
using Launcher = void (*)(const Step&);

dim3 grid_2d(int nx, int ny, int tile_x, int tile_y) {
  return dim3(static_cast<unsigned>(cudalab::ceil_div(nx, tile_x)), static_cast<unsigned>(cudalab::ceil_div(ny, tile_y)));
}
const dim3 kBlockShape(kBx, kBy);
std::size_t conv_smem(int radius, int tile_rows) {
  return static_cast<std::size_t>(kBx + 2 * radius) * static_cast<std::size_t>(tile_rows + 2 * radius) * sizeof(float);
}

template <bool kReadOnly>
void launch_conv_global(const Step& s) {
  conv_global<kReadOnly><<<grid_2d(s.nx, s.ny, kBx, kBy), kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx, s.ny, s.radius);
}
template <int kRowsPerThread>
void launch_conv_shared(const Step& s) {
  conv_shared<kRowsPerThread><<<grid_2d(s.nx, s.ny, kBx, kRowsPerThread * kBy), kBlockShape,
                                conv_smem(s.radius, kRowsPerThread * kBy), s.stream>>>(s.in, s.out, s.nx, s.ny, s.radius);
}
using Radii = cudalab::int_list<1, 2, 3, 4, 5, 6, 7, 8>;  // conv_register_tile: one instance per radius
static_assert(kMaxRadius == 8, "Radii lists every radius");
void launch_conv_register(const Step& s) {
  cudalab::dispatch(Radii{}, s.radius, "conv_register_tile: the radius", [&](auto r) {
    conv_register_tile<decltype(r)::value>
        <<<grid_2d(s.nx, s.ny, kRegTileX, kBy), kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx, s.ny);
  });
}
void launch_heat2d_naive(const Step& s) {
  heat2d_naive<<<grid_2d(s.nx, s.ny, kBx, kBy), kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx, s.ny, kAlpha2d);
}
void launch_heat2d_shared(const Step& s) {
  heat2d_shared<<<grid_2d(s.nx, s.ny, kBx, kBy), kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx, s.ny, kAlpha2d);
}
void launch_heat2d_columns(const Step& s) {
  if (s.nx % 4 == 0 && cudalab::is_aligned(s.in, 16) && cudalab::is_aligned(s.out, 16)) {
    heat2d_columns4<<<grid_2d(s.nx / 4, s.ny, kBx, kBy * kColumnRows), kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx,
                                                                                                 s.ny, kAlpha2d);
    return;
  }
  heat2d_columns<<<grid_2d(s.nx, s.ny, kBx, kBy * kColumnRows), kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx, s.ny,
                                                                                          kAlpha2d);
}
void launch_heat2d_temporal(const Step& s) {
  heat2d_temporal<<<grid_2d(s.nx, s.ny, kTw, kTw), kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx, s.ny, kAlpha2d,
                                                                               s.steps);
}
using StepsPerLaunch = cudalab::int_list<1, 2, 3, 4>;  // heat2d_temporal_regs: one instance per step count
static_assert(kTemporalSteps == 4, "StepsPerLaunch lists every step count");
void launch_heat2d_temporal_regs(const Step& s) {
  cudalab::dispatch(StepsPerLaunch{}, s.steps, "heat2d_temporal_regs: steps per launch", [&](auto k) {
    constexpr int K = decltype(k)::value;
    heat2d_temporal_regs<K><<<grid_2d(s.nx, s.ny, kBy * (32 - 2 * K), kStripRows), kBlockShape, 0, s.stream>>>(
        s.in, s.out, s.nx, s.ny, kAlpha2d);
  });
}
void launch_heat3d_naive(const Step& s) {
  heat3d_naive<<<grid_2d(s.nx, s.ny, kBx, kBy), kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx, s.ny, s.nz, kAlpha3d);
}
void launch_heat3d_columns(const Step& s) {
  const int chunks = cudalab::ceil_div(s.nz, kZChunk);
  if (chunks > 65535) throw std::invalid_argument("stencil: " + std::to_string(s.nz) + " planes need more than 65535 chunks in z");
  if (s.nx % 4 == 0 && cudalab::is_aligned(s.in, 16) && cudalab::is_aligned(s.out, 16)) {
    dim3 grid = grid_2d(s.nx / 4, s.ny, kBx, kBy);
    grid.z = static_cast<unsigned>(chunks);
    heat3d_columns4<<<grid, kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx, s.ny, s.nz, kAlpha3d);
    return;
  }
  dim3 grid = grid_2d(s.nx, s.ny, kBx, kBy);
  grid.z = static_cast<unsigned>(chunks);
  heat3d_columns<<<grid, kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx, s.ny, s.nz, kAlpha3d);
}
void launch_heat3d_plane(const Step& s) {
  heat3d_plane<<<grid_2d(s.nx, s.ny, kBx, kBy), kBlockShape, 0, s.stream>>>(s.in, s.out, s.nx, s.ny, s.nz, kAlpha3d);
}

// A row is the whole variant: its name, what it changes, its kind, its launcher, the rows of the
// grid one block covers (the grid's y limit) and the steps one launch may take.
struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  Kind kind;
  Launcher launch;
  int tile_rows = kBy;
  int steps_per_launch = 1;
};

const std::vector<Row>& ladder() {
  static const std::vector<Row> rows{
      {Variant::kConvNaive, "conv_naive", "global loads, one output per thread: L1 and L2 serve the neighbours' reuse",
       Kind::kConv, launch_conv_global<false>},
      {Variant::kConvReadOnly, "conv_read_only", "the same loads through the read-only path (__ldg)", Kind::kConv,
       launch_conv_global<true>},
      {Variant::kConvSharedTile, "conv_shared_tile",
       "the block loads a 32 x 8 tile and its halo into shared memory; every tap from there", Kind::kConv,
       launch_conv_shared<1>},
      {Variant::kConvSharedCoarse, "conv_shared_coarse",
       "a 32 x 32 tile, 4 outputs per thread: the same halo shared by 4 times the outputs", Kind::kConv,
       launch_conv_shared<4>, 4 * kBy},
      {Variant::kConvRegisterTile, "conv_register_tile",
       "8 outputs per thread along x: each row of inputs read into registers once (16-byte loads) serves 8 x (2R + 1) "
       "FMAs",
       Kind::kConv, launch_conv_register},
      {Variant::kHeat2dNaive, "heat2d_naive", "one step per launch, global loads", Kind::kHeat2d, launch_heat2d_naive},
      {Variant::kHeat2dSharedTile, "heat2d_shared_tile", "one step per launch from a shared tile with a 1-cell halo",
       Kind::kHeat2d, launch_heat2d_shared},
      {Variant::kHeat2dColumns, "heat2d_columns",
       "each thread 16 rows of a column: north, centre and south in registers, one new load per cell; "
       "four columns a thread by 16-byte loads where nx is a multiple of 4",
       Kind::kHeat2d, launch_heat2d_columns, kBy * kColumnRows},
      {Variant::kHeat2dTemporal, "heat2d_temporal",
       "4 steps per launch in shared memory (a 4-cell halo): one DRAM read and write per 4 steps", Kind::kHeat2d,
       launch_heat2d_temporal, kTw, kTemporalSteps},
      {Variant::kHeat2dTemporalRegs, "heat2d_temporal_regs",
       "4 steps per launch in registers: a warp marches a 32-column strip down, the steps pipelined row by row, "
       "west and east by shuffle",
       Kind::kHeat2d, launch_heat2d_temporal_regs, kStripRows, kTemporalSteps},
      {Variant::kHeat3dNaive, "heat3d_naive", "one thread per (x, y) column marching in z, global loads", Kind::kHeat3d,
       launch_heat3d_naive},
      {Variant::kHeat3dPlane, "heat3d_plane",
       "2.5D blocking: the plane in shared memory, the cells below and above in registers", Kind::kHeat3d,
       launch_heat3d_plane},
      {Variant::kHeat3dColumns, "heat3d_columns",
       "the z march in chunks of 8 planes: below, centre and above in registers, 32 x the threads at 256^3; "
       "four cells a thread by 16-byte loads where nx is a multiple of 4",
       Kind::kHeat3d, launch_heat3d_columns},
  };
  return rows;
}

const Row& row_of(Variant v) { return cudalab::row_of(ladder(), v, "stencil"); }

void require_grid(int nx, int ny, int tile_y) {
  if (cudalab::ceil_div(ny, tile_y) > 65535) {
    throw std::invalid_argument("stencil: " + std::to_string(ny) + " rows need more than 65535 blocks in y");
  }
  if (nx <= 0 || ny <= 0) throw std::invalid_argument("stencil: the sizes must be positive");
}

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder())

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kConv: return "conv";
    case Kind::kHeat2d: return "heat2d";
    case Kind::kHeat3d: return "heat3d";
  }
  return "?";
}

Kind kind_of(Variant v) { return row_of(v).kind; }

void set_filter(const std::vector<float>& weights, int radius) {
  if (radius < 1 || radius > kMaxRadius) {
    throw std::invalid_argument("set_filter: the radius must be 1 .. " + std::to_string(kMaxRadius));
  }
  const std::size_t taps = static_cast<std::size_t>(2 * radius + 1) * static_cast<std::size_t>(2 * radius + 1);
  if (weights.size() != taps) throw std::invalid_argument("set_filter: expected (2R + 1)^2 weights");
  CUDA_CHECK(cudaMemcpyToSymbol(c_filter, weights.data(), taps * sizeof(float)));
}

void conv(Variant v, const float* in, float* out, int nx, int ny, int radius, cudaStream_t stream) {
  if (kind_of(v) != Kind::kConv) throw std::invalid_argument("conv: " + variant_name(v) + " is not a convolution");
  if (radius < 1 || radius > kMaxRadius) throw std::invalid_argument("conv: the radius must be 1 .. 8");
  const Row& r = row_of(v);
  require_grid(nx, ny, r.tile_rows);
  r.launch({in, out, nx, ny, 1, radius, 1, stream});
  CUDA_CHECK_LAUNCH(r.name);
}

const float* heat2d(Variant v, const float* u0, float* a, float* b, int nx, int ny, int steps, int* launches,
                    cudaStream_t stream) {
  if (kind_of(v) != Kind::kHeat2d) throw std::invalid_argument("heat2d: " + variant_name(v) + " is not a 2D heat step");
  if (steps < 1) throw std::invalid_argument("heat2d: at least one step");
  const Row& r = row_of(v);
  require_grid(nx, ny, r.tile_rows);
  const float* from = u0;
  float* to = a;
  int count = 0;
  for (int done = 0; done < steps; ++count) {
    const int k = std::min(steps - done, r.steps_per_launch);
    r.launch({from, to, nx, ny, 1, 0, k, stream});
    CUDA_CHECK_LAUNCH(r.name);
    done += k;
    from = to;
    to = to == a ? b : a;
  }
  if (launches) *launches = count;
  return from;
}

const float* heat3d(Variant v, const float* u0, float* a, float* b, int nx, int ny, int nz, int steps, int* launches,
                    cudaStream_t stream) {
  if (kind_of(v) != Kind::kHeat3d) throw std::invalid_argument("heat3d: " + variant_name(v) + " is not a 3D heat step");
  if (steps < 1) throw std::invalid_argument("heat3d: at least one step");
  if (nz <= 0) throw std::invalid_argument("heat3d: the sizes must be positive");
  const Row& r = row_of(v);
  require_grid(nx, ny, r.tile_rows);
  const float* from = u0;
  float* to = a;
  for (int s = 0; s < steps; ++s) {
    r.launch({from, to, nx, ny, nz, 0, 1, stream});
    CUDA_CHECK_LAUNCH(r.name);
    from = to;
    to = to == a ? b : a;
  }
  if (launches) *launches = steps;
  return from;
}

double loads_per_output(int tx, int ty, int r) {
  return static_cast<double>(tx + 2 * r) * static_cast<double>(ty + 2 * r) / (static_cast<double>(tx) * ty);
}

}  // namespace stencil
