// vec_add kernels, from the lecture's one-element-per-thread kernel to the copy ceiling.
//
// Napkin math: each element reads a[i] and b[i] and writes c[i], 12 bytes for float or int.
// At 2^28 elements that is 3.2 GB; at the H200's 4814 GB/s peak the floor is 0.67 ms, and the
// realistic ceiling is what cudaMemcpy device-to-device reaches in the same run (the lab prints
// it; the README has a measured table). Every variant does the same arithmetic; they differ only
// in how work is handed to threads and how wide each memory access is.
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/device_facts.hpp"
#include "common/variants.hpp"
#include "common/math.hpp"
#include "common/vector_types.cuh"
#include "vec_add.hpp"

namespace vec_add {

// ---------------------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------------------

// Version 1 (the lecture's kernel): one element per thread. The index is 64-bit so that
// arrays past 2^31 elements work; the bounds check stops the idle threads of the last block.
template <typename T>
__global__ void vec_add_naive(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                              std::size_t n) {
  // STUDENT-BEGIN(vec_add.naive): one element per thread
  // TASK: Compute this thread's global index i from blockIdx, blockDim and threadIdx (as a
  // 64-bit value, so arrays past 2^31 elements work) and, if i < n, store a[i] + b[i] in c[i].
  // HINT: about 3 lines.
  // STUB: (void)a; (void)b; (void)c; (void)n;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
  // STUDENT-END(vec_add.naive)
}

// Versions 2-4: K elements per thread (the notes' coarsening table). The block covers
// K * blockDim.x consecutive elements and thread t takes t, t + blockDim.x, ..., so each of
// the K accesses of a warp is still one contiguous 128-byte line. Fewer threads amortise the
// index arithmetic and put K independent loads in flight per thread.
template <typename T, int K>
__global__ void vec_add_coarsened(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                                  std::size_t n) {
  // STUDENT-BEGIN(vec_add.coarsened): K elements per thread, coalesced
  // TASK: The block owns K * blockDim.x consecutive elements starting at
  // blockIdx.x * blockDim.x * K. Thread t handles t, t + blockDim.x, ... t + (K-1)*blockDim.x
  // of that range, each with its own bounds check.
  // HINT: about 6 lines; #pragma unroll on the loop over K.
  // STUB: (void)a; (void)b; (void)c; (void)n;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x * K + threadIdx.x;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const std::size_t i = base + static_cast<std::size_t>(k) * blockDim.x;
    if (i < n) c[i] = a[i] + b[i];
  }
  // STUDENT-END(vec_add.coarsened)
}

// Version 5: grid-stride loop. The grid is fixed (SMs x resident blocks per SM), so the
// same launch handles any n, and no block is launched that the GPU cannot keep resident.
template <typename T>
__global__ void vec_add_grid_stride(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                                    std::size_t n) {
  // STUDENT-BEGIN(vec_add.grid_stride): a grid-stride loop
  // TASK: Start at the thread's global index and step by the total number of threads in the
  // grid (gridDim.x * blockDim.x) until n, adding one element per step.
  // HINT: about 4 lines.
  // STUB: (void)a; (void)b; (void)c; (void)n;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    c[i] = a[i] + b[i];
  }
  // STUDENT-END(vec_add.grid_stride)
}

// Version 6: 16-byte vector accesses. One float4/int4 load moves four elements, so a warp's
// access is 512 contiguous bytes and the kernel issues a quarter of the memory instructions.
// Two vectors per loop iteration keep more loads in flight per thread. The last n % 4
// elements (and any n < 4) are done by scalar code, so every n is correct.
template <typename T>
__global__ void vec_add_vectorized(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c,
                                   std::size_t n) {
  using V = cudalab::vec4_t<T>;
  // STUDENT-BEGIN(vec_add.vectorized): 16-byte loads with a scalar tail
  // TASK: Treat a, b and c as arrays of n / 4 four-element vectors and add them in a
  // grid-stride loop (vector k: c4[k] = a4[k] + b4[k], component by component). Then let the
  // first n % 4 threads of the grid add the leftover scalar elements.
  // HINT: about 15 lines; reinterpret_cast<const V*>(a) gives the vector view.
  // STUB: (void)a; (void)b; (void)c; (void)n;
  const V* a4 = reinterpret_cast<const V*>(a);
  const V* b4 = reinterpret_cast<const V*>(b);
  V* c4 = reinterpret_cast<V*>(c);
  const std::size_t n4 = n / 4;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t k = tid;
  // Two independent vectors per iteration: both loads are issued before either add.
  for (; k + stride < n4; k += 2 * stride) {
    const V x0 = a4[k], y0 = b4[k];
    const V x1 = a4[k + stride], y1 = b4[k + stride];
    c4[k] = V{x0.x + y0.x, x0.y + y0.y, x0.z + y0.z, x0.w + y0.w};
    c4[k + stride] = V{x1.x + y1.x, x1.y + y1.y, x1.z + y1.z, x1.w + y1.w};
  }
  if (k < n4) {
    const V x = a4[k], y = b4[k];
    c4[k] = V{x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w};
  }
  const std::size_t tail = n4 * 4 + tid;
  if (tail < n) c[tail] = a[tail] + b[tail];
  // STUDENT-END(vec_add.vectorized)
}

// ---------------------------------------------------------------------------------------
// Host side: names, geometry, launchers
// ---------------------------------------------------------------------------------------

namespace {

template <typename T>
using Launcher = void (*)(dim3 grid, int block, cudaStream_t stream, const T* a, const T* b, T* c, std::size_t n);

template <typename T, void (*Kernel)(const T*, const T*, T*, std::size_t)>
void launch_kernel(dim3 grid, int block, cudaStream_t stream, const T* a, const T* b, T* c, std::size_t n) {
  Kernel<<<grid, block, 0, stream>>>(a, b, c, n);
}

struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  int elements_per_thread;  // per thread of a grid that covers n (1 for the fixed-grid variants)
  int per_vector;           // 0: the grid covers n; k: a fixed grid of threads that take k at a time
  bool vector_loads;        // 16-byte accesses: unaligned pointers run grid_stride instead (fallback)
  Launcher<float> launch_float;
  Launcher<int> launch_int;
  const void* occupancy_kernel;  // the float instance (float and int use the same registers)
  template <typename T>
  Launcher<T> launcher() const {
    if constexpr (std::is_same_v<T, float>) {
      return launch_float;
    } else {
      return launch_int;
    }
  }
};

// The ladder, described once: a row is the whole variant (name, what it changes, how its grid
// covers n, whether it needs 16-byte alignment, its launchers). Adding a variant is its kernel,
// its enum value and its row.
const std::vector<Row>& ladder() {
  static const std::vector<Row> rows{
      {Variant::kNaive, "naive", "one element per thread (the lecture's kernel)", 1, 0, false,
       launch_kernel<float, vec_add_naive<float>>, launch_kernel<int, vec_add_naive<int>>,
       reinterpret_cast<const void*>(vec_add_naive<float>)},
      {Variant::kCoarsened2, "coarsened2", "2 elements per thread, block-strided: each access stays coalesced", 2, 0,
       false, launch_kernel<float, vec_add_coarsened<float, 2>>, launch_kernel<int, vec_add_coarsened<int, 2>>,
       reinterpret_cast<const void*>(vec_add_coarsened<float, 2>)},
      {Variant::kCoarsened4, "coarsened4", "4 elements per thread", 4, 0, false,
       launch_kernel<float, vec_add_coarsened<float, 4>>, launch_kernel<int, vec_add_coarsened<int, 4>>,
       reinterpret_cast<const void*>(vec_add_coarsened<float, 4>)},
      {Variant::kCoarsened8, "coarsened8", "8 elements per thread", 8, 0, false,
       launch_kernel<float, vec_add_coarsened<float, 8>>, launch_kernel<int, vec_add_coarsened<int, 8>>,
       reinterpret_cast<const void*>(vec_add_coarsened<float, 8>)},
      {Variant::kGridStride, "grid_stride", "fixed grid sized from the SM count; each thread loops over the array", 1,
       1, false, launch_kernel<float, vec_add_grid_stride<float>>, launch_kernel<int, vec_add_grid_stride<int>>,
       reinterpret_cast<const void*>(vec_add_grid_stride<float>)},
      {Variant::kVectorized, "vectorized", "16-byte loads and stores (float4/int4), grid-stride, scalar tail", 1, 4,
       true, launch_kernel<float, vec_add_vectorized<float>>, launch_kernel<int, vec_add_vectorized<int>>,
       reinterpret_cast<const void*>(vec_add_vectorized<float>)},
  };
  return rows;
}

const Row& row_of(Variant v) { return cudalab::row_of(ladder(), v, "vec_add"); }

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder())

int fixed_grid_blocks_per_sm(Variant v, int block) {
  return cudalab::resident_blocks(row_of(v).occupancy_kernel, block);
}

cudalab::LaunchGeometry geometry(Variant v, std::size_t n, int block, int sm_count, int blocks_per_sm) {
  const auto items = static_cast<std::int64_t>(n);
  const Row& row = row_of(v);
  if (row.per_vector == 0) return cudalab::geometry_1d(items, block, row.elements_per_thread);
  cudalab::LaunchGeometry g;
  g.block_x = block;
  g.work_items = items;
  // Never launch more blocks than there is work for (small n).
  const std::int64_t per_thread = row.per_vector;
  const std::int64_t needed = cudalab::ceil_div(cudalab::ceil_div(items, per_thread), block);
  g.grid_x = std::max<std::int64_t>(1, std::min<std::int64_t>(std::int64_t{sm_count} * blocks_per_sm, needed));
  g.items_per_thread = std::max<std::int64_t>(1, cudalab::ceil_div(items, g.threads()));
  return g;
}

Plan make_plan(Variant v, std::size_t n, int block) {
  if (block < 32 || block > 1024) throw std::invalid_argument("vec_add: block must be 32..1024");
  Plan p;
  p.variant = v;
  p.n = n;
  p.block = block;
  const bool fixed = row_of(v).per_vector > 0;
  p.geometry = geometry(v, n, block, fixed ? cudalab::launch_limits().sms : 0, fixed ? fixed_grid_blocks_per_sm(v, block) : 0);
  return p;
}

std::string fallback(const Plan& plan, const void* a, const void* b, const void* c) {
  const bool aligned = cudalab::is_aligned(a, 16) && cudalab::is_aligned(b, 16) && cudalab::is_aligned(c, 16);
  if (row_of(plan.variant).vector_loads && !aligned) return "ran grid_stride (pointers not 16-byte aligned)";
  return "";
}

template <typename T>
void launch(const Plan& plan, const T* a, const T* b, T* c, cudaStream_t stream) {
  if (plan.n == 0) return;
  const Variant v = fallback(plan, a, b, c).empty() ? plan.variant : Variant::kGridStride;
  const dim3 grid(static_cast<unsigned>(plan.geometry.grid_x));
  const int block = plan.block;
  const std::size_t n = plan.n;
  row_of(v).template launcher<T>()(grid, block, stream, a, b, c, n);
  CUDA_CHECK_LAUNCH("vec_add kernel");
}

template void launch<float>(const Plan&, const float*, const float*, float*, cudaStream_t);
template void launch<int>(const Plan&, const int*, const int*, int*, cudaStream_t);

}  // namespace vec_add
