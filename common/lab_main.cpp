#include "common/lab_main.hpp"

#include <cstdio>
#include <exception>
#include <new>

#include "common/cuda_check.hpp"

namespace cudalab {

namespace {
bool means_no_device(cudaError_t code) {
  return code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver ||
         code == cudaErrorNotSupported || code == cudaErrorSystemNotReady ||
         code == cudaErrorSystemDriverMismatch || code == cudaErrorCompatNotSupportedOnDevice;
}
}  // namespace

int run_lab(const std::string& lab_name, const std::function<int()>& body) {
  const char* lab = lab_name.c_str();
  try {
    return body();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\n", lab, e.what());
    return kExitUsage;
  } catch (const NoDeviceError& e) {
    std::fprintf(stderr, "%s: no usable CUDA device: %s\n", lab, e.what());
    return kExitNoDevice;
  } catch (const CudaError& e) {
    if (means_no_device(e.code())) {
      std::fprintf(stderr, "%s: no usable CUDA device: %s\n", lab, e.what());
      return kExitNoDevice;
    }
    std::fprintf(stderr, "%s: CUDA error: %s\n", lab, e.what());
    return kExitCudaError;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of host memory\n", lab);
    return kExitCudaError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", lab, e.what());
    return kExitCudaError;
  }
}

}  // namespace cudalab
