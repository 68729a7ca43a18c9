#pragma once
// The CPU reference of the reduction lab, used by the executable: the input it sums, the exact
// answer and what counts as correct.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "common/random.hpp"

namespace reduction {

template <typename T>
std::vector<T> make_input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) return cudalab::random_vector<T>(n, seed, T(-1), T(1));
  else return cudalab::random_vector<T>(n, seed, T(-100), T(100));
}

// The exact answer and what counts as correct.
//  int: the sum modulo 2^32. Two's-complement addition is associative, so every order of
//       additions gives exactly this value, even where partial sums wrap.
//  float: the sum in double precision. A float result that went through at most k roundings
//       per element is within k * 2^-24 * sum|x| of it. Here k <= max(ceil(n / R), 16) + 128:
//       each thread adds at most max(n / R, 16) elements in sequence (R = the GPU's resident
//       threads, the smallest grid any variant uses at large n), and the trees of all passes
//       add at most 128 more levels.
template <typename T>
struct Expected {
  T exact{};
  double value = 0, tolerance = 0;
};

template <typename T>
Expected<T> expected_sum(const std::vector<T>& x, long long resident_threads) {
  Expected<T> e;
  if constexpr (std::is_integral_v<T>) {
    std::uint32_t s = 0;
    for (T v : x) s += static_cast<std::uint32_t>(v);
    std::int32_t wrapped;
    std::memcpy(&wrapped, &s, sizeof s);
    e.exact = wrapped;
    e.value = wrapped;
  } else {
    double s = 0, abs = 0;
    for (T v : x) {
      s += v;
      abs += std::fabs(v);
    }
    const double n = static_cast<double>(x.size());
    const double k = std::max(std::ceil(n / static_cast<double>(resident_threads)), 16.0) + 128.0;
    e.value = s;
    e.tolerance = k * std::ldexp(1.0, -24) * abs;
  }
  return e;
}

template <typename T>
bool matches(const Expected<T>& e, T got) {
  if constexpr (std::is_integral_v<T>) return got == e.exact;
  else return std::isfinite(got) && std::fabs(static_cast<double>(got) - e.value) <= e.tolerance;
}

}  // namespace reduction
