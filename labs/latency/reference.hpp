#pragma once
// latency: the CPU side. The random cycle a chase follows (every item once before it returns, so
// a working set really is the whole buffer), where a chase must end, the dependent FMA chain, and
// the rules the report uses to pick its rows.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/math.hpp"

namespace latency {

// A random cyclic permutation of n items (Sattolo's algorithm): next[i] is the item after i, and
// following next from any item visits all n items before it comes back. n >= 1.
inline std::vector<std::uint32_t> random_cycle(std::size_t n, std::uint64_t seed) {
  if (n == 0 || n > (std::size_t{1} << 32)) throw std::invalid_argument("random_cycle: need 1 <= n <= 2^32");
  std::vector<std::uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
  std::mt19937_64 gen(seed);
  for (std::size_t i = n - 1; i > 0; --i) {  // Sattolo: j < i, never i itself
    const std::size_t j = std::uniform_int_distribution<std::size_t>(0, i - 1)(gen);
    std::swap(order[i], order[j]);
  }
  std::vector<std::uint32_t> next(n);
  for (std::size_t i = 0; i < n; ++i) next[order[i]] = order[(i + 1) % n];
  return next;
}

// How many steps from `start` until the walk returns to it (n for a single cycle over n items).
inline std::size_t cycle_length(const std::vector<std::uint32_t>& next, std::uint32_t start) {
  std::size_t steps = 0;
  std::uint32_t i = start;
  do {
    i = next.at(i);
    ++steps;
  } while (i != start && steps <= next.size());
  return steps;
}

// Where a walk of `hops` steps from `start` ends: what the GPU's chase must end on.
inline std::uint32_t follow(const std::vector<std::uint32_t>& next, std::uint32_t start, std::uint64_t hops) {
  std::uint32_t i = start;
  for (std::uint64_t k = 0; k < hops; ++k) i = next[i];
  return i;
}

// Warm-up before timing: one full turn of the cycle (every line loaded once, so a working set
// that fits a cache is measured from it), at most `cap` hops (a large one is cold anyway: the
// timed hops then reach lines the warm-up never touched).
inline std::uint64_t warmup_hops(std::size_t items, std::uint64_t cap) {
  return std::min<std::uint64_t>(items, cap);
}

// x = fma(x, a, b), k times: the register chain's result, the same on the CPU and the GPU
// (a fused multiply-add rounds once on both).
inline float fma_chain(float x, float a, float b, long long k) {
  for (long long i = 0; i < k; ++i) x = std::fma(x, a, b);
  return x;
}

// The median of the first `count` entries of a series (all of them when it is shorter): the
// baseline of a step that one early point must not set on its own.
inline double median_of_first(std::vector<double> series, std::size_t count) {
  series.resize(std::min(count, series.size()));
  if (series.empty()) return 0.0;
  std::sort(series.begin(), series.end());
  const std::size_t n = series.size();
  return n % 2 ? series[n / 2] : (series[n / 2 - 1] + series[n / 2]) / 2;
}

// The index of the last entry of a series that stays within (1 + tolerance) of `baseline`,
// counting from the start and stopping at the first one that does not (0 for an empty series).
// The TLB step: how many pages the TLBs cover before a hop costs more than an L2 hit.
inline std::size_t flat_until(const std::vector<double>& series, double baseline, double tolerance) {
  std::size_t last = 0;
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (series[i] > baseline * (1.0 + tolerance)) break;
    last = i;
  }
  return last;
}

// The shared-memory throughput kernel's data and its answer. Word i of the array holds
// shared_word(i); in round r, thread t reads the 16 words (t + r) % 512 + 32 k, k = 0..15, and
// XORs them into its sum. A warp's 32 lanes read 32 consecutive words: no bank conflict.
constexpr unsigned kThroughputWords = 1024;  // 4 KiB; the highest index read is 511 + 15 * 32 = 991
CUDALAB_HD inline std::uint32_t shared_word(std::uint32_t i) { return i * 2654435761u + 12345u; }
inline std::uint32_t shared_throughput_sum(unsigned thread, long long rounds) {
  std::uint32_t acc = 0;
  for (long long r = 0; r < rounds; ++r) {
    const std::uint32_t first = static_cast<std::uint32_t>((thread + static_cast<unsigned long long>(r)) & 511u);
    for (std::uint32_t k = 0; k < 16; ++k) acc ^= shared_word(first + 32 * k);
  }
  return acc;
}

// Loads per SM per clock from the per-block clock64() spans of one wave: for each SM, the
// thread loads of its blocks over (its last end - its first start); the median over the SMs.
// spans: start, end, SM id per block. 0 when no SM has a positive span.
inline double loads_per_sm_clock(const std::vector<long long>& spans, double loads_per_block) {
  std::vector<std::pair<long long, long long>> per_sm;  // first start, last end
  std::vector<double> blocks;
  for (std::size_t b = 0; b + 2 < spans.size(); b += 3) {
    const auto sm = static_cast<std::size_t>(spans[b + 2]);
    if (sm >= per_sm.size()) {
      per_sm.resize(sm + 1, {0, 0});
      blocks.resize(sm + 1, 0.0);
    }
    auto& [first, last] = per_sm[sm];
    if (blocks[sm] == 0 || spans[b] < first) first = spans[b];
    if (blocks[sm] == 0 || spans[b + 1] > last) last = spans[b + 1];
    blocks[sm] += 1;
  }
  std::vector<double> rates;
  for (std::size_t sm = 0; sm < per_sm.size(); ++sm) {
    const long long cycles = per_sm[sm].second - per_sm[sm].first;
    if (blocks[sm] > 0 && cycles > 0) rates.push_back(blocks[sm] * loads_per_block / static_cast<double>(cycles));
  }
  return rates.empty() ? 0.0 : median_of_first(rates, rates.size());
}

}  // namespace latency
