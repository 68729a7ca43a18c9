#pragma once
// divergence: what it costs when the 32 threads of a warp take different branches.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/variants.hpp"

namespace divergence {

// The two paths every variant chooses between. Each is a chain of `iters` fused
// multiply-adds on x; they differ in their constants, so the results tell which path ran.
inline constexpr float kEvenScale = 0.999f, kEvenShift = 0.5f;   // path A
inline constexpr float kOddScale = 0.998f, kOddShift = -0.25f;   // path B

// The variants, in ladder order; the table in divergence.cu says what each changes.
enum class Variant { kDivergent, kUniform, kBranchFree, kDataRandom, kDataSorted, kDataPositive };
CUDALAB_DECLARE_VARIANTS(Variant)

// Whether the variant branches on its input data (which make_data draws for it).
bool is_data_dependent(Variant v);

// The input of the data-dependent variants: n values, random signs (or sorted / all positive).
std::vector<float> make_data(Variant v, std::size_t n, std::uint64_t seed);

// One thread per element of out (n = grid * block). `data` is read only by the data-dependent
// variants (may be null otherwise).
void launch(Variant v, const float* data, float* out, int grid, int block, int iters, cudaStream_t stream = nullptr);

// Warp-grouping arithmetic (CPU): how many warps of a block see both sides of a per-thread
// condition, for each of the notes' two conditions.
int divergent_warps_mod2(int block);          // threadIdx.x % 2: every warp
int divergent_warps_warp_uniform(int block);  // (threadIdx.x / 32) % 2: none
// Warps (of 32 consecutive elements) whose elements' signs differ.
std::size_t divergent_warps_in_data(const std::vector<float>& data);
// The warps of a launch of grid x block threads that take both sides of variant v's branch (its
// row's rule: the index's parity, the warp's index, no branch, or the data's signs).
std::size_t divergent_warps(Variant v, const std::vector<float>& data, int grid, int block);

}  // namespace divergence
