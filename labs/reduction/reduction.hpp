#pragma once
// reduction: the sum of an array, from the course notes' two kernels through the classic
// optimisation ladder to a single-pass kernel that keeps up with CUB.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/cub_call.hpp"
#include "common/device_buffer.hpp"
#include "common/variants.hpp"

namespace reduction {

// The variants, in ladder order; the table in reduction.cu says what each changes.
enum class Variant {
  kGmemNotes,
  kSmemNotes,
  kInterleavedDivergent,
  kInterleavedStrided,
  kSequential,
  kFirstAddDuringLoad,
  kUnrollLastWarp,
  kCompleteUnroll,
  kMultiElement,
  kWarpShuffle,
  kCooperativeGroups,
  kVectorized,
  kSinglePass,
  kSinglePassAtomic,
};
CUDALAB_DECLARE_VARIANTS(Variant)

// What a variant promises and needs, from its row of the table.
struct Traits {
  bool reproducible = true;        // same input, same block size -> bitwise the same result on every run
  bool vector_loads = false;       // 16-byte loads: an unaligned input runs warp_shuffle instead (fallback)
  bool cold_launch_timed = false;  // the notes timed a first launch: the lab times it too
  bool one_launch = false;         // one kernel launch (the last block, or atomics, finish the sum)
};
const Traits& traits(Variant v);

// Device scratch for one reduction of up to `capacity` elements (partials, counters, result),
// every allocation a DeviceBuffer: a throw half-way through the constructor frees what it got.
template <typename T>
class Workspace {
 public:
  explicit Workspace(std::size_t capacity);
  T* result() { return result_.data(); }
  std::size_t capacity() const { return capacity_; }
  // Back to the state of a new workspace, without allocating: every scratch, partial and result
  // byte set to `poison`, the ticket counter 0. A test that reuses one workspace for many
  // variants calls it before each, so no variant can read the sums an earlier one left behind.
  void reset(unsigned char poison);

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
  cudalab::CubCall call_;
};

}  // namespace reduction
