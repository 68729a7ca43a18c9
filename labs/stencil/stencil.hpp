#pragma once
// stencil: every output from a small neighbourhood of the input. Three problems, one ladder each:
//   conv   2D convolution of an nx x ny float image with a (2R+1) x (2R+1) filter in constant
//          memory, R = 1 .. 8, borders clamped (a read past the edge takes the edge pixel);
//   heat2d the 2D heat equation, 5-point stencil, `steps` explicit steps, borders clamped;
//   heat3d the 3D heat equation, 7-point stencil, `steps` explicit steps, borders clamped.
// The question the ladders answer: when does a shared-memory tile pay, when do the caches do the
// reuse for free, and how much further does work per byte (coarsening, temporal blocking) go.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/variants.hpp"

namespace stencil {

inline constexpr int kMaxRadius = 8;
inline constexpr int kMaxTaps = (2 * kMaxRadius + 1) * (2 * kMaxRadius + 1);

enum class Kind { kConv, kHeat2d, kHeat3d };
const char* kind_name(Kind k);

// The variants, in ladder order, each of one problem; the table in stencil.cu says what each
// changes.
enum class Variant {
  kConvNaive,         // global loads; L1 and L2 do the reuse
  kConvReadOnly,      // the same through the read-only data path (__ldg)
  kConvSharedTile,    // the block loads its tile and halo into shared memory, 1 output/thread
  kConvSharedCoarse,  // the same tile 4 times taller, 4 outputs/thread: less halo per output
  kConvRegisterTile,  // 8 outputs/thread along x, each input row in registers serving 8 x (2R + 1) FMAs
  kHeat2dNaive,       // one step per launch, global loads
  kHeat2dSharedTile,  // one step per launch from a shared tile with a 1-cell halo
  kHeat2dColumns,     // register tiling along y: 16 rows per thread, north/centre/south in registers
  kHeat2dTemporal,    // kTemporalSteps steps per launch in shared memory: a halo of that width
  kHeat2dTemporalRegs,  // kTemporalSteps steps per launch in registers: a warp pipelines them down a strip
  kHeat3dNaive,       // one thread per (x, y) column marching in z, global loads
  kHeat3dPlane,       // 2.5D blocking: the current plane in shared memory, z - 1 and z + 1 in registers
  kHeat3dColumns,     // the z march in chunks of 8 planes (more threads), z - 1 .. z + 1 in registers
};
CUDALAB_DECLARE_VARIANTS(Variant)
Kind kind_of(Variant v);

// The heat2d temporal variant's steps per launch (and its halo's width).
inline constexpr int kTemporalSteps = 4;

// Diffusion numbers: stable for explicit steps (every coefficient non-negative, so a step is a
// weighted mean of its neighbours and rounding errors never grow).
inline constexpr float kAlpha2d = 0.2f;   // <= 1/4
inline constexpr float kAlpha3d = 0.15f;  // <= 1/6

// Copies the (2R+1)^2 filter weights (row-major) to constant memory for the conv kernels.
// Throws std::invalid_argument for R outside 1 .. kMaxRadius or the wrong number of weights.
void set_filter(const std::vector<float>& weights, int radius);

// out = the filter set with set_filter over in (nx x ny, row-major), on `stream`.
void conv(Variant v, const float* in, float* out, int nx, int ny, int radius, cudaStream_t stream = nullptr);

// `steps` (>= 1) heat steps from u0 (nx x ny, or nx x ny x nz for heat3d, x fastest), which is
// only read; the steps ping-pong between a and b (each the size of u0). Returns the buffer that
// holds the result (a or b) and counts the kernel launches in *launches when given.
const float* heat2d(Variant v, const float* u0, float* a, float* b, int nx, int ny, int steps, int* launches = nullptr,
                    cudaStream_t stream = nullptr);
const float* heat3d(Variant v, const float* u0, float* a, float* b, int nx, int ny, int nz, int steps,
                    int* launches = nullptr, cudaStream_t stream = nullptr);

// The halo arithmetic of a shared tile: elements a block loads per output it writes, for a
// tile of tx x ty outputs and a halo of r on every side.
double loads_per_output(int tx, int ty, int r);

}  // namespace stencil
