#pragma once
// latency: how long one access takes, when nothing hides it. A single thread follows a random
// cycle (each load's address is the previous load's value), timed with clock64(): in global
// memory over working sets from 4 KiB to 4 GiB (L1, L2, DRAM), one line per page (the TLBs), in
// shared and constant memory, and a chain of dependent FMAs (the ALU).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"

namespace latency {

constexpr std::size_t kSharedItems = 4096;   // 16 KiB of shared memory
constexpr std::size_t kConstantItems = 256;  // 1 KiB of constant memory

struct ChaseResult {
  double cycles_per_hop = 0;
  std::uint64_t end_item = 0;  // where the walk ended: the CPU's follow() must agree
};

// A device buffer in which items `stride` bytes apart hold the address of the next item.
class GlobalChase {
 public:
  explicit GlobalChase(std::size_t max_bytes);
  std::size_t capacity() const { return buffer_.size(); }
  // Links next.size() items, `stride` bytes apart (stride a multiple of 8), along `next`.
  void link(const std::vector<std::uint32_t>& next, std::size_t stride);
  // From item 0: `warmup` hops, then `hops` timed hops. l2_only: loads that skip L1 (__ldcg).
  ChaseResult run(std::uint64_t warmup, std::uint64_t hops, bool l2_only);

 private:
  cudalab::DeviceBuffer<unsigned char> buffer_;
  std::size_t stride_ = 0, items_ = 0;
};

// The same chase through shared memory (next.size() <= kSharedItems) and constant memory
// (<= kConstantItems), from item 0.
ChaseResult chase_shared(const std::vector<std::uint32_t>& next, std::uint64_t warmup, std::uint64_t hops);
ChaseResult chase_constant(const std::vector<std::uint32_t>& next, std::uint64_t warmup, std::uint64_t hops);

// x = fmaf(x, a, b), 16 * rounds times in one thread: cycles per FMA and the final x.
struct ChainResult {
  double cycles_per_op = 0;
  float value = 0;
};
ChainResult fma_chain_gpu(float x, float a, float b, long long rounds);

// Throughput, not latency: one full wave of 1024-thread blocks (as many per SM as fit), every
// thread issuing 16 independent 4-byte shared-memory loads per round for `rounds` rounds
// (reference.hpp's shared_throughput_sum says what each thread must end with). How many loads an
// SM retires per clock is how many LD/ST lanes feed it.
struct SharedThroughput {
  double loads_per_sm_clock = 0;  // median over the SMs
  int blocks = 0, threads = 1024, blocks_per_sm = 0;
  long long rounds = 0;
  bool correct = false;  // every thread's sum is the CPU's
};
SharedThroughput shared_load_throughput(long long rounds);

// The SM clock while a kernel runs: a single thread spins for a known number of cycles, timed
// with events. Turns cycles into ns.
double measure_clock_ghz();

// cudaMalloc's page: the driver's allocation granularity for device memory
// (cuMemGetAllocationGranularity, reached through cudaGetDriverEntryPointByVersion); 2 MiB with
// *how saying so when the driver does not tell.
std::size_t device_page_bytes(int device, std::string* how);

}  // namespace latency
