#pragma once
// The CPU reference of the scan lab, used by the executable and the tests: the input it scans
// and the check of every element of a result.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <vector>

#include "common/random.hpp"
#include "scan.hpp"

namespace scan {

template <typename T>
std::vector<T> make_input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) return cudalab::random_vector<T>(n, seed, T(-1), T(1));
  else return cudalab::random_vector<T>(n, seed, T(-100), T(100));
}

// How many roundings a float result of element i may have gone through, in any variant: the
// elements a thread adds in turn and the trees of a block (at most 64), the levels of the
// three-kernel scan (2 log2 n), and one per 256 elements before i for a prefix carried from tile
// to tile (the look-back's chain; its tiles hold 4096).
inline double float_roundings(std::size_t i, std::size_t n) {
  return 64.0 + 2.0 * std::ceil(std::log2(static_cast<double>(n) + 1.0)) + static_cast<double>(i / 256);
}

// The index of the first element of `got` that is not the scan of `scale` times x (n: every
// element is): the scan of x times `scale` (a timed launch's fresh inputs are x times a number:
// InputSets::add_scaled), exactly, in any order of additions.
//  int: `scale` an int32 (an odd one, or -1); exact, modulo 2^32 (two's-complement addition and
//       multiplication wrap alike, so every order of additions gives the same bits).
//  float: `scale` a power of two (exact, and so is every rounding's scaling); within k * 2^-24 *
//       |scale| * (|x_0| + ... + |x_i|) of the sum in double precision, k from float_roundings:
//       the sum of n floats in any order that rounds k times is that close.
// On a mismatch prints the element, the value and the expected one on stderr (`what` first).
template <typename T>
std::size_t first_mismatch(const std::vector<T>& x, const T* got, Kind kind, double scale = 1.0, const char* what = "scan") {
  const std::size_t n = x.size();
  if constexpr (std::is_integral_v<T>) {
    const auto m = static_cast<std::uint32_t>(static_cast<std::int64_t>(scale));
    std::uint32_t run = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t before = run;
      run += static_cast<std::uint32_t>(x[i]);
      const std::uint32_t want = (kind == Kind::kInclusive ? run : before) * m;
      if (static_cast<std::uint32_t>(got[i]) != want) {
        std::fprintf(stderr, "%s: element %zu is %d, expected %d\n", what, i, static_cast<int>(got[i]),
                     static_cast<int>(want));
        return i;
      }
    }
  } else {
    double run = 0, magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double before = run, before_magnitude = magnitude;
      run += static_cast<double>(x[i]);
      magnitude += std::fabs(static_cast<double>(x[i]));
      const bool incl = kind == Kind::kInclusive;
      const double want = scale * (incl ? run : before);
      const double tolerance = float_roundings(i, n) * 0x1p-24 * std::fabs(scale) * (incl ? magnitude : before_magnitude);
      const double g = static_cast<double>(got[i]);
      if (!(std::fabs(g - want) <= tolerance)) {  // NaN fails too
        std::fprintf(stderr, "%s: element %zu is %.9g, expected %.9g (tolerance %.3g)\n", what, i, g, want, tolerance);
        return i;
      }
    }
  }
  return n;
}

// Stream compaction's answer: the elements of x greater than 0, in order.
template <typename T>
std::vector<T> compaction_reference(const std::vector<T>& x) {
  std::vector<T> kept;
  for (const T& v : x) {
    if (v > T(0)) kept.push_back(v);
  }
  return kept;
}

// Whether a compaction's result is `want`: the count, then every kept element exactly (a
// compaction moves elements, it adds nothing, so floats compare bit for bit). On a mismatch
// prints what differs on stderr (`what` first).
template <typename T>
bool compaction_matches(const std::vector<T>& want, unsigned long long count, const T* got, const char* what) {
  if (count != want.size()) {
    std::fprintf(stderr, "%s: kept %llu elements, expected %zu\n", what, count, want.size());
    return false;
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(T)) != 0) {
      std::fprintf(stderr, "%s: kept element %zu is %.9g, expected %.9g\n", what, i, static_cast<double>(got[i]),
                   static_cast<double>(want[i]));
      return false;
    }
  }
  return true;
}

}  // namespace scan
