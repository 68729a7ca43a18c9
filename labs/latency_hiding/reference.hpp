#pragma once
// latency_hiding: the CPU side. The models the lab prints next to its measurements (how many
// FMAs a sub-partition needs in flight, Little's law for bytes in flight, a round's cycles with
// and without a barrier) and what every kernel must have computed.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace latency_hiding {

constexpr int kSubPartitions = 4;  // an SM's schedulers: one warp-instruction per cycle each
constexpr int kFmaLatency = 4;     // cycles from a dependent FMA's issue to its result (the latency lab: 4)

// The share of the FP32 peak that `warps` resident warps per SM, each with `chains` independent
// dependent FMA chains, can reach when nothing but the FMA latency limits them: the warps are
// spread over the 4 sub-partitions (warp w on w % 4), and a sub-partition with n warps has
// n x chains FMAs ready per `latency` cycles, at most one issued per cycle.
inline double fma_issue_model(int warps, int chains, int latency = kFmaLatency, int subpartitions = kSubPartitions) {
  if (warps < 1 || chains < 1 || latency < 1 || subpartitions < 1) throw std::invalid_argument("fma_issue_model: all >= 1");
  double sum = 0;
  for (int j = 0; j < subpartitions; ++j) {
    const int n = warps / subpartitions + (j < warps % subpartitions ? 1 : 0);
    sum += std::min(1.0, static_cast<double>(n) * chains / latency);
  }
  return sum / subpartitions;
}

// What each thread's sum of its chains ends at: chain c starts at c and adds b = 1 per step
// (a = 1), `iters` steps; exact in FP32 while the sum stays below 2^24.
inline float fma_chains_expected(int chains, int iters) {
  double s = 0;
  for (int c = 0; c < chains; ++c) s += c + static_cast<double>(iters);
  if (s >= 16777216.0) throw std::invalid_argument("fma_chains_expected: the sum must stay below 2^24");
  return static_cast<float>(s);
}

// Little's law: to sustain `bytes_per_s` with requests that take `latency_s` to return, this
// many bytes must be in flight; per SM, divided by the SMs.
inline double little_bytes_in_flight(double bytes_per_s, double latency_s) {
  if (bytes_per_s < 0 || latency_s < 0) throw std::invalid_argument("little_bytes_in_flight: non-negative inputs");
  return bytes_per_s * latency_s;
}
// And the other way round: the latency a measured (bytes in flight, bandwidth) pair implies.
inline double little_latency_s(double bytes_in_flight, double bytes_per_s) {
  if (bytes_per_s <= 0) throw std::invalid_argument("little_latency_s: bandwidth must be positive");
  return bytes_in_flight / bytes_per_s;
}

// The warps per SM the read sweep runs: 1, 2, 4 ... 16, then every multiple of 4 up to
// max_warps (a power of two), so that the bytes in flight near the knee (16 to 64 warps with a
// few loads each) step by 1/8 or less instead of doubling.
inline std::vector<int> read_warp_levels(int max_warps) {
  if (max_warps < 1) throw std::invalid_argument("read_warp_levels: max_warps >= 1");
  std::vector<int> v;
  for (int w = 1; w <= max_warps && w <= 16; w *= 2) v.push_back(w);
  for (int w = 20; w <= max_warps; w += 4) v.push_back(w);
  return v;
}

// Bytes one SM has in flight: warps x 32 lanes x independent loads per thread x bytes per load.
inline double bytes_in_flight_per_sm(int warps, int loads, int width) {
  return static_cast<double>(warps) * 32 * loads * width;
}

// The 32-bit wrap-around sum of n words with word i = i * 2654435761 + 12345: the read kernel's
// input, and what all its threads' partial sums must add up to (the order does not matter).
inline std::uint32_t input_word(std::size_t i) {
  return static_cast<std::uint32_t>(i) * 2654435761u + 12345u;
}
inline std::uint32_t input_sum(std::size_t n) {
  std::uint32_t s = 0;
  for (std::size_t i = 0; i < n; ++i) s += input_word(i);
  return s;
}

// The barrier experiment: 8 warps a block, `rounds` rounds; in round r warp r % 8 runs `slow`
// dependent FMAs and the others `fast`. With a barrier after every round each round lasts as
// long as its slow warp; without one each warp runs its own rounds back to back and the block
// lasts as long as its longest warp. Cycles per round, at `latency` cycles per dependent FMA
// (no other cost): the model the measurement is set against.
constexpr int kBarrierWarps = 8;
inline double round_cycles_with_barrier(int slow, int latency = kFmaLatency) {
  return static_cast<double>(slow) * latency;
}
inline double round_cycles_without_barrier(int slow, int fast, int latency = kFmaLatency) {
  return (static_cast<double>(slow) + (kBarrierWarps - 1) * static_cast<double>(fast)) / kBarrierWarps * latency;
}
// The warp-cycles a barrier leaves idle per round: the notes' example (errata row 7).
inline double idle_warp_cycles_per_round(int slow, int fast, int latency = kFmaLatency) {
  return (kBarrierWarps - 1) * static_cast<double>(slow - fast) * latency;
}
// What thread t of a block ends at: x = t, plus 1 per FMA its warp ran (rounds a multiple of 8).
inline float rounds_expected(int thread, int rounds, int slow, int fast) {
  const double v = thread + static_cast<double>(rounds / kBarrierWarps) * slow +
                   static_cast<double>(rounds - rounds / kBarrierWarps) * fast;
  if (v >= 16777216.0) throw std::invalid_argument("rounds_expected: the count must stay below 2^24");
  return static_cast<float>(v);
}

// The bottleneck walk's kernel (latency_hiding.cu, mystery_kernel): blocks of 1024 threads,
// thread g = block * 1024 + t. It loads element source(g) (g itself, or, strided, the element
// 32 further along for every lane: (g % (n / 32)) * 32 + g / (n / 32), a permutation of 0 .. n-1
// when n is a multiple of 32), writes it to row t / 32, column t % 32 of a shared 32 x 32 tile,
// reads back row t % 32, column t / 32 (the value thread 32 (t % 32) + t / 32 loaded), runs `work`
// dependent FMAs on it, x = x * 0.5 + 1 on one side of a branch and x = x * 0.25 + 2 on the
// other (the side: the lane's parity, divergent; the warp's, uniform), and stores it at g.
constexpr int kMysteryThreads = 1024;
struct Flaws {
  bool strided = false, conflicted = false, divergent = false;
};
inline std::size_t mystery_source(std::size_t g, std::size_t n, bool strided) {
  return strided ? (g % (n / 32)) * 32 + g / (n / 32) : g;
}
inline float mystery_expected(const std::vector<float>& in, std::size_t g, Flaws f, int work) {
  const std::size_t n = in.size();
  const std::size_t block = g / kMysteryThreads, t = g % kMysteryThreads;
  const std::size_t warp = t / 32, lane = t % 32;
  const std::size_t from = block * kMysteryThreads + lane * 32 + warp;  // the thread whose value comes back
  float x = in.at(mystery_source(from, n, f.strided));
  const bool first = f.divergent ? (lane % 2 == 0) : (warp % 2 == 0);
  for (int i = 0; i < work; ++i) x = first ? std::fma(x, 0.5f, 1.0f) : std::fma(x, 0.25f, 2.0f);
  return x;
}

}  // namespace latency_hiding
