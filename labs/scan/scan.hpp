#pragma once
// scan: prefix sums (inclusive and exclusive) of int32 and float, any n up to past 2^31 elements:
// block scans of the textbooks (Kogge-Stone, Brent-Kung, warp shuffles) under the three-kernel
// scan-then-propagate, then the single-pass decoupled look-back (Merrill and Garland, 2016),
// timed against cub::DeviceScan in the same run.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/cub_call.hpp"
#include "common/device_buffer.hpp"
#include "common/math.hpp"
#include "common/variants.hpp"

namespace scan {

// The variants, in ladder order; the table in scan.cu says what each changes.
enum class Variant {
  kKoggeStone,
  kBrentKung,
  kWarpShuffle,
  kDecoupledLookback,
};
CUDALAB_DECLARE_VARIANTS(Variant)

enum class Kind { kInclusive, kExclusive };
const char* kind_name(Kind k);

// Elements one block scans at once (its tile): the three-kernel variants launch one block per
// tile, then scan the tiles' totals the same way, then add each tile's prefix.
std::size_t tile_elements(Variant v);

// Device scratch for scans of up to `capacity` elements: the tile totals of every level, and the
// look-back's tile states and ticket counter.
template <typename T>
class Workspace {
 public:
  explicit Workspace(std::size_t capacity);
  std::size_t capacity() const { return capacity_; }

 private:
  template <typename U>
  friend int scan(Variant, Kind, const U*, U*, std::size_t, Workspace<U>&, cudaStream_t);
  std::size_t capacity_;
  cudalab::DeviceBuffer<T> sums_;                   // every level's tile totals, one after another
  cudalab::DeviceBuffer<unsigned long long> state_;  // look-back: one word per tile, then the ticket counter
};

// out[i] = in[0] + ... + in[i] (inclusive) or in[0] + ... + in[i-1] (exclusive, out[0] = 0), for
// i < n, on the device. `out` may be `in`. Returns the kernel launches (and memsets) it took.
// T is int (wrapping, as unsigned arithmetic) or float.
template <typename T>
int scan(Variant v, Kind kind, const T* in, T* out, std::size_t n, Workspace<T>& ws, cudaStream_t stream = nullptr);

// The look-back alone, for its tests: a tile's state word is flag << 32 | the value's 32 bits
// (flag 0: not yet published, kLookBackAggregate: the tile's own total, kLookBackPrefix: the sum
// of every tile up to and including it). look_back_probe puts `now` (one word per tile before
// `tile`) in device memory and runs the look-back of tile `tile` in one warp, while a second warp
// of the same block waits until the look-back has started, waits about 20 us more, then publishes
// each `later` word (tile index, word) in order. Returns what the look-back gave lane 0 and, in
// *lanes_agree, whether all 32 lanes gave the same. Any consistent set of states has one answer:
// the sum of the tiles' totals before `tile`.
inline constexpr unsigned long long kLookBackAggregate = 1, kLookBackPrefix = 2;
// A tile's state word, as the scan's blocks publish it and the look-back reads it.
template <typename T>
CUDALAB_HD inline unsigned long long look_back_word(unsigned long long flag, T value) {
  static_assert(sizeof(T) == 4, "a tile's value is the low 32 bits of its word");
  return flag << 32 | __builtin_bit_cast(unsigned, value);
}
struct LateWord {
  long long tile;
  unsigned long long word;
};
template <typename T>
T look_back_probe(const std::vector<unsigned long long>& now, const std::vector<LateWord>& later, long long tile,
                  bool* lanes_agree);

// cub::DeviceScan::InclusiveSum / ExclusiveSum, for comparison.
template <typename T>
class CubScan {
 public:
  CubScan(const T* in, T* out, std::size_t n, Kind kind);
  void run(cudaStream_t stream = nullptr);

 private:
  cudalab::CubCall call_;
};

// The compaction's predicate, one definition for its kernels and for CUB's DeviceSelect::If
// (scan_cub.cu): keep the x > 0.
template <typename T>
__host__ __device__ __forceinline__ bool keep(T x) {
  return x > T(0);
}

// Stream compaction built on the scan (select if): out gets, in their order, the elements of in
// that are greater than 0, and *count how many; the yardstick is cub::DeviceSelect::If with the
// same predicate. n is below 2^32: the look-back carries the kept counts as 32-bit values.
namespace compaction {

enum class Variant { kScanThenScatter, kSinglePass, kSinglePassStaged };
CUDALAB_DECLARE_VARIANTS(Variant)

inline constexpr std::size_t kMaxN = 0xFFFFFFFFull;

// The single passes' tile: 256 threads x 32 elements (the scan's look-back takes 128 x 32: a
// compaction writes only what it keeps, so it publishes later in its tile and gains more from
// half as many tiles and look-backs).
inline constexpr int kSinglePassBlock = 256, kSinglePassItems = 32;
inline constexpr std::size_t kSinglePassTile = std::size_t{kSinglePassBlock} * kSinglePassItems;

class Workspace;

// out[0 .. *count) = the x > 0 of in[0 .. n), in order (T is int or float). Returns the kernel
// launches (and memsets) it took. Throws std::invalid_argument for n > kMaxN or past capacity.
template <typename T>
int compact(Variant v, const T* in, T* out, std::size_t n, unsigned long long* count, Workspace& ws,
            cudaStream_t stream = nullptr);

// Device scratch for compactions of up to `capacity` elements: the flags the three-kernel
// variant scans, that scan's workspace, and the single pass's tile states and ticket counter.
class Workspace {
 public:
  explicit Workspace(std::size_t capacity);
  std::size_t capacity() const { return capacity_; }

 private:
  template <typename U>
  friend int compact(Variant, const U*, U*, std::size_t, unsigned long long*, Workspace&, cudaStream_t);
  std::size_t capacity_;
  cudalab::DeviceBuffer<int> flags_;
  scan::Workspace<int> scan_;
  cudalab::DeviceBuffer<unsigned long long> state_;
};

// cub::DeviceSelect::If with the same predicate, for comparison.
template <typename T>
class CubSelect {
 public:
  CubSelect(const T* in, T* out, unsigned long long* count, std::size_t n);
  void run(cudaStream_t stream = nullptr);

 private:
  cudalab::CubCall call_;
};

}  // namespace compaction

}  // namespace scan
