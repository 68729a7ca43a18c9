// device_query's arithmetic and report, on made-up device facts: no GPU needed.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "device_query.hpp"
#include "gpu_test.hpp"

namespace {

using device_query::residency_by_threads_and_blocks;

cudalab::DeviceFacts h200_like() {
  cudalab::DeviceFacts f;
  f.name = "NVIDIA H200";
  f.cc_major = 9;
  f.cc_minor = 0;
  f.sm_count = 132;
  f.max_threads_per_sm = 2048;
  f.max_threads_per_block = 1024;
  f.max_blocks_per_sm = 32;
  f.warp_size = 32;
  f.memory_clock_khz = 3201000;
  f.memory_bus_width_bits = 6016;
  return f;
}

TEST(Residency, H200With256Threads) {
  const auto r = residency_by_threads_and_blocks(2048, 32, 32, 256);
  EXPECT_EQ(r.blocks_by_threads, 8);
  EXPECT_EQ(r.blocks_by_block_limit, 32);
  EXPECT_EQ(r.resident_blocks, 8);
  EXPECT_EQ(r.resident_threads, 2048);
  EXPECT_EQ(r.resident_warps, 64);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 100.0);
}

TEST(Residency, ReadmeExerciseThree) {
  // 96-thread blocks (3 warps): 2048 / 96 = 21 blocks by threads -> 63 of 64 warps.
  const auto r96 = residency_by_threads_and_blocks(2048, 32, 32, 96);
  EXPECT_EQ(r96.resident_blocks, 21);
  EXPECT_EQ(r96.resident_warps, 63);
  EXPECT_DOUBLE_EQ(r96.occupancy_percent, 98.4375);
  const auto r1024 = residency_by_threads_and_blocks(2048, 32, 32, 1024);
  EXPECT_EQ(r1024.resident_blocks, 2);
  EXPECT_DOUBLE_EQ(r1024.occupancy_percent, 100.0);
}

TEST(Residency, BlockLimitBindsForSmallBlocks) {
  // 32-thread blocks: the thread limit would allow 64, the hardware allows 32 -> 50%.
  const auto r = residency_by_threads_and_blocks(2048, 32, 32, 32);
  EXPECT_EQ(r.blocks_by_threads, 64);
  EXPECT_EQ(r.resident_blocks, 32);
  EXPECT_EQ(r.resident_warps, 32);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 50.0);
}

TEST(Residency, RtxStyleSmWith1536Threads) {
  // 1536 threads and 24 blocks per SM (Ada): 1024-thread blocks fit once -> 32 of 48 warps.
  const auto r = residency_by_threads_and_blocks(1536, 24, 32, 1024);
  EXPECT_EQ(r.resident_blocks, 1);
  EXPECT_EQ(r.resident_warps, 32);
  EXPECT_NEAR(r.occupancy_percent, 66.67, 0.01);
  // The notes' hypothetical: 1536 threads, an 8-block limit, 128-thread blocks -> 8 blocks, 66.7%.
  const auto h = residency_by_threads_and_blocks(1536, 8, 32, 128);
  EXPECT_EQ(h.blocks_by_threads, 12);
  EXPECT_EQ(h.resident_blocks, 8);
  EXPECT_NEAR(h.occupancy_percent, 66.67, 0.01);
}

TEST(Residency, PartialWarpsOccupyWholeWarpSlots) {
  // 48-thread blocks: 2 warps each (the second half empty). 2048 / 48 = 42 by threads, 32 by limit.
  const auto r = residency_by_threads_and_blocks(2048, 32, 32, 48);
  EXPECT_EQ(r.resident_blocks, 32);
  EXPECT_EQ(r.resident_threads, 1536);
  EXPECT_EQ(r.resident_warps, 64);
}

TEST(Residency, DegenerateInputsGiveZero) {
  // Only meaningful once the ordinary case works (a stub that returns 0 must not pass).
  ASSERT_EQ(residency_by_threads_and_blocks(2048, 32, 32, 256).resident_blocks, 8);
  EXPECT_EQ(residency_by_threads_and_blocks(2048, 32, 32, 0).resident_blocks, 0);
  EXPECT_EQ(residency_by_threads_and_blocks(2048, 32, 32, 4096).resident_blocks, 0);
  EXPECT_EQ(residency_by_threads_and_blocks(2048, 32, 0, 256).resident_blocks, 0);
}

TEST(Residency, DrawnSmsAndBlocksMatchTheRule) {
  // SMs and block sizes drawn from the run's seed (the grader draws a new one per run), so no
  // table of the fixed cases above passes: the rule, checked against its own arithmetic here.
  const std::uint64_t seed = cudalab::testing::seed(0x5e51d);
  const auto sm_threads = cudalab::random_vector<int>(200, seed, 8, 64);     // x 32 threads
  const auto sm_blocks = cudalab::random_vector<int>(200, seed + 1, 1, 64);
  const auto block = cudalab::random_vector<int>(200, seed + 2, 1, 1024);
  for (std::size_t k = 0; k < block.size(); ++k) {
    const int threads = 32 * sm_threads[k], limit = sm_blocks[k], b = std::min(block[k], threads);
    const auto r = residency_by_threads_and_blocks(threads, limit, 32, b);
    const int blocks = std::min(threads / b, limit), warps = blocks * ((b + 31) / 32);
    SCOPED_TRACE(testing::Message() << threads << " threads, " << limit << " blocks per SM, blocks of " << b);
    EXPECT_EQ(r.blocks_by_threads, threads / b);
    EXPECT_EQ(r.blocks_by_block_limit, limit);
    EXPECT_EQ(r.resident_blocks, blocks);
    EXPECT_EQ(r.resident_threads, blocks * b);
    EXPECT_EQ(r.resident_warps, warps);
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 100.0 * warps / (threads / 32));
  }
}

TEST(ReportDevice, JsonCarriesTheFactsAndDerivedNumbers) {
  std::FILE* f = std::tmpfile();
  std::string text;
  {
    cudalab::Report report("device_query", true, f);
    device_query::report_device(report, h200_like());
    text = report.json_text();
  }
  std::fclose(f);
  const auto doc = nlohmann::json::parse(text);
  ASSERT_EQ(doc["devices"].size(), 1u);
  const auto& d = doc["devices"][0];
  EXPECT_EQ(d["name"], "NVIDIA H200");
  EXPECT_EQ(d["arch"], "sm_90");
  EXPECT_EQ(d["sm_count"], 132);
  EXPECT_NEAR(d["theoretical_bandwidth_gbps"].get<double>(), 4814.3, 0.05);
  EXPECT_EQ(d["max_resident_threads"], 270336);
  EXPECT_EQ(d["max_resident_warps"], 8448);
  EXPECT_EQ(d["residency_resident_blocks"], 8);
  EXPECT_DOUBLE_EQ(d["residency_occupancy_percent"].get<double>(), 100.0);
}

}  // namespace
