#pragma once
// latency_hiding: how more warps (TLP) and more independent instructions per thread (ILP) hide
// latency, with Little's law. Four experiments, each a grid sized to be resident at once:
//   1. dependent FMA chains: warps per SM x independent chains per thread;
//   2. reading memory: warps per SM x independent loads per thread x load width, on a working
//      set far above the L2: bandwidth against the bytes in flight per SM;
//   3. a copy at low occupancy with many loads in flight per thread, against one load per thread
//      at full occupancy;
//   4. the notes' barrier example: 8 warps, one slow per round, with and without __syncthreads().
#include <cstddef>
#include <cstdint>

#include "common/device_buffer.hpp"
#include "common/timer.hpp"
#include "reference.hpp"

namespace latency_hiding {

// 1. `warps_per_sm` warps on every SM (blocks of up to 1024 threads, 1 or 2 per SM), each thread
// running `chains` (1, 2, 4 or 8) independent chains of `iters` dependent FMAs.
struct FmaPoint {
  int warps_per_sm = 0, chains = 0, blocks_per_sm = 0, threads_per_block = 0;
  double ms = 0, flops = 0;  // median time, FLOP/s
  double clock_hz = 0;       // the SM clock while it ran (the longest block's clock64 / time)
  bool correct = false;      // every thread's chains ended where reference.hpp says
};
FmaPoint fma_point(cudalab::Benchmarker& bench, int warps_per_sm, int chains, int iters);

// 2. Reads every word of `words` once, `warps_per_sm` warps per SM (1 .. 4, or a multiple of 4 in
// blocks of 4 warps) each thread keeping `loads` (1, 2, 4, 8, 16) independent loads of `width`
// bytes (4, 8, 16) in flight.
class ReadSet {
 public:
  explicit ReadSet(std::size_t bytes);  // a multiple of 16; filled with reference.hpp's input_word
  std::size_t words() const { return data_.size(); }
  const std::uint32_t* data() const { return data_.data(); }
  std::uint32_t expected_sum() const { return sum_; }

 private:
  cudalab::DeviceBuffer<std::uint32_t> data_;
  std::uint32_t sum_ = 0;
};
struct LoadPoint {
  int warps_per_sm = 0, loads = 0, width = 0;
  double bytes_in_flight_per_sm = 0;
  double ms = 0, gbps = 0;  // bytes read / median time
  bool correct = false;     // the partial sums add up to the input's sum
};
LoadPoint load_point(cudalab::Benchmarker& bench, const ReadSet& set, int warps_per_sm, int loads, int width);
// Whether that many warps of the read kernel with `loads` loads of `width` bytes are resident on
// an SM at once (the occupancy API: at 64 warps a thread has 32 registers, and 16 loads of 16
// bytes alone need 64). load_point throws where this is false.
bool load_point_fits(int warps_per_sm, int loads, int width);

// 3. out = in, `n` floats (a multiple of 4), blocks of `threads` (a multiple of 32), exactly
// `blocks_per_sm` per SM, each thread keeping `loads` (1, 4, 16) loads of 16 bytes in flight
// (`vector` true) or one 4-byte load (`vector` false, loads 1). Enqueues one launch; the lab
// times and checks it through common/ladder's driver.
void launch_copy(const float* in, float* out, std::size_t n, int threads, int blocks_per_sm, int loads, bool vector);
// Resident warps over the SM's maximum for blocks_per_sm blocks of `threads`.
double copy_occupancy(int threads, int blocks_per_sm);

// 4. 8-warp blocks, `blocks_per_sm` per SM, `rounds` rounds (a multiple of 8): in round r warp
// r % 8 runs `slow` dependent FMAs, the others `fast`; with or without __syncthreads() after
// every round. Cycles: the SM's (its longest block's clock64 span).
struct BarrierPoint {
  int blocks_per_sm = 0, rounds = 0;
  bool barrier = false;
  double cycles_per_round = 0;        // the longest block's cycles / rounds
  double sm_cycles_per_block_round = 0;  // the same over blocks_per_sm: what each block costs the SM
  bool correct = false;
};
BarrierPoint barrier_point(int blocks_per_sm, bool barrier, int rounds, int slow, int fast);

// 5. The bottleneck walk: reference.hpp's mystery kernel with any of its three flaws (a strided
// load, a shared-memory tile read down its columns without padding, a branch on the lane's
// parity). n a multiple of 1024; `work` dependent FMAs per element (0 .. 4096).
void launch_mystery(Flaws f, const float* in, float* out, std::size_t n, int work);
// What the compiler and the runtime say of it: registers per thread, static shared memory per
// block, resident blocks per SM and the occupancy they give.
struct KernelFacts {
  int registers = 0, shared_bytes = 0, blocks_per_sm = 0;
  double occupancy = 0;
};
KernelFacts mystery_facts(Flaws f);

// Every launcher sizes its grid to be resident at once (blocks per SM x SMs) and throws
// std::invalid_argument for a configuration the CUDA runtime says does not fit, or for an
// unsupported chain count, load count or width.

}  // namespace latency_hiding
