// The reduction lab's yardstick, cub::DeviceReduce::Sum, in a file of its own: CUB's templates
// are a large part of a compile, so reduction.cu, the file with the student regions, recompiles
// without them, for the student and the grader alike.
#include <cuda_runtime.h>

#include <cub/device/device_reduce.cuh>

#include "reduction.hpp"

namespace reduction {

template <typename T>
CubSum<T>::CubSum(const T* in, std::size_t n, T* out)
    : call_("cub::DeviceReduce::Sum", [=](void* temp, std::size_t& bytes, cudaStream_t s) {
        return cub::DeviceReduce::Sum(temp, bytes, in, out, n, s);
      }) {}

template <typename T>
void CubSum<T>::run(cudaStream_t stream) {
  call_.run(stream);
}

template class CubSum<int>;
template class CubSum<float>;

}  // namespace reduction
