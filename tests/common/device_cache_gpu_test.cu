// common/device_cache: the limits and occupancies a launcher reads are the runtime's, and a kernel
// that asks for more than 48 KB of dynamic shared memory is opted in before it is counted.
#include "common/device_cache.hpp"

#include <gtest/gtest.h>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "gpu_test.hpp"

namespace {

__global__ void cache_plain(int* out) { out[threadIdx.x] = 1; }

__global__ void cache_big_shared(int* out, int words) {
  extern __shared__ int s[];
  for (int i = static_cast<int>(threadIdx.x); i < words; i += static_cast<int>(blockDim.x)) s[i] = 2;
  __syncthreads();
  out[threadIdx.x] = s[words - 1 - static_cast<int>(threadIdx.x)];
}

TEST(DeviceCache, LimitsAreTheRuntimesAndStayPut) {
  CUDALAB_REQUIRE_GPU();
  int device = 0, sms = 0, threads = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  const cudalab::LaunchLimits& d = cudalab::launch_limits();
  EXPECT_EQ(d.device, device);
  EXPECT_EQ(d.sms, sms);
  EXPECT_EQ(d.max_threads_per_sm, threads);
  EXPECT_EQ(d.max_warps_per_sm, threads / 32);
  EXPECT_EQ(d.cc_major, major);
  EXPECT_EQ(d.clusters, major >= 9);
  EXPECT_EQ(&cudalab::launch_limits(), &d);  // one entry per device, read again
}

TEST(DeviceCache, ResidentBlocksAreTheOccupancyApisForEveryBlockSize) {
  CUDALAB_REQUIRE_GPU();
  for (int block : {32, 96, 256, 1000, 1024}) {
    int want = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&want, cache_plain, block, 0));
    EXPECT_EQ(cudalab::resident_blocks(cache_plain, block), want) << block;
    EXPECT_EQ(cudalab::resident_blocks(cache_plain, block), want) << block;  // from the cache
  }
}

TEST(DeviceCache, ALargeSharedMemoryKernelIsOptedInAndLaunches) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::LaunchLimits& d = cudalab::launch_limits();
  if (d.smem_optin <= 64 * 1024) GTEST_SKIP() << "this GPU opts in to " << d.smem_optin << " bytes only";
  const std::size_t bytes = 64 * 1024;
  const int per_sm = cudalab::resident_blocks(cache_big_shared, 128, bytes);
  EXPECT_GE(per_sm, 1);
  cudalab::DeviceBuffer<int> out(128);
  cache_big_shared<<<1, 128, bytes>>>(out.data(), static_cast<int>(bytes / sizeof(int)));
  CUDA_CHECK_LAUNCH("cache_big_shared");
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int v : out.download()) EXPECT_EQ(v, 2);
  // a smaller amount later keeps the larger opt-in: the large launch still runs
  EXPECT_GE(cudalab::resident_blocks(cache_big_shared, 128, 1024), per_sm);
  cache_big_shared<<<1, 128, bytes>>>(out.data(), static_cast<int>(bytes / sizeof(int)));
  CUDA_CHECK_LAUNCH("cache_big_shared");
  CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace
