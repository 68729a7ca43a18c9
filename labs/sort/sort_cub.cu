// The sort lab's yardstick, cub::DeviceRadixSort (SortKeys, SortPairs), in a file of its own:
// CUB's templates are a large part of a compile, so sort.cu, the file with the student regions,
// recompiles without them, for the student and the grader alike.
#include "sort.hpp"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstdint>

namespace sort {

namespace {

// The one CUB call of a CubSort: pairs, float keys (their order, not their bits') or uint32 keys.
cudalab::CubCall sort_call(KeyType t, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                           std::uint32_t* out_keys, std::uint32_t* out_values) {
  const auto items = static_cast<std::int64_t>(n);
  if (values) {
    return cudalab::CubCall("cub::DeviceRadixSort::SortPairs", [=](void* temp, std::size_t& bytes, cudaStream_t s) {
      return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, out_keys, values, out_values, items, 0, 32, s);
    });
  }
  if (t == KeyType::kFloat) {
    return cudalab::CubCall("cub::DeviceRadixSort::SortKeys", [=](void* temp, std::size_t& bytes, cudaStream_t s) {
      return cub::DeviceRadixSort::SortKeys(temp, bytes, reinterpret_cast<const float*>(keys),
                                            reinterpret_cast<float*>(out_keys), items, 0, 32, s);
    });
  }
  return cudalab::CubCall("cub::DeviceRadixSort::SortKeys", [=](void* temp, std::size_t& bytes, cudaStream_t s) {
    return cub::DeviceRadixSort::SortKeys(temp, bytes, keys, out_keys, items, 0, 32, s);
  });
}

}  // namespace

CubSort::CubSort(KeyType t, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n)
    : pairs_(values != nullptr), out_keys_(std::max<std::size_t>(n, 1)), out_values_(values ? std::max<std::size_t>(n, 1) : 0),
      call_(sort_call(t, keys, values, n, out_keys_.data(), out_values_.data())) {}

Sorted CubSort::run(cudaStream_t stream) {
  call_.run(stream);
  Sorted s;
  s.keys = out_keys_.data();
  s.values = pairs_ ? out_values_.data() : nullptr;
  s.launches = 1;
  return s;
}

}  // namespace sort
