// The course notes' worked occupancy answers, computed by the project's calculator.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/occupancy_calc.hpp"
#include "common/random.hpp"
#include "gpu_test.hpp"
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

// CUDA's table of per-architecture limits: threads per SM. Also a compile-time constant, as the
// attention lab's launch bounds use it.
TEST(Calculator, ThreadsPerSmFollowTheArchitecture) {
  static_assert(occ::max_threads_per_sm(9, 0) == 2048);
  const struct { int major, minor, threads; } published[] = {{7, 5, 1024}, {8, 0, 2048},  {8, 6, 1536}, {8, 7, 1536},
                                                               {8, 9, 1536}, {10, 0, 2048}, {12, 0, 1536}};
  for (const auto& p : published) {
    EXPECT_EQ(occ::max_threads_per_sm(p.major, p.minor), p.threads) << "sm_" << p.major << p.minor;
  }
  for (const auto& a : occ::known_archs()) {
    const auto s = occ::spec_for_arch(a);
    EXPECT_EQ(s->max_threads_per_sm, occ::max_threads_per_sm(s->cc_major, s->cc_minor)) << a;
  }
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

TEST(Waves, APersistentGridShrinksTheTailToOneItem) {
  // one block too many: two waves of whole waits, 9/8 of one in items of 1/8
  EXPECT_DOUBLE_EQ(occupancy_lab::persistent_waves(1057, 1056, 8), 9.0 / 8.0);
  EXPECT_DOUBLE_EQ(occupancy_lab::persistent_waves(2 * 1056 + 1, 1056, 8), 17.0 / 8.0);
  // a whole number of waves loses nothing; split 1 is the block per wait again
  EXPECT_DOUBLE_EQ(occupancy_lab::persistent_waves(2 * 1056, 1056, 8), 2.0);
  EXPECT_DOUBLE_EQ(occupancy_lab::persistent_waves(1057, 1056, 1), static_cast<double>(occupancy_lab::waves(1057, 132, 8)));
  // the notes' A100 case, 220 blocks on 216 slots
  EXPECT_DOUBLE_EQ(occupancy_lab::persistent_waves(220, 216, 8), 9.0 / 8.0);
  EXPECT_DOUBLE_EQ(occupancy_lab::persistent_waves(5, 0, 8), 0.0);
}

// ---- the notes' exercise 74: the student's calculator (occupancy.cu) against the suite's ----

// A kernel drawn from `draw` (a splitmix stream from the run's seed) for `g`: any block size up
// to the limit, any registers up to the limit (none in about one draw of 16), static shared
// memory up to 48 KB and dynamic up to 4 KB past the opt-in limit, with the opt-in raised
// (max_dynamic_smem).
occ::KernelSpec drawn_kernel(const occ::GpuSpec& g, std::uint64_t draw) {
  const auto r = [&](std::uint64_t k, std::uint64_t range) { return cudalab::splitmix64(draw * 8 + k) % range; };
  occ::KernelSpec k;
  k.block_threads = 1 + static_cast<int>(r(0, static_cast<std::uint64_t>(g.max_threads_per_block)));
  k.regs_per_thread = r(1, 16) == 0 ? 0 : 1 + static_cast<int>(r(2, static_cast<std::uint64_t>(g.max_regs_per_thread)));
  k.static_smem = r(3, 4) == 0 ? 0 : r(4, 48 * 1024 + 1);
  k.dynamic_smem = r(5, 3) == 0 ? 0 : r(6, g.smem_per_block_optin - std::min(k.static_smem, g.smem_per_block_optin) + 4097);
  k.max_dynamic_smem = g.smem_per_block_optin;
  k.barriers = 0;  // the exercise leaves named barriers out
  return k;
}

void expect_same(const occ::GpuSpec& g, const occ::KernelSpec& k) {
  const occupancy_lab::Exercise74 mine = occupancy_lab::exercise_74(g, k);
  const occ::Result want = occ::compute(g, k);
  SCOPED_TRACE(testing::Message() << g.arch << ": " << k.block_threads << " threads, " << k.regs_per_thread
                                  << " registers, " << k.static_smem << " + " << k.dynamic_smem << " B shared");
  EXPECT_EQ(mine.by_threads, want.by_warps);
  EXPECT_EQ(mine.by_blocks, want.by_blocks);
  EXPECT_EQ(mine.by_registers, want.by_registers);
  EXPECT_EQ(mine.by_shared_memory, want.by_shared_memory);
  EXPECT_EQ(mine.resident_blocks, want.resident_blocks);
}

TEST(Exercise74, DrawnKernelsMatchTheCalculatorOnEveryArchitecture) {
  // Drawn from the run's seed (a new one in every grading run), so no table of answers passes.
  const std::uint64_t seed = cudalab::testing::seed(0xe74);
  int unlimited_registers = 0, zero_by_smem = 0;
  for (const std::string& arch : occ::known_archs()) {
    const occ::GpuSpec g = *occ::spec_for_arch(arch);
    for (std::uint64_t i = 0; i < 500; ++i) {
      const occ::KernelSpec k = drawn_kernel(g, seed * 4099 + i);
      expect_same(g, k);
      unlimited_registers += occ::compute(g, k).by_registers == occ::kUnlimited;
      zero_by_smem += occ::compute(g, k).by_shared_memory == 0;
      if (HasFailure()) return;  // one kernel's trace says enough
    }
  }
  EXPECT_GT(unlimited_registers, 0);  // the draw reaches the kernels without registers
  EXPECT_GT(zero_by_smem, 0);         // and blocks over the shared-memory limit
}

TEST(Exercise74, ShapesThatStressEachLimitAndBlocksOverALimit) {
  // Kernels built from drawn numbers so that each resource in turn is the tightest, then each
  // per-block limit broken by a drawn amount.
  const std::uint64_t seed = cudalab::testing::seed(0xe75);
  const auto pick = [&](std::uint64_t k, int lo, int hi) {
    return lo + static_cast<int>(cudalab::splitmix64(seed * 31 + k) % static_cast<std::uint64_t>(hi - lo + 1));
  };
  for (const std::string& arch : occ::known_archs()) {
    const occ::GpuSpec g = *occ::spec_for_arch(arch);
    occ::KernelSpec k;
    k.max_dynamic_smem = g.smem_per_block_optin;
    k.barriers = 0;
    k.block_threads = 32 * pick(1, 8, g.max_threads_per_block / 32);  // threads bind: 256 and more, few registers
    k.regs_per_thread = pick(2, 8, 24);
    expect_same(g, k);
    k.block_threads = pick(3, 1, 32);  // the block cap binds: one warp per block
    k.regs_per_thread = 0;             // registers set no limit
    expect_same(g, k);
    k.regs_per_thread = pick(4, 128, g.max_regs_per_thread);  // registers bind
    k.block_threads = 32 * pick(5, 1, 8) - pick(6, 0, 31);
    expect_same(g, k);
    k.regs_per_thread = 16;
    k.dynamic_smem = static_cast<std::size_t>(pick(7, 20, 60)) * 1024;  // shared memory binds
    expect_same(g, k);
    k.dynamic_smem = g.smem_per_block_optin + static_cast<std::size_t>(pick(8, 1, 4096));  // over the opt-in limit
    expect_same(g, k);
    EXPECT_EQ(occupancy_lab::exercise_74(g, k).resident_blocks, 0);
    k.dynamic_smem = 0;
    k.regs_per_thread = g.max_regs_per_thread + pick(9, 1, 40);  // over the registers per thread
    expect_same(g, k);
    EXPECT_EQ(occupancy_lab::exercise_74(g, k).resident_blocks, 0);
    k.regs_per_thread = 16;
    k.block_threads = g.max_threads_per_block + pick(10, 1, 512);  // over the threads per block
    EXPECT_EQ(occupancy_lab::exercise_74(g, k).by_threads, 0);
    EXPECT_EQ(occupancy_lab::exercise_74(g, k).resident_blocks, 0);
  }
}

TEST(Exercise74, TheNotesQ2OnTheA100) {
  // The hint's example, the notes' Q2 (no points: its numbers are in the hint).
  const occ::GpuSpec a100 = *occ::spec_for_arch("sm_80");
  occ::KernelSpec k;
  k.block_threads = 256;
  k.regs_per_thread = 40;
  const auto r = occupancy_lab::exercise_74(a100, k);
  EXPECT_EQ(r.by_threads, 8);
  EXPECT_EQ(r.by_blocks, 32);
  EXPECT_EQ(r.by_registers, 6);
  EXPECT_EQ(r.resident_blocks, 6);
  k.regs_per_thread = 32;
  EXPECT_EQ(occupancy_lab::exercise_74(a100, k).resident_blocks, 8);
}

// The execution note's self-test (自测), question 5: 109 blocks on 108 SMs that hold one each.
TEST(NotesSelfTest, Q5OneBlockTooManyIsASecondWave) {
  EXPECT_EQ(occupancy_lab::waves(108, 108, 1), 1);
  EXPECT_EQ(occupancy_lab::waves(109, 108, 1), 2);  // the 109th runs alone: about twice the time
  EXPECT_EQ(occupancy_lab::waves(216, 108, 1), 2);  // the same two waves do twice the work
}

// lecture2, Warp 与 SIMT 执行模型: "3 个 256 线程 block 分到 1 个 SM，共 3 * (256/32) = 24 个 warp".
TEST(NotesQuestions, ThreeBlocksOf256ThreadsAreTwentyFourWarps) {
  occ::KernelSpec k;
  k.block_threads = 256;
  k.regs_per_thread = 32;
  for (const char* arch : {"sm_80", "sm_90"}) {
    const occ::Result r = occ::compute(*occ::spec_for_arch(arch), k);
    EXPECT_EQ(3 * r.warps_per_block, 24) << arch;
    EXPECT_EQ(r.resident_blocks, 8) << arch;  // the SM would take 8 such blocks: 64 warps
    EXPECT_DOUBLE_EQ(100.0 * 3 * r.warps_per_block / r.max_warps, 37.5) << arch;
  }
  k.block_threads = 250;  // a partial warp still takes a whole warp slot
  EXPECT_EQ(3 * occ::compute(*occ::spec_for_arch("sm_90"), k).warps_per_block, 24);
}

}  // namespace
