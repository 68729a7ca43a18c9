#pragma once
// Seeded, reproducible input data. Tests and labs never use all-zero inputs: a kernel that
// writes nothing would then pass.
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace cudalab {

// Uniform values: integers in [lo, hi], floating point in [lo, hi).
template <typename T>
std::vector<T> random_vector(std::size_t count, std::uint64_t seed, T lo, T hi) {
  std::mt19937_64 gen(seed);
  std::vector<T> v(count);
  if constexpr (std::is_floating_point_v<T>) {
    std::uniform_real_distribution<T> dist(lo, hi);
    for (auto& x : v) x = dist(gen);
  } else {
    using Wide = std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>;
    std::uniform_int_distribution<Wide> dist(static_cast<Wide>(lo), static_cast<Wide>(hi));
    for (auto& x : v) x = static_cast<T>(dist(gen));
  }
  return v;
}

// Random bytes, eight at a time (fast enough for multi-gigabyte images).
inline std::vector<std::uint8_t> random_bytes(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::uint8_t> v(count);
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    std::uint64_t r = gen();
    for (int k = 0; k < 8; ++k, r >>= 8) v[i + k] = static_cast<std::uint8_t>(r);
  }
  std::uint64_t r = gen();
  for (; i < count; ++i, r >>= 8) v[i] = static_cast<std::uint8_t>(r);
  return v;
}

}  // namespace cudalab
