// The course notes' worked occupancy answers, computed by the project's calculator.
#include <gtest/gtest.h>

#include "common/occupancy_calc.hpp"
#include "occupancy_lab.hpp"

namespace {

namespace occ = cudalab::occupancy;

occ::Result run(const std::string& arch, int threads, int regs, std::size_t smem = 0) {
  occ::KernelSpec k;
  k.block_threads = threads;
  k.regs_per_thread = regs;
  k.dynamic_smem = smem;
  k.max_dynamic_smem = smem > 48 * 1024 ? smem : 48 * 1024;
  return occ::compute(*occ::spec_for_arch(arch), k);
}

TEST(NotesAnswers, A100With16x16BlocksAnd20Registers) {
  // 8 blocks by threads; the register file would allow 10 (the notes estimate 12: they ignore
  // the 256-register allocation unit); 100% occupancy, limited by threads.
  const auto r = run("sm_80", 256, 20);
  EXPECT_EQ(r.by_warps, 8);
  EXPECT_EQ(r.by_registers, 10);
  EXPECT_EQ(r.resident_blocks, 8);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 100.0);
  EXPECT_EQ(r.limiter_names(), "threads");
}

TEST(NotesAnswers, A100With256ThreadsAnd32Or40Registers) {
  EXPECT_DOUBLE_EQ(run("sm_80", 256, 32).occupancy_percent, 100.0);
  const auto r40 = run("sm_80", 256, 40);
  EXPECT_EQ(r40.resident_blocks, 6);
  EXPECT_DOUBLE_EQ(r40.occupancy_percent, 75.0);
  EXPECT_EQ(r40.limiter_names(), "registers");
}

TEST(NotesAnswers, H100With128Threads168RegistersAnd64KB) {
  const auto r = run("sm_90", 128, 168, 64 * 1024);
  EXPECT_EQ(r.by_warps, 16);
  EXPECT_EQ(r.by_blocks, 32);
  EXPECT_EQ(r.by_registers, 3);
  EXPECT_EQ(r.by_shared_memory, 3);  // (228 KB) / (64 KB + 1 KB reserved) = 3.5
  EXPECT_EQ(r.resident_blocks, 3);
  EXPECT_EQ(r.active_warps, 12);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 18.75);
  EXPECT_EQ(r.limiter_names(), "registers + shared memory");
}

TEST(NotesAnswers, The1536ThreadSmWithAnEightBlockLimit) {
  occ::GpuSpec g = *occ::spec_for_arch("sm_86");
  g.max_threads_per_sm = 1536;
  g.max_blocks_per_sm = 8;
  occ::KernelSpec k;
  k.block_threads = 128;
  k.regs_per_thread = 16;
  const auto r = occ::compute(g, k);
  EXPECT_EQ(r.by_warps, 12);
  EXPECT_EQ(r.resident_blocks, 8);
  EXPECT_NEAR(r.occupancy_percent, 66.67, 0.01);
  EXPECT_EQ(r.limiter_names(), "blocks per SM");
}

TEST(Calculator, ImpossibleKernelsFitZeroTimes) {
  EXPECT_EQ(run("sm_90", 2048, 32).resident_blocks, 0);               // block too large
  EXPECT_EQ(run("sm_90", 1024, 128).resident_blocks, 0);              // 128 K registers per block
  EXPECT_EQ(run("sm_90", 256, 32, 240 * 1024).resident_blocks, 0);    // past the opt-in maximum
  occ::KernelSpec k;
  k.block_threads = 256;
  k.dynamic_smem = 64 * 1024;  // without opting in, 48 KB is the limit
  EXPECT_EQ(occ::compute(*occ::spec_for_arch("sm_90"), k).resident_blocks, 0);
}

TEST(Calculator, SpecsForEveryKnownArchitecture) {
  for (const auto& a : occ::known_archs()) {
    const auto s = occ::spec_for_arch(a);
    ASSERT_TRUE(s.has_value()) << a;
    EXPECT_EQ(s->arch, a);
    EXPECT_GT(s->max_threads_per_sm, 0);
  }
  EXPECT_FALSE(occ::spec_for_arch("sm_61").has_value());
}

TEST(Calculator, DeviceSpecUsesTheDevicesOwnLimits) {
  cudalab::DeviceFacts f;
  f.cc_major = 8;
  f.cc_minor = 7;  // not in the table: sm_8x rules apply
  f.warp_size = 32;
  f.max_threads_per_sm = 1536;
  f.max_threads_per_block = 1024;
  f.max_blocks_per_sm = 16;
  f.regs_per_sm = f.regs_per_block = 65536;
  f.smem_per_sm_bytes = 167936;
  f.smem_per_block_bytes = 49152;
  f.smem_per_block_optin_bytes = 166912;
  f.smem_reserved_per_block_bytes = 1024;
  const auto s = occ::spec_from_device(f);
  EXPECT_EQ(s.arch, "sm_87");
  EXPECT_EQ(s.smem_alloc_unit, 128u);
  EXPECT_EQ(s.max_threads_per_sm, 1536);
  f.cc_major = 6;
  EXPECT_THROW(occ::spec_from_device(f), std::invalid_argument);
}

TEST(WhatIf, ParsesArchitectureNames) {
  EXPECT_TRUE(occupancy_lab::parse_arch("sm_90").has_value());
  EXPECT_TRUE(occupancy_lab::parse_arch("90").has_value());
  EXPECT_TRUE(occupancy_lab::parse_arch("9.0").has_value());
  EXPECT_FALSE(occupancy_lab::parse_arch("sm_61").has_value());
  EXPECT_FALSE(occupancy_lab::parse_arch("banana").has_value());
}

TEST(Waves, TailArithmetic) {
  // The notes' exercise 3: A100, 2 blocks per SM -> 216 per wave; 220 blocks take 2 waves.
  EXPECT_EQ(occupancy_lab::waves(216, 108, 2), 1);
  EXPECT_EQ(occupancy_lab::waves(220, 108, 2), 2);
  EXPECT_EQ(occupancy_lab::waves(1, 132, 8), 1);
  EXPECT_EQ(occupancy_lab::waves(0, 132, 8), 0);
}

}  // namespace
