#pragma once
// sort: sorting n keys (uint32 or float) or key-value pairs (uint32 keys, uint32 values) on the GPU:
// a bitonic sorting network (the comparison-based baseline), a merge sort (tiles sorted in shared
// memory, then merge passes placed by merge path), LSD radix sort with 4-bit and 8-bit digits
// (each pass a histogram of the tiles' digits, a scan of those counts, and a stable scatter: the
// histogram and scan labs' patterns, one after the other) and the one-sweep radix sort (every
// pass's counts in one read, a decoupled look-back per pass), timed against cub::DeviceRadixSort
// in the same run.
//
// Floats sort by their bits made monotone (the sign flip: negative floats' bits inverted, positive
// ones' sign bit set), with -0.0 taken as +0.0, as CUB does: -NaN < -inf < ... < -0.0 = +0.0 < ...
// < +inf < +NaN, and keys of one value (the two zeros included) keep their input order.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/cub_call.hpp"
#include "common/device_buffer.hpp"
#include "common/math.hpp"
#include "common/variants.hpp"

namespace sort {

enum class Variant { kBitonic, kMerge, kRadix1, kRadix4, kRadix8, kOnesweep };
CUDALAB_DECLARE_VARIANTS(Variant)

enum class KeyType { kU32, kFloat };
const char* key_type_name(KeyType t);

// Whether the variant is a stable sort (pairs need one: bitonic is not).
bool is_stable(Variant v);

// The bits a key sorts by: its own for uint32; the sign flip, with -0.0 as +0.0, for float (the
// kernels' and the CPU's one definition).
CUDALAB_HD inline std::uint32_t bits_of(std::uint32_t raw, bool is_float) {
  if (!is_float) return raw;
  if (raw == 0x80000000u) raw = 0;  // -0.0 sorts as +0.0
  return (raw & 0x80000000u) ? ~raw : raw | 0x80000000u;
}
inline std::uint32_t sort_bits(std::uint32_t raw, KeyType t) { return bits_of(raw, t == KeyType::kFloat); }

class Workspace;

// Where a sort left its result (buffers of the workspace).
struct Sorted {
  const std::uint32_t* keys = nullptr;
  const std::uint32_t* values = nullptr;  // null for keys only
  int launches = 0;
};

// Sorts n keys (their raw bits: uint32, or a float's bits for KeyType::kFloat) from `keys`, and
// `values` beside them when not null, into the workspace; `keys` and `values` are only read.
// Throws std::invalid_argument for a variant that is not stable given values, or n past capacity.
Sorted sort(Variant v, KeyType t, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Workspace& ws,
            cudaStream_t stream = nullptr);

// Device scratch for sorts of up to `capacity` keys: two ping-pong buffers of keys and of values,
// the tiles' digit counts and their scan, and the one-sweep sort's look-back state (8 bytes per
// tile and digit: half a byte per key).
class Workspace {
 public:
  explicit Workspace(std::size_t capacity, bool pairs);
  std::size_t capacity() const { return capacity_; }
  void poison();  // 0xFF in every byte of the buffers a sort leaves its result in

 private:
  friend Sorted sort(Variant, KeyType, const std::uint32_t*, const std::uint32_t*, std::size_t, Workspace&, cudaStream_t);
  std::size_t capacity_;
  cudalab::DeviceBuffer<std::uint32_t> keys_[2], values_[2];
  cudalab::DeviceBuffer<std::uint32_t> counts_, scan_sums_;
  cudalab::DeviceBuffer<unsigned long long> sweep_state_;  // the one-sweep look-back: a word per tile and digit
  cudalab::DeviceBuffer<unsigned> sweep_tiles_;            // its tile counter, one per pass
  cudalab::DeviceBuffer<std::size_t> merge_parts_;         // the merge passes' partitions, one per tile boundary
};

// cub::DeviceRadixSort::SortKeys / SortPairs on the same data, into its own buffers.
class CubSort {
 public:
  CubSort(KeyType t, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n);
  Sorted run(cudaStream_t stream = nullptr);
  void poison();

 private:
  bool pairs_;
  cudalab::DeviceBuffer<std::uint32_t> out_keys_, out_values_;
  cudalab::CubCall call_;  // after the buffers it writes
};

}  // namespace sort
