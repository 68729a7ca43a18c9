// rgba_split kernels: interleaved RGBA -> four planes.
//
// Napkin math: 4 bytes read + 4 bytes written per pixel. A 16384 x 16384 image moves 2.15 GB;
// at the H200's 4814 GB/s peak that takes >= 0.45 ms, and a device-to-device cudaMemcpy of
// the same size (measured in the same run) is the realistic ceiling. A 3840 x 2160 frame
// (33 MB in, 33 MB out) fits in the H200's 60 MB L2, which is why the timer flushes L2.
//
// What the ladder shows (the lab's README has the measured table):
// the notes' uchar4 load (version B) is no faster than four byte loads (version A), because
// the four bytes of a pixel already arrive in one 128-byte line per warp and the byte loads
// hit L1. Both versions issue four 1-byte stores per pixel, and it is those 32-byte store
// requests that cap them. Widening the stores is what pays.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "common/cuda_check.hpp"
#include "common/variants.hpp"
#include "common/math.hpp"
#include "rgba_split.hpp"

namespace rgba_split {

namespace {

// Four packed pixels (each r | g << 8 | b << 16 | a << 24) -> four packed planes words:
// r = r0 | r1 << 8 | r2 << 16 | r3 << 24, and likewise g, b, a. Two byte permutes per plane.
struct Words4 {
  std::uint32_t r, g, b, a;
};

__device__ __forceinline__ Words4 transpose4(std::uint32_t p0, std::uint32_t p1, std::uint32_t p2,
                                             std::uint32_t p3) {
  Words4 w;
  w.r = __byte_perm(__byte_perm(p0, p1, 0x0040), __byte_perm(p2, p3, 0x0040), 0x5410);
  w.g = __byte_perm(__byte_perm(p0, p1, 0x0051), __byte_perm(p2, p3, 0x0051), 0x5410);
  w.b = __byte_perm(__byte_perm(p0, p1, 0x0062), __byte_perm(p2, p3, 0x0062), 0x5410);
  w.a = __byte_perm(__byte_perm(p0, p1, 0x0073), __byte_perm(p2, p3, 0x0073), 0x5410);
  return w;
}

// Stores the four plane words of quad q: pixels 4q .. 4q+3 of each plane, one 4-byte store each.
__device__ __forceinline__ void store_words(Planes out, std::size_t q, const Words4& w) {
  reinterpret_cast<std::uint32_t*>(out.r)[q] = w.r;
  reinterpret_cast<std::uint32_t*>(out.g)[q] = w.g;
  reinterpret_cast<std::uint32_t*>(out.b)[q] = w.b;
  reinterpret_cast<std::uint32_t*>(out.a)[q] = w.a;
}

__device__ __forceinline__ std::size_t global_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::size_t grid_threads() {
  return static_cast<std::size_t>(gridDim.x) * blockDim.x;
}

// The pixels after the last full group of P pixels: one scalar pixel per thread.
__device__ __forceinline__ void split_tail(const std::uint8_t* __restrict__ rgba, Planes out, std::size_t first,
                                          std::size_t pixels) {
  const std::size_t p = first + global_thread();
  if (p < pixels) {
    out.r[p] = rgba[4 * p + 0];
    out.g[p] = rgba[4 * p + 1];
    out.b[p] = rgba[4 * p + 2];
    out.a[p] = rgba[4 * p + 3];
  }
}

// ---------------------------------------------------------------------------------------
// Version A (the notes' naive kernel): 2D grid of 16 x 16 blocks, one pixel per thread,
// four 1-byte loads with a 4-byte stride and four 1-byte stores. Rows past the grid's
// gridDim.y limit (65535 block rows) are covered by the row loop, so 1 x 2,000,000 works.
// ---------------------------------------------------------------------------------------
__global__ void split_naive(const std::uint8_t* __restrict__ rgba, Planes out, std::size_t width,
                            std::size_t height) {
  // STUDENT-BEGIN(rgba_split.naive): one pixel per thread on a 2D grid
  // TASK: col comes from the x indices, row from the y indices. Loop row over the image in
  // steps of gridDim.y * blockDim.y (the grid may have fewer block rows than the image needs).
  // For an in-bounds pixel p = row * width + col (64-bit), copy byte 4p + c of rgba into
  // plane c (r, g, b, a for c = 0..3).
  // HINT: about 10 lines.
  // STUB: (void)rgba; (void)out; (void)width; (void)height;
  const std::size_t col = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t row_step = static_cast<std::size_t>(gridDim.y) * blockDim.y;
  for (std::size_t row = static_cast<std::size_t>(blockIdx.y) * blockDim.y + threadIdx.y; row < height;
       row += row_step) {
    if (col < width) {
      const std::size_t p = row * width + col;
      out.r[p] = rgba[4 * p + 0];
      out.g[p] = rgba[4 * p + 1];
      out.b[p] = rgba[4 * p + 2];
      out.a[p] = rgba[4 * p + 3];
    }
  }
  // STUDENT-END(rgba_split.naive)
}

// Version B (the notes' vectorized kernel): one uchar4 load brings the whole pixel. The
// notes promise 1.5-3x; measured, it is no faster, because the loads were never the limit.
__global__ void split_uchar4(const uchar4* __restrict__ rgba, Planes out, std::size_t width, std::size_t height) {
  // STUDENT-BEGIN(rgba_split.uchar4): one uchar4 load per pixel
  // TASK: As the naive kernel, but read pixel p with a single uchar4 load (rgba[p]) and
  // store its .x .y .z .w components into the four planes.
  // HINT: about 10 lines.
  // STUB: (void)rgba; (void)out; (void)width; (void)height;
  const std::size_t col = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t row_step = static_cast<std::size_t>(gridDim.y) * blockDim.y;
  for (std::size_t row = static_cast<std::size_t>(blockIdx.y) * blockDim.y + threadIdx.y; row < height;
       row += row_step) {
    if (col < width) {
      const std::size_t p = row * width + col;
      const uchar4 px = rgba[p];
      out.r[p] = px.x;
      out.g[p] = px.y;
      out.b[p] = px.z;
      out.a[p] = px.w;
    }
  }
  // STUDENT-END(rgba_split.uchar4)
}

// Shared memory without reuse: version B on the same 16 x 16 blocks, but each block first stages
// its 256 pixels in shared memory (one uchar4 load each), waits at a barrier and reads its own
// pixel back. Every pixel is read once, so the tile saves no global traffic: it adds a store, a
// load and a barrier per pixel to the same 1-byte stores (the notes: shared memory pays only
// where data is reused). The same grid as version B, so the tile is the only difference.
__global__ void split_smem_staged(const uchar4* __restrict__ rgba, Planes out, std::size_t width, std::size_t height) {
  __shared__ uchar4 tile[kBlock2dY][kBlock2dX];
  const std::size_t col = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t row_step = static_cast<std::size_t>(gridDim.y) * blockDim.y;
  // first_row is the same for the whole block, so every thread meets both barriers
  for (std::size_t first_row = static_cast<std::size_t>(blockIdx.y) * blockDim.y; first_row < height; first_row += row_step) {
    const std::size_t row = first_row + threadIdx.y, p = row * width + col;
    const bool inside = row < height && col < width;
    if (inside) tile[threadIdx.y][threadIdx.x] = rgba[p];
    __syncthreads();
    if (inside) {
      const uchar4 px = tile[threadIdx.y][threadIdx.x];
      out.r[p] = px.x;
      out.g[p] = px.y;
      out.b[p] = px.z;
      out.a[p] = px.w;
    }
    __syncthreads();  // the tile is overwritten on the next round
  }
}

// Version C: four pixels per thread, one 16-byte load, but still sixteen 1-byte stores.
// Isolates the load: the load instructions drop 4x against version B; the stores do not.
__global__ void split_x4_load16_store1(const uint4* __restrict__ rgba, Planes out, std::size_t pixels) {
  const std::size_t quads = pixels / 4;
  const std::uint8_t* bytes = reinterpret_cast<const std::uint8_t*>(rgba);
  for (std::size_t q = global_thread(); q < quads; q += grid_threads()) {
    const uint4 v = rgba[q];
    const std::uint32_t px[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const std::size_t p = 4 * q + k;
      out.r[p] = static_cast<std::uint8_t>(px[k]);
      out.g[p] = static_cast<std::uint8_t>(px[k] >> 8);
      out.b[p] = static_cast<std::uint8_t>(px[k] >> 16);
      out.a[p] = static_cast<std::uint8_t>(px[k] >> 24);
    }
  }
  split_tail(bytes, out, quads * 4, pixels);
}

// Version D: four pixels per thread, four 4-byte loads, four 4-byte stores (one per plane).
// Isolates the stores: narrow loads as in version B, but each plane store is 4 bytes.
__global__ void split_x4_load4_store4(const std::uint32_t* __restrict__ rgba, Planes out, std::size_t pixels) {
  const std::size_t quads = pixels / 4;
  for (std::size_t q = global_thread(); q < quads; q += grid_threads()) {
    const Words4 w = transpose4(rgba[4 * q + 0], rgba[4 * q + 1], rgba[4 * q + 2], rgba[4 * q + 3]);
    store_words(out, q, w);
  }
  split_tail(reinterpret_cast<const std::uint8_t*>(rgba), out, quads * 4, pixels);
}

// Version E: four pixels per thread, one 16-byte load and four 4-byte stores: both sides wide.
__global__ void split_x4(const uint4* __restrict__ rgba, Planes out, std::size_t pixels) {
  // STUDENT-BEGIN(rgba_split.x4): 16-byte load, 4-byte stores
  // TASK: In a grid-stride loop over quads (groups of 4 pixels), load quad q as one uint4
  // (its .x .y .z .w are the four packed pixels), turn it into one 32-bit word per plane with
  // transpose4, and store the four words with store_words(out, q, w). Then let split_tail do
  // the last pixels % 4 pixels.
  // HINT: about 7 lines.
  // STUB: (void)rgba; (void)out; (void)pixels;
  const std::size_t quads = pixels / 4;
  for (std::size_t q = global_thread(); q < quads; q += grid_threads()) {
    const uint4 v = rgba[q];
    const Words4 w = transpose4(v.x, v.y, v.z, v.w);
    store_words(out, q, w);
  }
  split_tail(reinterpret_cast<const std::uint8_t*>(rgba), out, quads * 4, pixels);
  // STUDENT-END(rgba_split.x4)
}

// Version F: version E with four quads per thread, blockDim.x apart (so each warp access is
// still contiguous). All four 16-byte loads are issued before the first store: four times
// the bytes in flight per thread.
__global__ void split_x4_unroll4(const uint4* __restrict__ rgba, Planes out, std::size_t pixels) {
  const std::size_t quads = pixels / 4;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * blockDim.x * 4;
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x * 4 + threadIdx.x; base < quads;
       base += step) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const std::size_t q = base + static_cast<std::size_t>(k) * blockDim.x;
      if (q < quads) v[k] = rgba[q];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const std::size_t q = base + static_cast<std::size_t>(k) * blockDim.x;
      if (q < quads) {
        const Words4 w = transpose4(v[k].x, v[k].y, v[k].z, v[k].w);
        store_words(out, q, w);
      }
    }
  }
  split_tail(reinterpret_cast<const std::uint8_t*>(rgba), out, quads * 4, pixels);
}

// Version G: sixteen pixels per thread: four 16-byte loads (64 contiguous bytes) and one
// 16-byte store per plane.
__global__ void split_x16(const uint4* __restrict__ rgba, Planes out, std::size_t pixels) {
  const std::size_t groups = pixels / 16;
  for (std::size_t gi = global_thread(); gi < groups; gi += grid_threads()) {
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = rgba[4 * gi + k];
    Words4 w[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) w[k] = transpose4(v[k].x, v[k].y, v[k].z, v[k].w);
    reinterpret_cast<uint4*>(out.r)[gi] = make_uint4(w[0].r, w[1].r, w[2].r, w[3].r);
    reinterpret_cast<uint4*>(out.g)[gi] = make_uint4(w[0].g, w[1].g, w[2].g, w[3].g);
    reinterpret_cast<uint4*>(out.b)[gi] = make_uint4(w[0].b, w[1].b, w[2].b, w[3].b);
    reinterpret_cast<uint4*>(out.a)[gi] = make_uint4(w[0].a, w[1].a, w[2].a, w[3].a);
  }
  split_tail(reinterpret_cast<const std::uint8_t*>(rgba), out, groups * 16, pixels);
}

constexpr std::int64_t kMaxGridX = 2147483647;
constexpr std::int64_t kMaxGridY = 65535;

}  // namespace

// ---------------------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------------------

namespace {

// A launcher: the kernel with its own view of the image (bytes, uchar4, uint32 or uint4).
using Launcher = void (*)(const Launch& l, cudaStream_t stream, const std::uint8_t* rgba, Planes out,
                          std::size_t width, std::size_t height);

void launch_naive(const Launch& l, cudaStream_t s, const std::uint8_t* rgba, Planes out, std::size_t w, std::size_t h) {
  split_naive<<<l.grid, l.block, 0, s>>>(rgba, out, w, h);
}
void launch_uchar4(const Launch& l, cudaStream_t s, const std::uint8_t* rgba, Planes out, std::size_t w,
                   std::size_t h) {
  split_uchar4<<<l.grid, l.block, 0, s>>>(reinterpret_cast<const uchar4*>(rgba), out, w, h);
}
void launch_smem_staged(const Launch& l, cudaStream_t s, const std::uint8_t* rgba, Planes out, std::size_t w,
                        std::size_t h) {
  split_smem_staged<<<l.grid, l.block, 0, s>>>(reinterpret_cast<const uchar4*>(rgba), out, w, h);
}
void launch_x4_load4_store4(const Launch& l, cudaStream_t s, const std::uint8_t* rgba, Planes out, std::size_t w,
                            std::size_t h) {
  split_x4_load4_store4<<<l.grid, l.block, 0, s>>>(reinterpret_cast<const std::uint32_t*>(rgba), out, w * h);
}
// The 1D kernels that read the image 16 bytes at a time.
template <void (*Kernel)(const uint4*, Planes, std::size_t)>
void launch_uint4(const Launch& l, cudaStream_t s, const std::uint8_t* rgba, Planes out, std::size_t w, std::size_t h) {
  Kernel<<<l.grid, l.block, 0, s>>>(reinterpret_cast<const uint4*>(rgba), out, w * h);
}

struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  int pixels_per_thread;
  bool two_d;        // a 2D grid of kBlock2dX x kBlock2dY blocks (else 1D, kBlock1d threads)
  Launcher launch;
};

// The ladder, described once: a row is the whole variant (name, what it changes, pixels per
// thread, its grid's shape, its launcher). The 1D variants need 16-byte aligned image and planes
// (unaligned ones run naive, reported by fallback()). Adding a variant is its kernel, its enum
// value and its row.
const std::vector<Row>& ladder() {
  static const std::vector<Row> rows{
      {Variant::kNaive, "naive", "1 px/thread, 4 x 1-byte loads, 4 x 1-byte stores (notes A)", 1, true, launch_naive},
      {Variant::kUchar4, "uchar4", "1 px/thread, 1 x 4-byte load, 4 x 1-byte stores (notes B)", 1, true, launch_uchar4},
      {Variant::kSmemStaged, "smem_staged", "uchar4 (notes B) staged through shared memory: no reuse", 1, true,
       launch_smem_staged},
      {Variant::kX4Load16Store1, "x4_load16_store1", "4 px/thread, 1 x 16-byte load, 16 x 1-byte stores", 4, false,
       launch_uint4<split_x4_load16_store1>},
      {Variant::kX4Load4Store4, "x4_load4_store4", "4 px/thread, 4 x 4-byte loads, 4 x 4-byte stores", 4, false,
       launch_x4_load4_store4},
      {Variant::kX4, "x4", "4 px/thread, 1 x 16-byte load, 4 x 4-byte stores", 4, false, launch_uint4<split_x4>},
      {Variant::kX4Unroll4, "x4_unroll4", "x4 with 4 quads in flight per thread", 16, false,
       launch_uint4<split_x4_unroll4>},
      {Variant::kX16, "x16", "16 px/thread, 4 x 16-byte loads, 4 x 16-byte stores", 16, false, launch_uint4<split_x16>},
  };
  return rows;
}

const Row& row_of(Variant v) { return cudalab::row_of(ladder(), v, "rgba_split"); }

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder())

int pixels_per_thread(Variant v) { return row_of(v).pixels_per_thread; }

bool is_2d(Variant v) { return row_of(v).two_d; }

Launch plan_launch(Variant v, std::size_t width, std::size_t height) {
  Launch l;
  const auto w = static_cast<std::int64_t>(width), h = static_cast<std::int64_t>(height);
  if (is_2d(v)) {
    l.geometry = cudalab::geometry_2d(w, h, kBlock2dX, kBlock2dY);
    l.rows_looped = l.geometry.grid_y > kMaxGridY;
    l.grid = dim3(static_cast<unsigned>(l.geometry.grid_x),
                  static_cast<unsigned>(std::min(l.geometry.grid_y, kMaxGridY)));
    l.block = dim3(kBlock2dX, kBlock2dY);
  } else {
    const std::int64_t pixels = w * h;
    l.geometry = cudalab::geometry_1d(pixels, kBlock1d, pixels_per_thread(v));
    // At least one block, so the scalar tail of an image smaller than one group is done.
    l.geometry.grid_x = std::max<std::int64_t>(1, l.geometry.grid_x);
    l.grid = dim3(static_cast<unsigned>(std::min(l.geometry.grid_x, kMaxGridX)));
    l.block = dim3(kBlock1d);
  }
  return l;
}

std::string fallback(Variant v, const std::uint8_t* rgba, Planes out) {
  bool aligned = true;
  for (const void* p : {static_cast<const void*>(rgba), static_cast<const void*>(out.r), static_cast<const void*>(out.g),
                        static_cast<const void*>(out.b), static_cast<const void*>(out.a)}) {
    aligned = aligned && cudalab::is_aligned(p, 16);
  }
  if (!is_2d(v) && !aligned) return "ran naive (pointers not 16-byte aligned)";
  return "";
}

void launch(Variant v, const std::uint8_t* rgba, Planes out, std::size_t width, std::size_t height,
            cudaStream_t stream) {
  const std::size_t pixels = width * height;
  if (pixels == 0) return;
  if (!fallback(v, rgba, out).empty()) v = Variant::kNaive;
  const Launch l = plan_launch(v, width, height);
  row_of(v).launch(l, stream, rgba, out, width, height);
  CUDA_CHECK_LAUNCH("rgba_split kernel");
}

}  // namespace rgba_split
