#pragma once
// transfers: the CPU side of the lab. How N elements are cut into chunks and dealt to streams,
// the inputs (drawn from a seed, exact in float, so c = a + b is checked exactly), the CPU loop the
// GPU must beat end to end, and the small arithmetic of the report (sizes, repetitions, the
// crossover point, the size at which a copy reaches half its rate).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/random.hpp"

#ifdef __CUDACC__
#define TRANSFERS_HD __host__ __device__
#else
#define TRANSFERS_HD
#endif

namespace transfers {

// Elements [offset, offset + count) of the array.
struct Chunk {
  std::size_t offset = 0, count = 0;
};

// n elements in `chunks` chunks of n / chunks elements, the first n % chunks of them one longer:
// every element in exactly one chunk, in order, sizes at most one apart. Throws
// std::invalid_argument unless 1 <= chunks <= n.
inline std::vector<Chunk> split_chunks(std::size_t n, int chunks) {
  if (chunks < 1 || static_cast<std::size_t>(chunks) > n) {
    throw std::invalid_argument("split_chunks: need 1 <= chunks <= n (" + std::to_string(chunks) + " chunks, n = " +
                                std::to_string(n) + ")");
  }
  const std::size_t c = static_cast<std::size_t>(chunks), base = n / c, longer = n % c;
  std::vector<Chunk> out(c);
  for (std::size_t i = 0; i < c; ++i) {
    out[i].offset = i * base + std::min(i, longer);
    out[i].count = base + (i < longer ? 1 : 0);
  }
  return out;
}

// Chunk i goes to stream i mod streams: consecutive chunks on different streams, so that the
// copy of one overlaps the kernel and the copy back of the one before.
inline int stream_of(int chunk, int streams) { return chunk % streams; }

// The inputs, drawn from `seed` (element i a function of the seed and i alone, so a prefix of a
// longer draw is the shorter draw): a multiples of 1/4 below 512, b multiples of 1/2 below 1024,
// exact in float, so a + b is exact and the same on the CPU and the GPU. The tests draw theirs
// from the grading run's seed: nothing computed from the index alone matches them.
inline void fill_inputs(float* a, float* b, std::size_t n, std::uint64_t seed) {
  const std::uint64_t base = cudalab::splitmix64(seed) * 0x2545F4914F6CDD1Dull;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = cudalab::splitmix64(base + i);
    a[i] = static_cast<float>(r & 2047u) * 0.25f;
    b[i] = static_cast<float>((r >> 11) & 2047u) * 0.5f;
  }
}

// The inputs of the unified-memory case whose pages are born on the GPU (a kernel writes them):
// the same ranges, from the index.
TRANSFERS_HD inline float input_a(std::size_t i) { return static_cast<float>(i % 1024) * 0.25f; }
TRANSFERS_HD inline float input_b(std::size_t i) { return static_cast<float>(i % 977) * 0.5f; }

// The first i with c[i] != a[i] + b[i], or n when all n are right (a NaN poison never matches).
inline std::size_t first_wrong(const float* c, const float* a, const float* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!(c[i] == a[i] + b[i])) return i;
  }
  return n;
}

// The CPU loop of vec_add: what the GPU has to beat, with the data already in host memory.
inline void cpu_add(const float* a, const float* b, float* c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

// Repetitions of a copy of `bytes`: enough to move about 512 MiB (small copies are noisy, large
// ones slow), at least 3 and at most cap.
inline int copy_repeats(std::size_t bytes, int cap) {
  const std::size_t want = (std::size_t{512} << 20) / std::max<std::size_t>(bytes, 1);
  return static_cast<int>(std::clamp<std::size_t>(want, 3, static_cast<std::size_t>(std::max(cap, 3))));
}

// The smallest sizes[k] from which the GPU is faster at every larger size (gpu_ms[j] < cpu_ms[j]
// for all j >= k); -1 when it is not faster even at the largest size. Sizes ascend.
inline long long crossover(const std::vector<long long>& sizes, const std::vector<double>& cpu_ms,
                           const std::vector<double>& gpu_ms) {
  if (sizes.size() != cpu_ms.size() || sizes.size() != gpu_ms.size()) {
    throw std::invalid_argument("crossover: one time per size");
  }
  long long from = -1;
  for (std::size_t k = sizes.size(); k-- > 0;) {
    if (!(gpu_ms[k] < cpu_ms[k])) break;
    from = sizes[k];
  }
  return from;
}

// A copy of b bytes costs about t0 + b / rate. It reaches half its rate where b / rate = t0:
// b = t0 * rate (bytes, for t0 in microseconds and rate in GB/s).
inline double half_rate_bytes(double fixed_us, double rate_gbps) { return fixed_us * 1e-6 * rate_gbps * 1e9; }

}  // namespace transfers
