#pragma once
// vec_add: c[i] = a[i] + b[i], the lecture's first kernel, and the ladder from one element
// per thread to a kernel that runs at the GPU's copy bandwidth.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/launch_geometry.hpp"
#include "common/variants.hpp"

namespace vec_add {

// The variants, in ladder order; the table in vec_add.cu says what each changes.
enum class Variant { kNaive, kCoarsened2, kCoarsened4, kCoarsened8, kGridStride, kVectorized };
CUDALAB_DECLARE_VARIANTS(Variant)

// Launch configuration a variant uses for n elements with `block`-thread blocks on a GPU of
// `sm_count` SMs running `blocks_per_sm` resident blocks (the fixed-grid variants use it).
cudalab::LaunchGeometry geometry(Variant v, std::size_t n, int block, int sm_count, int blocks_per_sm);

// Everything a launch needs, computed once (device queries stay out of timed loops).
struct Plan {
  Variant variant = Variant::kNaive;
  std::size_t n = 0;
  int block = 256;
  cudalab::LaunchGeometry geometry;
};

// Plans a launch on the current device. block must be 32..1024 (std::invalid_argument).
Plan make_plan(Variant v, std::size_t n, int block);

// "" when launch() runs the plan's own kernel on these pointers; otherwise what it runs instead
// and why. The vectorized variant needs 16-byte aligned pointers (cudaMalloc's are) and runs
// the grid-stride kernel without them; the driver reports that next to the variant's row.
std::string fallback(const Plan& plan, const void* a, const void* b, const void* c);

// Enqueues c = a + b on `stream`. T is float or int. Throws CudaError on a launch error.
template <typename T>
void launch(const Plan& plan, const T* a, const T* b, T* c, cudaStream_t stream = nullptr);

// Plan + launch in one call (tests, one-off runs).
template <typename T>
void launch(Variant v, const T* a, const T* b, T* c, std::size_t n, int block, cudaStream_t stream = nullptr) {
  launch(make_plan(v, n, block), a, b, c, stream);
}

// Resident blocks per SM of the fixed-grid kernels for this block size (occupancy API).
int fixed_grid_blocks_per_sm(Variant v, int block);

}  // namespace vec_add
