// The histogram lab's yardstick, cub::DeviceHistogram::HistogramEven, in a file of its own:
// CUB's templates are a large part of a compile, so histogram.cu, the file with the student
// regions, recompiles without them, for the student and the grader alike.
#include <cuda_runtime.h>

#include <cub/device/device_histogram.cuh>

#include <algorithm>

#include "common/cuda_check.hpp"
#include "histogram.hpp"

namespace histogram {

template <typename K>
CubHistogram<K>::CubHistogram(const K* keys, std::size_t n, unsigned bins, unsigned* hist)
    : keys_(keys), n_(n), bins_(bins), hist_(hist) {
  CUDA_CHECK(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes_, keys_, hist_, static_cast<int>(bins_) + 1, 0,
                                                  static_cast<int>(key_range<K>(bins_)), static_cast<long long>(n_)));
  temp_ = cudalab::DeviceBuffer<unsigned char>(std::max<std::size_t>(temp_bytes_, 1));
}

template <typename K>
void CubHistogram<K>::run(cudaStream_t stream) {
  CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp_.data(), temp_bytes_, keys_, hist_, static_cast<int>(bins_) + 1,
                                                  0, static_cast<int>(key_range<K>(bins_)), static_cast<long long>(n_),
                                                  stream));
}

template class CubHistogram<unsigned char>;
template class CubHistogram<unsigned>;

}  // namespace histogram
