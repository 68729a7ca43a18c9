#include "common/cuda_check.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <utility>

namespace cudalab {

namespace {
std::string describe(cudaError_t code, const char* call, const char* file, int line) {
  return fmt::format("{}:{}: {} failed: {} ({})", file, line, call, cudaGetErrorName(code),
                     cudaGetErrorString(code));
}
}  // namespace

CudaError::CudaError(cudaError_t code, const char* call, const char* file, int line)
    : std::runtime_error(describe(code, call, file, line)), code_(code) {}

void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) {
    // Clear the sticky "last error" so a test that expects this failure leaves no trace
    // for the next CUDA call (errors that corrupt the context stay sticky regardless).
    (void)cudaGetLastError();
    throw CudaError(code, call, file, line);
  }
}

void check_launch(const char* kernel, const char* file, int line) {
  const std::string launch = fmt::format("launch of {}", kernel);
  check_cuda(cudaGetLastError(), launch.c_str(), file, line);
#if defined(CUDALAB_SYNC_AFTER_LAUNCH) && CUDALAB_SYNC_AFTER_LAUNCH
  const std::string sync = fmt::format("cudaDeviceSynchronize after {}", kernel);
  check_cuda(cudaDeviceSynchronize(), sync.c_str(), file, line);
#endif
}

void allow_dynamic_shared_memory(const void* kernel, int bytes) {
  static std::mutex mutex;
  static std::map<std::pair<int, const void*>, int> raised;  // (device, kernel): the limit set
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const std::lock_guard<std::mutex> lock(mutex);
  int& limit = raised[{device, kernel}];
  if (limit >= bytes) return;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  limit = bytes;
}

}  // namespace cudalab
