#include "common/device_facts.hpp"

#include <gtest/gtest.h>

#include "common/cuda_check.hpp"
#include "gpu_test.hpp"

namespace {

TEST(QueryDevice, MatchesCudaGetDeviceProperties) {
  CUDALAB_REQUIRE_GPU();
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, 0));
  const auto f = cudalab::query_device(0);
  EXPECT_EQ(f.name, std::string(p.name));
  EXPECT_EQ(f.cc_major, p.major);
  EXPECT_EQ(f.cc_minor, p.minor);
  EXPECT_EQ(f.sm_count, p.multiProcessorCount);
  EXPECT_EQ(f.max_threads_per_sm, p.maxThreadsPerMultiProcessor);
  EXPECT_EQ(f.max_threads_per_block, p.maxThreadsPerBlock);
  EXPECT_EQ(f.max_blocks_per_sm, p.maxBlocksPerMultiProcessor);
  EXPECT_EQ(f.warp_size, p.warpSize);
  EXPECT_EQ(f.regs_per_sm, p.regsPerMultiprocessor);
  EXPECT_EQ(f.regs_per_block, p.regsPerBlock);
  EXPECT_EQ(f.smem_per_sm_bytes, p.sharedMemPerMultiprocessor);
  EXPECT_EQ(f.smem_per_block_bytes, p.sharedMemPerBlock);
  EXPECT_EQ(f.smem_per_block_optin_bytes, p.sharedMemPerBlockOptin);
  EXPECT_EQ(f.smem_reserved_per_block_bytes, p.reservedSharedMemPerBlock);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(f.max_grid[d], p.maxGridSize[d]);
    EXPECT_EQ(f.max_block_dim[d], p.maxThreadsDim[d]);
  }
  EXPECT_EQ(f.l2_bytes, static_cast<std::size_t>(p.l2CacheSize));
  EXPECT_EQ(f.memory_bus_width_bits, p.memoryBusWidth);
  EXPECT_EQ(f.global_mem_bytes, p.totalGlobalMem);
  EXPECT_EQ(f.concurrent_kernels, p.concurrentKernels != 0);
  EXPECT_EQ(f.unified_addressing, p.unifiedAddressing != 0);
  EXPECT_GT(f.memory_clock_khz, 0);
  EXPECT_GT(f.sm_clock_khz, 0);
  EXPECT_EQ(f.warp_size, 32);
}

TEST(SelectDevice, RejectsOrdinalsThatDoNotExist) {
  CUDALAB_REQUIRE_GPU();
  const int count = cudalab::usable_device_count();
  EXPECT_THROW(cudalab::select_device(count), cudalab::UsageError);
  EXPECT_THROW(cudalab::select_device(-1), cudalab::UsageError);
  EXPECT_NO_THROW(cudalab::select_device(0));
}

}  // namespace
