#pragma once
// rgba_split: interleaved RGBA pixels (r g b a r g b a ...) into four planes (r r r ..., g g g ...).
// A pure data movement kernel: 4 bytes read and 4 bytes written per pixel, so its speed is
// set entirely by how well the memory accesses are shaped.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/launch_geometry.hpp"
#include "common/variants.hpp"

namespace rgba_split {

// The ladder, slowest first. Loads and stores are widened separately to show which matters.
// The variants, in ladder order; the table in rgba_split.cu says what each changes.
enum class Variant { kNaive, kUchar4, kSmemStaged, kX4Load16Store1, kX4Load4Store4, kX4, kX4Unroll4, kX16 };
CUDALAB_DECLARE_VARIANTS(Variant)

struct Planes {
  std::uint8_t* r;
  std::uint8_t* g;
  std::uint8_t* b;
  std::uint8_t* a;
};

// 2D variants use 16 x 16 blocks, as in the notes; 1D variants 256-thread blocks.
constexpr int kBlock2dX = 16, kBlock2dY = 16, kBlock1d = 256;

// Pixels per thread of a variant (1, 4 or 16).
int pixels_per_thread(Variant v);
bool is_2d(Variant v);

// The grid a variant launches for a width x height image. 2D grids are capped at the
// device's gridDim.y limit (65535); the kernel then loops over the remaining rows.
struct Launch {
  dim3 grid, block;
  cudalab::LaunchGeometry geometry;  // the uncapped arithmetic, as the notes print it
  bool rows_looped = false;          // true when height needs more than 65535 block rows
};
Launch plan_launch(Variant v, std::size_t width, std::size_t height);

// "" when launch() runs variant v itself on these pointers; otherwise what it runs instead and
// why. The 1D variants need 16-byte aligned pointers (cudaMalloc's are) and run the naive
// kernel without them; the driver reports that next to the variant's row.
std::string fallback(Variant v, const std::uint8_t* rgba, Planes out);

// Splits on `stream`. Pointers from cudaMalloc. Throws CudaError.
void launch(Variant v, const std::uint8_t* rgba, Planes out, std::size_t width, std::size_t height,
            cudaStream_t stream = nullptr);

}  // namespace rgba_split
