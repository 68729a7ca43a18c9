#pragma once
// Warp-level sums with shuffles, for kernels in any lab (device code; include from .cu files).
#include <cuda_runtime.h>

namespace cudalab {

constexpr unsigned kFullWarpMask = 0xffffffffu;

// The sum of v over the 32 lanes of a full warp, in lane 0 (the other lanes hold partial sums).
// Five __shfl_down_sync steps (offsets 16, 8, 4, 2, 1); every lane of the warp must call it.
template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullWarpMask, v, offset);
  return v;
}

}  // namespace cudalab
