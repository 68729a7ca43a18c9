// latency on the GPU: every chase ends on the item the CPU's walk ends on (global with L1 and
// without, at odd sizes and strides; shared; constant), the FMA chain gives the CPU's value,
// and the measured numbers are in the order the memory hierarchy demands.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "gpu_test.hpp"
#include "latency.hpp"
#include "reference.hpp"

namespace {

TEST(LatencyGpu, GlobalChaseEndsWhereTheCpuSays) {
  CUDALAB_REQUIRE_GPU();
  latency::GlobalChase chase(std::size_t{8} << 20);
  for (const auto& [items, stride, warmup, hops] : std::vector<std::tuple<std::size_t, std::size_t, std::uint64_t, std::uint64_t>>{
           {1, 128, 0, 5}, {2, 8, 1, 1}, {37, 128, 37, 1001}, {1000, 64, 1000, 12345}, {4095, 2048, 100, 3},
           {65536, 128, 65536, 70000}}) {
    const auto next = latency::random_cycle(items, cudalab::testing::seed(items * 31 + stride));
    chase.link(next, stride);
    for (bool l2_only : {false, true}) {
      const latency::ChaseResult r = chase.run(warmup, hops, l2_only);
      EXPECT_EQ(r.end_item, latency::follow(next, 0, warmup + hops))
          << items << " items, stride " << stride << ", l2_only " << l2_only;
      EXPECT_GT(r.cycles_per_hop, 0.0);
    }
  }
  EXPECT_THROW(chase.link(latency::random_cycle(10, 1), 12), std::invalid_argument);
  EXPECT_THROW(chase.link(latency::random_cycle(65537, 1), 128), std::invalid_argument);  // past the buffer
}

TEST(LatencyGpu, SharedAndConstantChasesEndWhereTheCpuSays) {
  CUDALAB_REQUIRE_GPU();
  for (std::size_t items : {std::size_t{1}, std::size_t{3}, std::size_t{255}, latency::kSharedItems}) {
    const auto next = latency::random_cycle(items, items);
    EXPECT_EQ(latency::chase_shared(next, items, 777).end_item, latency::follow(next, 0, items + 777)) << items;
    if (items <= latency::kConstantItems) {
      EXPECT_EQ(latency::chase_constant(next, items, 777).end_item, latency::follow(next, 0, items + 777)) << items;
    }
  }
  EXPECT_THROW(latency::chase_shared(latency::random_cycle(latency::kSharedItems + 1, 1), 0, 1), std::invalid_argument);
  EXPECT_THROW(latency::chase_constant(latency::random_cycle(latency::kConstantItems + 1, 1), 0, 1), std::invalid_argument);
}

TEST(LatencyGpu, FmaChainMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  for (long long rounds : {1LL, 7LL, 1000LL}) {
    const latency::ChainResult r = latency::fma_chain_gpu(0.5f, 0.999f, 0.001f, rounds);
    EXPECT_EQ(r.value, latency::fma_chain(0.5f, 0.999f, 0.001f, 16 * rounds)) << rounds;
    EXPECT_GT(r.cycles_per_op, 0.0);
  }
}

TEST(LatencyGpu, TheHierarchyIsInOrder) {
  CUDALAB_REQUIRE_GPU();
  // Not a speed target: an order no GPU violates. An L1 hit is faster than DRAM, and a
  // dependent FMA faster than any load.
  latency::GlobalChase chase(std::size_t{512} << 20);
  const auto small = latency::random_cycle(64, 1);  // 8 KiB at 128 B: L1
  chase.link(small, 128);
  const double l1 = chase.run(64, 4096, false).cycles_per_hop;
  const auto big = latency::random_cycle(std::size_t{1} << 22, 2);  // 512 MiB: DRAM
  chase.link(big, 128);
  const double dram = chase.run(0, 4096, false).cycles_per_hop;
  const double fma = latency::fma_chain_gpu(0.5f, 0.999f, 0.001f, 1000).cycles_per_op;
  EXPECT_LT(l1, dram);
  EXPECT_LT(fma, l1);
  EXPECT_GT(latency::measure_clock_ghz(), 0.1);
  std::string how;
  const std::size_t page = latency::device_page_bytes(0, &how);
  EXPECT_GE(page, std::size_t{4096}) << how;
  EXPECT_EQ(page & (page - 1), 0u) << "a power of two";
}

TEST(LatencyGpu, SharedThroughputSumsAreTheCpusAndItsRateIsPhysical) {
  CUDALAB_REQUIRE_GPU();
  for (long long rounds : {1LL, 17LL, 600LL}) {
    const latency::SharedThroughput t = latency::shared_load_throughput(rounds);
    EXPECT_TRUE(t.correct) << rounds << " rounds";
    EXPECT_GE(t.blocks_per_sm, 1);
    EXPECT_GT(t.loads_per_sm_clock, 0.0);
    // No SM has more than 4 x 32 lanes; a higher rate means the span was measured wrong.
    EXPECT_LE(t.loads_per_sm_clock, 128.0) << rounds << " rounds";
  }
  EXPECT_THROW(latency::shared_load_throughput(0), std::invalid_argument);
}

}  // namespace
