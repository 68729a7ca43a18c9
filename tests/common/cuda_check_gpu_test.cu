#include "common/cuda_check.hpp"

#include <gtest/gtest.h>

#include <string>

#include "common/device_buffer.hpp"
#include "gpu_test.hpp"

namespace {

__global__ void write_one(int* out) { out[threadIdx.x] = 1; }

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

}  // namespace
