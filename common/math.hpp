#pragma once
// Small integer helpers usable from host and device code.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#if defined(__CUDACC__)
#define CUDALAB_HD __host__ __device__
#else
#define CUDALAB_HD
#endif

namespace cudalab {

// ceil(a / b) for non-negative integers, without floating point: the number of blocks of
// size b that cover a elements. ceil_div(1000, 256) == 4. Written without a + b - 1 so that
// it cannot overflow for a close to the type's maximum.
template <typename T, typename U>
CUDALAB_HD constexpr std::common_type_t<T, U> ceil_div(T a, U b) {
  using R = std::common_type_t<T, U>;
  const R ra = static_cast<R>(a);
  const R rb = static_cast<R>(b);
  return ra / rb + (ra % rb != 0 ? R{1} : R{0});
}

// Rounds a up to a multiple of b.
template <typename T, typename U>
CUDALAB_HD constexpr std::common_type_t<T, U> round_up(T a, U b) {
  using R = std::common_type_t<T, U>;
  return ceil_div(a, b) * static_cast<R>(b);
}

// True when p is a multiple of `bytes` (the vector kernels' 16-byte loads need 16).
CUDALAB_HD inline bool is_aligned(const void* p, std::size_t bytes) {
  return reinterpret_cast<std::uintptr_t>(p) % bytes == 0;
}

}  // namespace cudalab
