#include "common/cuda_check.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "gpu_test.hpp"

namespace {

__global__ void write_one(int* out) { out[threadIdx.x] = 1; }

// Two kernels of one type: each needs its own opt-in (one flag per type once left one of them out).
template <int Value>
__global__ void fill_shared(int* out, int words) {
  extern __shared__ int s[];
  for (int i = static_cast<int>(threadIdx.x); i < words; i += static_cast<int>(blockDim.x)) s[i] = Value;
  __syncthreads();
  out[threadIdx.x] = s[words - 1 - static_cast<int>(threadIdx.x)];
}

// Tests named CudaErrorPaths.* provoke CUDA errors on purpose; sanitizer runs exclude them,
// since compute-sanitizer counts every failing API call as an error.
TEST(CudaErrorPaths, ErrorMessageNamesFileLineCallAndError) {
  CUDALAB_REQUIRE_GPU();
  void* p = nullptr;
  try {
    CUDA_CHECK(cudaMalloc(&p, std::size_t{1} << 50));
    FAIL() << "expected CudaError";
  } catch (const cudalab::CudaError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cuda_check_gpu_test.cu:"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaMalloc(&p, std::size_t{1} << 50)"), std::string::npos) << what;
    EXPECT_NE(what.find("cudaErrorMemoryAllocation"), std::string::npos) << what;
    EXPECT_NE(what.find("out of memory"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
  }
}

TEST(CudaCheck, SuccessDoesNotThrow) {
  CUDALAB_REQUIRE_GPU();
  EXPECT_NO_THROW(CUDA_CHECK(cudaDeviceSynchronize()));
}

TEST(CudaErrorPaths, BadLaunchConfigurationIsReportedAtTheLaunch) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<int> out(4096);
  write_one<<<1, 4096>>>(out.data());  // more threads per block than any GPU allows
  try {
    CUDA_CHECK_LAUNCH("write_one");
    FAIL() << "expected CudaError";
  } catch (const cudalab::CudaError& e) {
    // CUDA 13 reports cudaErrorInvalidValue here; older runtimes cudaErrorInvalidConfiguration.
    EXPECT_TRUE(e.code() == cudaErrorInvalidValue || e.code() == cudaErrorInvalidConfiguration)
        << cudaGetErrorName(e.code());
    EXPECT_NE(std::string(e.what()).find("launch of write_one"), std::string::npos) << e.what();
  }
  // The launch error is not sticky: a good launch afterwards works.
  write_one<<<1, 32>>>(out.data());
  EXPECT_NO_THROW(CUDA_CHECK_LAUNCH("write_one"));
  EXPECT_NO_THROW(CUDA_CHECK(cudaDeviceSynchronize()));
  EXPECT_EQ(out.download()[31], 1);
}

TEST(CudaErrorPaths, DynamicSharedMemoryOptInIsPerKernelAndIdempotent) {
  CUDALAB_REQUIRE_GPU();
  int device = 0, optin = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  if (optin < 64 * 1024) GTEST_SKIP() << "this GPU cannot give a block 64 KB of shared memory";
  const int bytes = 64 * 1024, words = bytes / 4;
  cudalab::DeviceBuffer<int> out(32);
  // without the opt-in the launch is refused (an error on purpose: CudaErrorPaths)
  fill_shared<7><<<1, 32, bytes>>>(out.data(), words);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  cudalab::allow_dynamic_shared_memory(fill_shared<7>, bytes);
  cudalab::allow_dynamic_shared_memory(fill_shared<7>, bytes);  // a lookup the second time
  cudalab::allow_dynamic_shared_memory(fill_shared<9>, bytes);  // the same type, its own opt-in
  fill_shared<7><<<1, 32, bytes>>>(out.data(), words);
  CUDA_CHECK_LAUNCH("fill_shared<7>");
  EXPECT_EQ(out.download(), std::vector<int>(32, 7));
  fill_shared<9><<<1, 32, bytes>>>(out.data(), words);
  CUDA_CHECK_LAUNCH("fill_shared<9>");
  EXPECT_EQ(out.download(), std::vector<int>(32, 9));
}

}  // namespace
