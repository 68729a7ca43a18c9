// roofline: expf compiled with --use_fast_math (CMake sets the flag for this file alone), so that
// the lab can compare it with the accurate expf and the __expf intrinsic in one program.
#include <cstddef>

#include "common/cuda_check.hpp"

namespace roofline {

namespace {

__global__ void exp_fast_math_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int reps) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0;
  for (int r = 0; r < reps; ++r) s += expf(in[i] + static_cast<float>(r) * (1.0f / 1024));
  out[i] = s;
}

}  // namespace

void launch_exp_fast_math(const float* in, float* out, std::size_t n, int reps) {
  if (n == 0) return;
  exp_fast_math_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in, out, n, reps);
  CUDA_CHECK_LAUNCH("exp_fast_math_kernel");
}

}  // namespace roofline
