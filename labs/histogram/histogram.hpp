#pragma once
// histogram: counts of 8-bit and 32-bit keys in 2 .. 65,536 even bins, from one global atomic per
// key to histograms private to a block, to a warp, to a run of equal keys, and spread over a
// thread-block cluster's distributed shared memory when the bins do not fit one block; timed
// against cub::DeviceHistogram::HistogramEven in the same run.
//
// The bins (the same rule as HistogramEven with levels 0 .. range):
//   uint8 keys:  range 256, bin = key * bins / 256 (bins <= 256)
//   uint32 keys: range = bins, bin = key (keys are bin numbers; a key >= bins is counted nowhere)
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/cub_call.hpp"
#include "common/device_buffer.hpp"
#include "common/variants.hpp"

namespace histogram {

// The variants, in ladder order; the table in histogram.cu says what each changes.
enum class Variant {
  kGlobalAtomics,
  kSharedPrivate,
  kWarpPrivate,
  kWarpAggregated,
  kVectorRuns,
  kLaneCopies,
  kClusterDsm,
};
CUDALAB_DECLARE_VARIANTS(Variant)

constexpr unsigned kMinBins = 2, kMaxBins = 65536;

// The keys' range: 256 for uint8, `bins` for uint32.
template <typename K>
constexpr unsigned key_range(unsigned bins) {
  return sizeof(K) == 1 ? 256u : bins;
}

// The bin of a key, or -1 when the key is outside the range (on the host and the device).
template <typename K>
__host__ __device__ __forceinline__ int bin_of(K key, unsigned bins) {
  if constexpr (sizeof(K) == 1) {
    return static_cast<int>((static_cast<unsigned>(key) * bins) >> 8);
  } else {
    return key < bins ? static_cast<int>(key) : -1;
  }
}

// How a variant ran: its grid, shared memory, histogram copies per block and cluster size, the
// launches it took (a memset of the bins, then its kernel), and why it ran another kernel than
// its own ("" when it did not: the bins do not fit its shared memory, or the GPU has no clusters).
struct Launch {
  int launches = 0;
  unsigned blocks = 0;
  std::size_t smem_bytes = 0;
  int copies = 0;   // histogram copies in one block's shared memory (0: none, global atomics)
  int cluster = 0;  // blocks per cluster (0: no cluster launch)
  std::string fallback;
};

// What `v` will launch for `bins` bins of K keys on the current device, with keys at `keys`
// (16-byte aligned or not); n sizes the grid. Launches nothing.
template <typename K>
Launch plan(Variant v, const K* keys, std::size_t n, unsigned bins);

// hist[b] = the number of keys[0..n) in bin b, for b < bins, on the device (hist is zeroed
// first, on `stream`). Throws std::invalid_argument for bins outside 2 .. 65,536 (or above 256
// for uint8 keys).
template <typename K>
Launch count(Variant v, const K* keys, std::size_t n, unsigned bins, unsigned* hist, cudaStream_t stream = nullptr);

// cub::DeviceHistogram::HistogramEven with levels 0 .. key_range<K>(bins), for comparison.
template <typename K>
class CubHistogram {
 public:
  CubHistogram(const K* keys, std::size_t n, unsigned bins, unsigned* hist);
  void run(cudaStream_t stream = nullptr);

 private:
  cudalab::CubCall call_;
};

}  // namespace histogram
