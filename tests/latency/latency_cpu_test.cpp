// latency on the CPU: the random cycle visits every item once, the walk's end, the FMA chain
// and the rule that finds the TLBs' reach.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "reference.hpp"

namespace {

TEST(RandomCycle, OneCycleThroughEveryItem) {
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{32}, std::size_t{1000},
                        std::size_t{4096}, std::size_t{1} << 17}) {
    const auto next = latency::random_cycle(n, 7 + n);
    ASSERT_EQ(next.size(), n);
    EXPECT_EQ(latency::cycle_length(next, 0), n) << n;                                    // no shorter loop
    EXPECT_EQ(latency::cycle_length(next, static_cast<std::uint32_t>(n / 2)), n) << n;   // from anywhere
    std::set<std::uint32_t> targets(next.begin(), next.end());
    EXPECT_EQ(targets.size(), n);  // a permutation
    if (n > 1) {
      for (std::size_t i = 0; i < n; ++i) ASSERT_NE(next[i], i) << "a fixed point at " << i;
    }
  }
}

TEST(RandomCycle, RandomNotSequentialAndSeeded) {
  const auto a = latency::random_cycle(4096, 1), b = latency::random_cycle(4096, 1), c = latency::random_cycle(4096, 2);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  int sequential = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sequential += a[i] == (i + 1) % a.size();
  EXPECT_LT(sequential, 20);  // a prefetcher must not be able to guess the next line
  EXPECT_THROW(latency::random_cycle(0, 1), std::invalid_argument);
}

TEST(Follow, EndsWhereTheWalkEnds) {
  const std::vector<std::uint32_t> next{2, 0, 3, 1};  // 0 -> 2 -> 3 -> 1 -> 0
  EXPECT_EQ(latency::follow(next, 0, 0), 0u);
  EXPECT_EQ(latency::follow(next, 0, 1), 2u);
  EXPECT_EQ(latency::follow(next, 0, 3), 1u);
  EXPECT_EQ(latency::follow(next, 0, 4), 0u);
  EXPECT_EQ(latency::follow(next, 0, 4 * 1000 + 2), 3u);
  EXPECT_EQ(latency::cycle_length(next, 3), 4u);
}

TEST(Warmup, OneTurnOfTheCycleAtMostTheCap) {
  EXPECT_EQ(latency::warmup_hops(32, 1 << 21), 32u);
  EXPECT_EQ(latency::warmup_hops(std::size_t{1} << 25, std::uint64_t{1} << 21), std::uint64_t{1} << 21);
}

TEST(FmaChain, FusedAndDeterministic) {
  EXPECT_EQ(latency::fma_chain(1.0f, 0.5f, 1.0f, 0), 1.0f);
  EXPECT_EQ(latency::fma_chain(1.0f, 0.5f, 1.0f, 1), 1.5f);
  EXPECT_EQ(latency::fma_chain(1.0f, 0.5f, 1.0f, 2), 1.75f);
  // Not a constant: the chain's value moves with its length.
  EXPECT_NE(latency::fma_chain(0.5f, 0.999f, 0.001f, 1000), latency::fma_chain(0.5f, 0.999f, 0.001f, 1001));
}

TEST(FlatUntil, TheLastPointWithinTheToleranceOfTheBaseline) {
  EXPECT_EQ(latency::flat_until({300, 305, 310, 500, 300}, 300, 0.10), 2u);  // stops at the first jump
  EXPECT_EQ(latency::flat_until({300, 301, 302}, 300, 0.10), 2u);
  EXPECT_EQ(latency::flat_until({300, 400}, 300, 0.10), 0u);
  EXPECT_EQ(latency::flat_until({300}, 300, 0.10), 0u);
  EXPECT_EQ(latency::flat_until({}, 300, 0.10), 0u);
  EXPECT_EQ(latency::flat_until({283, 272, 286, 290, 320}, 281, 0.05), 3u);
}

TEST(MedianOfFirst, IgnoresOneOddEarlyPoint) {
  EXPECT_DOUBLE_EQ(latency::median_of_first({262, 283, 272, 286, 279}, 4), 277.5);
  EXPECT_DOUBLE_EQ(latency::median_of_first({283, 272, 286}, 4), 283);
  EXPECT_DOUBLE_EQ(latency::median_of_first({}, 4), 0.0);
}

TEST(SharedThroughputSum, XorOfTheSixteenWordsOfEveryRound) {
  EXPECT_EQ(latency::shared_throughput_sum(5, 0), 0u);
  // Round 0 of thread 3: words 3, 35, ..., 483; round 1: 4, 36, ..., 484.
  std::uint32_t want = 0;
  for (std::uint32_t r = 0; r < 2; ++r) {
    for (std::uint32_t k = 0; k < 16; ++k) want ^= latency::shared_word(3 + r + 32 * k);
  }
  EXPECT_EQ(latency::shared_throughput_sum(3, 2), want);
  // The start wraps at 512: thread 511's second round starts at word 0, as thread 0's first.
  EXPECT_EQ(latency::shared_throughput_sum(511, 2) ^ latency::shared_throughput_sum(511, 1),
            latency::shared_throughput_sum(0, 1));
  // Threads 512 apart read the same words; neighbours do not.
  EXPECT_EQ(latency::shared_throughput_sum(7, 9), latency::shared_throughput_sum(7 + 512, 9));
  EXPECT_NE(latency::shared_throughput_sum(7, 9), latency::shared_throughput_sum(8, 9));
  // Every word read stays inside the array.
  EXPECT_LT(511u + 32u * 15u, latency::kThroughputWords);
}

TEST(LoadsPerSmClock, EachSmsBlocksOverItsOwnSpanThenTheMedian) {
  // 200 loads a block. SM 0: two blocks from its first start (100) to its last end (300), 400 / 200
  // = 2; SM 1: one block, 200 / 100 = 2; SM 2: 200 / 400 = 0.5.
  const std::vector<long long> spans{100, 250, 0, 150, 300, 0, 1000, 1100, 1, 5000, 5400, 2};
  EXPECT_DOUBLE_EQ(latency::loads_per_sm_clock(spans, 200.0), 2.0);  // rates {2, 2, 0.5}: median 2
  EXPECT_DOUBLE_EQ(latency::loads_per_sm_clock({10, 20, 3}, 50.0), 5.0);  // an SM id past the others
  EXPECT_DOUBLE_EQ(latency::loads_per_sm_clock({}, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(latency::loads_per_sm_clock({10, 10, 0}, 1.0), 0.0);  // no positive span
}

}  // namespace
