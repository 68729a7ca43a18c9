// The histogram lab's yardstick, cub::DeviceHistogram::HistogramEven, in a file of its own:
// CUB's templates are a large part of a compile, so histogram.cu, the file with the student
// regions, recompiles without them, for the student and the grader alike.
#include <cuda_runtime.h>

#include <cub/device/device_histogram.cuh>

#include "histogram.hpp"

namespace histogram {

template <typename K>
CubHistogram<K>::CubHistogram(const K* keys, std::size_t n, unsigned bins, unsigned* hist)
    : call_("cub::DeviceHistogram::HistogramEven", [=](void* temp, std::size_t& bytes, cudaStream_t s) {
        return cub::DeviceHistogram::HistogramEven(temp, bytes, keys, hist, static_cast<int>(bins) + 1, 0,
                                                   static_cast<int>(key_range<K>(bins)), static_cast<long long>(n), s);
      }) {}

template <typename K>
void CubHistogram<K>::run(cudaStream_t stream) {
  call_.run(stream);
}

template class CubHistogram<unsigned char>;
template class CubHistogram<unsigned>;

}  // namespace histogram
