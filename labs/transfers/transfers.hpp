#pragma once
// transfers: the road between host and device. Copy bandwidth of pageable and pinned memory,
// c = a + b in chunks over several streams so that copies in, the kernel and copies out
// overlap, unified memory, and the time of the whole trip against the CPU.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "reference.hpp"

namespace transfers {

// One problem of n floats: pinned host arrays a, b (inputs) and c (the result), and their
// device twins. A view; PipelineBuffers owns the memory.
struct Pipeline {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  float* d_a = nullptr;
  float* d_b = nullptr;
  float* d_c = nullptr;
  std::size_t n = 0;
};

class PipelineBuffers {
 public:
  PipelineBuffers(std::size_t n, std::uint64_t seed);  // fills a and b with the inputs drawn from seed
  Pipeline view(std::size_t n);             // the first n elements (n <= size)
  Pipeline view() { return view(n_); }
  void poison_c();                          // every byte of c 0xFF (NaN): unwritten elements fail
  std::size_t size() const { return n_; }

 private:
  std::size_t n_;
  cudalab::PinnedBuffer<float> a_, b_, c_;
  cudalab::DeviceBuffer<float> d_a_, d_b_, d_c_;
};

// c[i] = a[i] + b[i] for i < n, enqueued on `stream`.
void launch_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);

// The four moments of one chunk's trip, recorded on its stream.
struct ChunkEvents {
  cudaEvent_t start = nullptr;       // the stream reached the chunk
  cudaEvent_t copied_in = nullptr;   // its a and b are on the device
  cudaEvent_t computed = nullptr;    // the kernel wrote its c
  cudaEvent_t copied_out = nullptr;  // its c is back in host memory
};

// Enqueues one chunk on `stream`: a and b in, the kernel, c out, with the four events between.
// Nothing waits: the caller synchronizes. (The student region transfers.issue_chunk.)
void issue_chunk(const Pipeline& p, const Chunk& chunk, cudaStream_t stream, const ChunkEvents& ev);

// One bar of the timeline: what one chunk's stream did, from the moment the stream reached it
// (a copy may then still wait for the copy engine) until it finished; ms from the run's start.
struct TimelineEntry {
  int stream = 0, chunk = 0;
  std::string op;  // "h2d", "kernel", "d2h"
  double start_ms = 0, end_ms = 0;
};

struct OverlapRun {
  double total_ms = 0;  // from the start to the last chunk's c in host memory
  std::vector<TimelineEntry> timeline;
};

// All chunks over `streams` streams (chunk i on stream i mod streams), waited for.
OverlapRun run_overlap(const Pipeline& p, int streams, int chunks);

// Each step of the whole problem alone, on one stream, and the three in a row without chunks:
// medians of `repeats` runs, timed with events.
struct Alone {
  double h2d_ms = 0;     // a and b in
  double kernel_ms = 0;  // c = a + b
  double d2h_ms = 0;     // c out
  double serial_ms = 0;  // all three, one after the other
};
Alone time_alone(const Pipeline& p, int repeats);

// Median ms of `repeats` cudaMemcpy calls of `bytes` (host timer; each copy waited for).
double time_copy_ms(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, int repeats);

// c = a + b with the data starting and ending in host memory (pinned or pageable): a and b in,
// the kernel, c out, waited for; the device buffers are given (allocation is not timed).
double end_to_end_ms(const float* a, const float* b, float* c, float* d_a, float* d_b, float* d_c, std::size_t n);

// Unified memory against explicit copies, n floats, c = a + b. Each phase is timed alone
// (median of `repeats`); -1 where a case has no such phase.
struct UnifiedCase {
  std::string name;
  double to_gpu_ms = -1;   // inputs moved to the GPU before the kernel
  double kernel_ms = 0;    // the kernel (with on-demand faults: the moves happen in here)
  double to_host_ms = -1;  // c back where the host reads it
  double total_ms = 0;
  bool correct = false;
};
struct UnifiedReport {
  bool prefetch_supported = false;  // cudaDevAttrConcurrentManagedAccess
  std::vector<UnifiedCase> cases;
};
// Every case with its inputs drawn from `seed` (the GPU-first-touch case: from the index).
UnifiedReport run_unified(std::size_t n, int repeats, std::uint64_t seed);

// The seed of the lab's own inputs (it has no --seed; the tests draw theirs per grading run).
inline constexpr std::uint64_t kInputSeed = 42;

}  // namespace transfers
