#pragma once
// Error policy for the whole project: every CUDA runtime error becomes a cudalab::CudaError
// exception carrying file:line, the call's text, the error's name and its description.
// Tests see a failed assertion instead of a dead test binary; a lab's main (lab_main.hpp)
// turns the exception into one line on stderr and exit code 3.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace cudalab {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const char* call, const char* file, int line);
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

// Bad input from the user (command line, files): exit code 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// No usable CUDA device (none present, driver missing or too old): exit code 77.
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws CudaError when `code` is not cudaSuccess. Use through CUDA_CHECK.
void check_cuda(cudaError_t code, const char* call, const char* file, int line);

// Call after a kernel launch: reports launch-configuration errors at once and, in Debug
// builds (CUDALAB_SYNC_AFTER_LAUNCH), synchronizes so faults surface at the guilty launch.
void check_launch(const char* kernel, const char* file, int line);

// More than 48 KB of dynamic shared memory per block needs the kernel's opt-in
// (cudaFuncAttributeMaxDynamicSharedMemorySize). Raises `kernel`'s limit to `bytes` on the current
// device the first time that device and kernel ask for this much; later calls are a lookup (the
// launchers call it before every launch, timed loops included). Keyed by the kernel's address: two
// kernels of one type (template instances, a table of launchers) each get their own opt-in.
void allow_dynamic_shared_memory(const void* kernel, int bytes);
template <typename... Args>
void allow_dynamic_shared_memory(void (*kernel)(Args...), int bytes) {
  allow_dynamic_shared_memory(reinterpret_cast<const void*>(kernel), bytes);
}

}  // namespace cudalab

#define CUDA_CHECK(call) ::cudalab::check_cuda((call), #call, __FILE__, __LINE__)
#define CUDA_CHECK_LAUNCH(kernel_name) ::cudalab::check_launch((kernel_name), __FILE__, __LINE__)
