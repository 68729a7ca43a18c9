#pragma once
// The CPU reference that the tests and the executable both check against: the exact arithmetic
// of each thread (fmaf on both sides, so the results are bitwise equal).
#include <cmath>
#include <cstddef>
#include <vector>

#include "divergence.hpp"

namespace divergence {

// One of the two paths: `iters` dependent fused multiply-adds starting from x.
inline float run_path(bool a, float x, int iters) {
  for (int k = 0; k < iters; ++k) x = std::fma(x, a ? kEvenScale : kOddScale, a ? kEvenShift : kOddShift);
  return x;
}

// Which path thread `global_index` takes under variant v (data: the data-dependent variants' input).
inline bool takes_path_a(Variant v, const std::vector<float>& data, std::size_t global_index, int block) {
  const int t = static_cast<int>(global_index % static_cast<std::size_t>(block));
  switch (v) {
    case Variant::kDivergent:
    case Variant::kBranchFree: return t % 2 == 0;
    case Variant::kUniform: return (t / 32) % 2 == 0;
    default: return data[global_index] > 0.f;
  }
}

// The output of thread `global_index`: its path, starting from x = threadIdx.x.
inline float reference(Variant v, const std::vector<float>& data, std::size_t global_index, int block, int iters) {
  const int t = static_cast<int>(global_index % static_cast<std::size_t>(block));
  return run_path(takes_path_a(v, data, global_index, block), static_cast<float>(t), iters);
}

// The whole output of n = grid * block threads. Each output depends only on threadIdx.x and the
// path, so both paths are computed once per thread index (block of them, not n).
inline std::vector<float> reference_output(Variant v, const std::vector<float>& data, std::size_t n, int block,
                                           int iters) {
  std::vector<float> path_a(static_cast<std::size_t>(block)), path_b(static_cast<std::size_t>(block));
  for (int t = 0; t < block; ++t) {
    path_a[static_cast<std::size_t>(t)] = run_path(true, static_cast<float>(t), iters);
    path_b[static_cast<std::size_t>(t)] = run_path(false, static_cast<float>(t), iters);
  }
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t t = i % static_cast<std::size_t>(block);
    out[i] = takes_path_a(v, data, i, block) ? path_a[t] : path_b[t];
  }
  return out;
}

}  // namespace divergence
