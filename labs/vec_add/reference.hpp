#pragma once
// The CPU reference that the tests and the executable both check against, and the problem the
// executable runs: random inputs, the CPU's answer and how long the CPU took for it.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "common/random.hpp"

namespace vec_add {

template <typename T>
void reference(const T* a, const T* b, T* c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

// Values small enough that int sums cannot overflow; floats in [-1, 1).
template <typename T>
std::vector<T> make_input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) {
    return cudalab::random_vector<T>(n, seed, T(-1), T(1));
  } else {
    return cudalab::random_vector<T>(n, seed, T(-(1 << 20)), T(1 << 20));
  }
}

template <typename T>
struct Problem {
  std::vector<T> a, b, expected;
  double cpu_ms = 0;  // one core, the reference above
};

template <typename T>
Problem<T> make_problem(std::size_t n, std::uint64_t seed) {
  Problem<T> p{make_input<T>(n, seed), make_input<T>(n, seed + 1), std::vector<T>(n)};
  const auto t0 = std::chrono::steady_clock::now();
  reference(p.a.data(), p.b.data(), p.expected.data(), n);
  p.cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

}  // namespace vec_add
