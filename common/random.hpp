#pragma once
// Seeded, reproducible input data. Tests and labs never use all-zero inputs: a kernel that
// writes nothing would then pass.
#include <cstdint>
#include <type_traits>
#include <vector>

namespace cudalab {

// The generator: splitmix64 over a counter (Steele, Lea and Flood, 2014). Each value is a
// function of (seed, index) alone, and drawing is about twice as fast as std::mt19937_64 with a
// std:: distribution: the tests draw hundreds of millions of values, on the CPU, and those
// draws were a large share of the GPU tests' time.
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform values: integers in [lo, hi] (Lemire's multiply-shift: a bias below 2^-32 for the
// ranges tests use), floating point in [lo, hi).
template <typename T>
std::vector<T> random_vector(std::size_t count, std::uint64_t seed, T lo, T hi) {
  std::vector<T> v(count);
  const std::uint64_t base = splitmix64(seed) * 0x2545F4914F6CDD1Dull;  // nearby seeds, unrelated streams
  if constexpr (std::is_floating_point_v<T>) {
    constexpr int bits = std::is_same_v<T, float> ? 24 : 53;  // the significand: every value representable
    const T scale = T(1) / static_cast<T>(std::uint64_t{1} << bits);
    const T width = hi - lo;
    for (std::size_t i = 0; i < count; ++i) {
      const T u = static_cast<T>(splitmix64(base + i) >> (64 - bits)) * scale;  // [0, 1)
      const T x = lo + width * u;
      v[i] = x < hi ? x : lo;  // lo + width * u can round up to hi
    }
  } else {
    using Wide = std::conditional_t<std::is_signed_v<T>, long long, unsigned long long>;
    const std::uint64_t width = static_cast<std::uint64_t>(static_cast<Wide>(hi)) -
                                static_cast<std::uint64_t>(static_cast<Wide>(lo)) + 1;  // 0: all 2^64
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t r = splitmix64(base + i);
      const std::uint64_t k =
          width == 0 ? r : static_cast<std::uint64_t>((static_cast<unsigned __int128>(r) * width) >> 64);
      v[i] = static_cast<T>(static_cast<Wide>(static_cast<std::uint64_t>(static_cast<Wide>(lo)) + k));
    }
  }
  return v;
}

// Random bytes, eight at a time (fast enough for multi-gigabyte images).
inline std::vector<std::uint8_t> random_bytes(std::size_t count, std::uint64_t seed) {
  const std::uint64_t base = splitmix64(seed) * 0x2545F4914F6CDD1Dull;
  std::vector<std::uint8_t> v(count);
  std::size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    std::uint64_t r = splitmix64(base + i / 8);
    for (int k = 0; k < 8; ++k, r >>= 8) v[i + k] = static_cast<std::uint8_t>(r);
  }
  std::uint64_t r = splitmix64(base + i / 8);
  for (; i < count; ++i, r >>= 8) v[i] = static_cast<std::uint8_t>(r);
  return v;
}

}  // namespace cudalab
