#pragma once
// reduction: the sum of an array, from the course notes' two kernels through the classic
// optimisation ladder to a single-pass kernel that keeps up with CUB.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"

namespace reduction {

enum class Variant {
  kGmemNotes,            // notes' reduceGmem, fixed: tree in global memory (a scratch copy)
  kSmemNotes,            // notes' reduceSmem, fixed: tree in shared memory
  kInterleavedDivergent, // 1: interleaved addressing, tid % (2s) == 0: divergent warps
  kInterleavedStrided,   // 2: strided index 2*s*tid: no divergence, shared-memory bank conflicts
  kSequential,           // 3: sequential addressing: conflict-free, half the threads idle at once
  kFirstAddDuringLoad,   // 4: each thread adds two elements while loading: half the blocks
  kUnrollLastWarp,       // 5: the last 6 steps inside one warp, __syncwarp instead of __syncthreads
  kCompleteUnroll,       // 6: the block size is a template parameter: every loop unrolled
  kMultiElement,         // 7: a fixed grid; each thread sums many elements first (grid-stride)
  kWarpShuffle,          // 8: warp shuffles instead of shared-memory trees
  kCooperativeGroups,    // 9: cg::reduce over 32-thread tiles
  kVectorized,           // 10: 16-byte loads, four in flight per thread
  kSinglePass,           // 11: the last block to finish adds the partial sums: one launch
  kSinglePassAtomic,     // 12: every block atomicAdd's its partial: one launch, not reproducible for floats
};

const std::vector<Variant>& all_variants();
std::string variant_name(Variant v);
std::string variant_summary(Variant v);
bool parse_variant(const std::string& name, Variant* out);
std::vector<std::string> variant_names();
// Same input, same block size -> bitwise the same result on every run.
bool reproducible(Variant v);

// Device scratch for one reduction of up to `capacity` elements (partials, counters, result),
// every allocation a DeviceBuffer: a throw half-way through the constructor frees what it got.
template <typename T>
class Workspace {
 public:
  explicit Workspace(std::size_t capacity);
  T* result() { return result_.data(); }
  std::size_t capacity() const { return capacity_; }

 private:
  template <typename U>
  friend int reduce(Variant, const U*, std::size_t, int, Workspace<U>&, cudaStream_t);
  std::size_t capacity_;
  cudalab::DeviceBuffer<T> scratch_;     // n elements: the global-memory variant's working copy
  cudalab::DeviceBuffer<T> partial_[2];  // the partial sums of one pass, ping-pong
  cudalab::DeviceBuffer<unsigned> counter_;
  cudalab::DeviceBuffer<T> result_;
};

// "" when reduce() runs variant v itself on `in`; otherwise what it runs instead and why (the
// vector-load variants need a 16-byte aligned input and run warp_shuffle without one).
std::string fallback(Variant v, const void* in);

// Sums in[0..n) into ws.result() (on the device) with `block` threads per block (a power of
// two, 64..1024). Returns the number of kernel launches it took. T is int or float.
template <typename T>
int reduce(Variant v, const T* in, std::size_t n, int block, Workspace<T>& ws, cudaStream_t stream = nullptr);

// cub::DeviceReduce::Sum, for comparison.
template <typename T>
class CubSum {
 public:
  CubSum(const T* in, std::size_t n, T* out);
  void run(cudaStream_t stream = nullptr);

 private:
  const T* in_;
  std::size_t n_;
  T* out_;
  std::size_t temp_bytes_ = 0;
  cudalab::DeviceBuffer<unsigned char> temp_;
};

}  // namespace reduction
