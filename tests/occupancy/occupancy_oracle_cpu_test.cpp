// The project's occupancy calculator against NVIDIA's host-side calculator (cuda_occupancy.h,
// shipped with the toolkit), used here only as the oracle: sweeps over block sizes, registers
// per thread and shared memory per block for every known architecture must agree exactly.
#include <cuda_occupancy.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/occupancy_calc.hpp"

namespace {

namespace occ = cudalab::occupancy;

cudaOccDeviceProp oracle_device(const occ::GpuSpec& g) {
  cudaOccDeviceProp p;
  p.computeMajor = g.cc_major;
  p.computeMinor = g.cc_minor;
  p.maxThreadsPerBlock = g.max_threads_per_block;
  p.maxThreadsPerMultiprocessor = g.max_threads_per_sm;
  p.regsPerBlock = g.regs_per_block;
  p.regsPerMultiprocessor = g.regs_per_sm;
  p.warpSize = g.warp_size;
  p.sharedMemPerBlock = g.smem_per_block;
  p.sharedMemPerMultiprocessor = g.smem_per_sm;
  p.numSms = 100;
  p.sharedMemPerBlockOptin = g.smem_per_block_optin;
  p.reservedSharedMemPerBlock = g.smem_reserved_per_block;
  return p;
}

struct Counts {
  long long configs = 0, agree = 0;
};

// Compares one configuration; records the first few disagreements as test failures.
void compare(const occ::GpuSpec& g, const occ::KernelSpec& k, Counts& c) {
  const cudaOccDeviceProp prop = oracle_device(g);
  cudaOccFuncAttributes attr;
  attr.maxThreadsPerBlock = g.max_threads_per_block;
  attr.numRegs = k.regs_per_thread;
  attr.sharedSizeBytes = k.static_smem;
  attr.partitionedGCConfig = PARTITIONED_GC_OFF;
  attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  attr.maxDynamicSharedSizeBytes = k.max_dynamic_smem;
  attr.numBlockBarriers = k.barriers;
  attr.virtualResourceCount = 0;
  cudaOccDeviceState state;
  cudaOccResult want{};
  const cudaOccError err =
      cudaOccMaxActiveBlocksPerMultiprocessor(&want, &prop, &attr, &state, k.block_threads, k.dynamic_smem);
  ASSERT_EQ(err, CUDA_OCC_SUCCESS) << g.arch;
  const occ::Result got = occ::compute(g, k);
  unsigned want_limiters = 0;
  if (want.limitingFactors & OCC_LIMIT_WARPS) want_limiters |= occ::kLimitWarps;
  if (want.limitingFactors & OCC_LIMIT_REGISTERS) want_limiters |= occ::kLimitRegisters;
  if (want.limitingFactors & OCC_LIMIT_SHARED_MEMORY) want_limiters |= occ::kLimitSharedMemory;
  if (want.limitingFactors & OCC_LIMIT_BLOCKS) want_limiters |= occ::kLimitBlocks;
  if (want.limitingFactors & OCC_LIMIT_BARRIERS) want_limiters |= occ::kLimitBarriers;
  const bool same = got.resident_blocks == want.activeBlocksPerMultiprocessor &&
                    got.by_registers == want.blockLimitRegs && got.by_shared_memory == want.blockLimitSharedMem &&
                    got.by_warps == want.blockLimitWarps && got.by_blocks == want.blockLimitBlocks &&
                    got.limiters == want_limiters && got.smem_allocated_per_block == want.allocatedSharedMemPerBlock &&
                    got.regs_allocated_per_block == want.allocatedRegistersPerBlock;
  ++c.configs;
  if (same) {
    ++c.agree;
  } else if (c.configs - c.agree <= 5) {
    ADD_FAILURE() << g.arch << " block=" << k.block_threads << " regs=" << k.regs_per_thread
                  << " static=" << k.static_smem << " dynamic=" << k.dynamic_smem << " maxdyn=" << k.max_dynamic_smem
                  << ": ours " << got.resident_blocks << " (w" << got.by_warps << " r" << got.by_registers << " s"
                  << got.by_shared_memory << " b" << got.by_blocks << " lim " << got.limiters << "), oracle "
                  << want.activeBlocksPerMultiprocessor << " (w" << want.blockLimitWarps << " r" << want.blockLimitRegs
                  << " s" << want.blockLimitSharedMem << " b" << want.blockLimitBlocks << " lim " << want_limiters << ")";
  }
}

std::vector<int> block_sizes() {
  std::vector<int> v;
  for (int b = 32; b <= 1024; b += 32) v.push_back(b);
  for (int b : {1, 17, 33, 100, 257, 1000, 1023}) v.push_back(b);  // partial warps
  return v;
}

class OccupancyOracle : public ::testing::TestWithParam<std::string> {};

// Every block size x every register count 0..255, at a few shared-memory sizes.
TEST_P(OccupancyOracle, RegistersSweepAgreesExactly) {
  const occ::GpuSpec g = *occ::spec_for_arch(GetParam());
  Counts c;
  for (int block : block_sizes()) {
    for (int regs = 0; regs <= 255; ++regs) {
      for (std::size_t smem : {std::size_t{0}, std::size_t{1}, std::size_t{8200}, g.smem_per_block_optin / 3}) {
        occ::KernelSpec k;
        k.block_threads = block;
        k.regs_per_thread = regs;
        k.dynamic_smem = smem;
        k.max_dynamic_smem = g.smem_per_block_optin;
        compare(g, k, c);
      }
    }
  }
  EXPECT_EQ(c.agree, c.configs) << GetParam();
  EXPECT_EQ(c.configs, static_cast<long long>(block_sizes().size()) * 256 * 4);
  std::printf("%s: %lld of %lld configurations agree\n", GetParam().c_str(), c.agree, c.configs);
}

// Every block size x shared memory from 0 to past the opt-in maximum in 128-byte steps (and
// one byte over each step), at a few register counts; with and without opting in.
TEST_P(OccupancyOracle, SharedMemorySweepAgreesExactly) {
  const occ::GpuSpec g = *occ::spec_for_arch(GetParam());
  Counts c;
  for (int block : block_sizes()) {
    for (int regs : {0, 16, 32, 40, 64, 168, 255}) {
      for (std::size_t smem = 0; smem <= g.smem_per_block_optin + 1024; smem += 128) {
        for (std::size_t s : {smem, smem + 1}) {
          for (bool opt_in : {true, false}) {
            occ::KernelSpec k;
            k.block_threads = block;
            k.regs_per_thread = regs;
            k.dynamic_smem = s;
            k.max_dynamic_smem = opt_in ? g.smem_per_block_optin : 48 * 1024;
            compare(g, k, c);
          }
        }
      }
    }
  }
  EXPECT_EQ(c.agree, c.configs) << GetParam();
  std::printf("%s: %lld of %lld configurations agree\n", GetParam().c_str(), c.agree, c.configs);
}

// Static shared memory and kernels without barriers.
TEST_P(OccupancyOracle, StaticSharedMemoryAndBarriersAgree) {
  const occ::GpuSpec g = *occ::spec_for_arch(GetParam());
  Counts c;
  for (int block : block_sizes()) {
    for (std::size_t stat : {std::size_t{0}, std::size_t{4096}, std::size_t{40000}}) {
      for (std::size_t dyn = 0; dyn <= 64 * 1024; dyn += 1000) {
        for (int barriers : {0, 1, 2}) {
          occ::KernelSpec k;
          k.block_threads = block;
          k.regs_per_thread = 32;
          k.static_smem = stat;
          k.dynamic_smem = dyn;
          k.max_dynamic_smem = g.smem_per_block_optin - stat;
          k.barriers = barriers;
          compare(g, k, c);
        }
      }
    }
  }
  EXPECT_EQ(c.agree, c.configs) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Archs, OccupancyOracle, ::testing::ValuesIn(occ::known_archs()),
                         [](const ::testing::TestParamInfo<std::string>& arch) { return arch.param; });

}  // namespace
