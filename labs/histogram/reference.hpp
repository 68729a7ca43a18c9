#pragma once
// The CPU side of the histogram lab, used by the executable and the tests: the keys it counts
// (three distributions, so contention is measured, not assumed), the CPU histogram and the check
// of a result, bin by bin.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "histogram.hpp"

namespace histogram {

// uniform: every key of the range equally likely (little contention);
// skewed: Zipf-like, P(key) about proportional to 1 / (key + 1): an octave e in 0 .. log2(range)
//         drawn uniformly, then a key in [2^e - 1, 2^(e+1) - 1) (modulo the range: the top octave
//         wraps): with 256 keys, key 0 alone is about 1/9 of them;
// one: every key the same value, drawn from the seed (the worst case: one counter).
enum class Dist { kUniform, kSkewed, kOneValue };

inline const char* dist_name(Dist d) {
  return d == Dist::kUniform ? "uniform" : d == Dist::kSkewed ? "skewed" : "one";
}
inline std::vector<std::string> dist_names() { return {"uniform", "skewed", "one"}; }
inline Dist parse_dist(const std::string& s) {
  return s == "skewed" ? Dist::kSkewed : s == "one" ? Dist::kOneValue : Dist::kUniform;
}

// n keys in [0, key_range<K>(bins)) drawn from `seed`.
template <typename K>
std::vector<K> make_keys(std::size_t n, unsigned bins, Dist dist, std::uint64_t seed) {
  const std::uint64_t range = key_range<K>(bins);
  std::vector<K> keys(n);
  const std::uint64_t base = cudalab::splitmix64(seed) * 0x2545F4914F6CDD1Dull;
  if (dist == Dist::kOneValue) {
    const K v = static_cast<K>(cudalab::splitmix64(base) % range);
    for (auto& k : keys) k = v;
    return keys;
  }
  int octaves = 0;  // ceil(log2(range)): the octaves of the skewed keys
  while ((std::uint64_t{1} << octaves) < range) ++octaves;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = cudalab::splitmix64(base + i);
    std::uint64_t k;
    if (dist == Dist::kUniform) {
      k = static_cast<std::uint64_t>((static_cast<unsigned __int128>(r) * range) >> 64);
    } else {
      const int e = static_cast<int>((r >> 32) % static_cast<std::uint64_t>(octaves + 1));  // octave 0 is key 0
      k = (std::uint64_t{1} << e) - 1 + (static_cast<std::uint32_t>(r) & ((std::uint64_t{1} << e) - 1));
      k %= range;
    }
    keys[i] = static_cast<K>(k);
  }
  return keys;
}

// The keys plus `shift`, modulo their range (a timed launch's fresh keys: InputSets::add_rotated
// makes the same on the device).
template <typename K>
std::vector<K> rotated(const std::vector<K>& keys, unsigned bins, std::uint64_t shift) {
  const std::uint64_t range = key_range<K>(bins);
  std::vector<K> out(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) out[i] = static_cast<K>((keys[i] + shift) % range);
  return out;
}

// How many of the keys have each value in [0, key_range): what the histogram of any rotation
// of them follows from (rotated_histogram).
template <typename K>
std::vector<unsigned> value_counts(const std::vector<K>& keys, unsigned bins) {
  std::vector<unsigned> values(key_range<K>(bins), 0u);
  for (const K k : keys) ++values[static_cast<std::size_t>(k)];
  return values;
}

// The histogram of rotated(keys, bins, shift), from value_counts(keys, bins): key value v moves
// to (v + shift) mod range, with all its keys. Work: the range, not the keys.
template <typename K>
std::vector<unsigned> rotated_histogram(const std::vector<unsigned>& values, unsigned bins, std::uint64_t shift) {
  const std::uint64_t range = values.size();
  std::vector<unsigned> h(bins, 0u);
  for (std::uint64_t v = 0; v < range; ++v) {
    const int b = bin_of(static_cast<K>((v + shift) % range), bins);
    if (b >= 0) h[static_cast<std::size_t>(b)] += values[v];
  }
  return h;
}

template <typename K>
std::vector<unsigned> cpu_histogram(const K* keys, std::size_t n, unsigned bins) {
  std::vector<unsigned> h(bins, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const int b = bin_of(keys[i], bins);
    if (b >= 0) ++h[static_cast<std::size_t>(b)];
  }
  return h;
}

// The first bin of `got` that is not `want`'s (want.size(): none), printed on stderr with `what`.
inline std::size_t first_wrong_bin(const std::vector<unsigned>& want, const unsigned* got, const char* what) {
  for (std::size_t b = 0; b < want.size(); ++b) {
    if (got[b] != want[b]) {
      std::fprintf(stderr, "%s: bin %zu holds %u, expected %u\n", what, b, got[b], want[b]);
      return b;
    }
  }
  return want.size();
}

}  // namespace histogram
