#pragma once
// One call of a CUB device-wide algorithm (cub::DeviceReduce, DeviceScan, DeviceHistogram,
// DeviceRadixSort, DeviceSelect ...), the labs' yardsticks. CUB takes its scratch space in two
// calls of the same function: the first, with a null pointer, only says how many bytes it needs;
// the second does the work. CubCall is that idiom once: built from the call (its scratch pointer,
// byte count and stream left as parameters), it asks for the size and allocates; each run() is the
// second call, on the caller's stream.
//
//   cudalab::CubCall sum("cub::DeviceReduce::Sum", [=](void* temp, std::size_t& bytes, cudaStream_t s) {
//     return cub::DeviceReduce::Sum(temp, bytes, in, out, n, s);
//   });
//   sum.run(stream);
//
// No CUB header here: the lambda is written (and CUB compiled) in the lab's <lab>_cub.cu alone.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <utility>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"

namespace cudalab {

class CubCall {
 public:
  using Call = std::function<cudaError_t(void* temp, std::size_t& bytes, cudaStream_t stream)>;

  // `name` names the call in an error (a CudaError says which CUB function failed).
  CubCall(const char* name, Call call) : name_(name), call_(std::move(call)) {
    check_cuda(call_(nullptr, bytes_, nullptr), name_, __FILE__, __LINE__);
    temp_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes_, 1));
  }

  void run(cudaStream_t stream = nullptr) { check_cuda(call_(temp_.data(), bytes_, stream), name_, __FILE__, __LINE__); }

 private:
  const char* name_ = "";
  Call call_;
  std::size_t bytes_ = 0;
  DeviceBuffer<unsigned char> temp_;
};

}  // namespace cudalab
