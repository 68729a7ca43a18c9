// latency_hiding: the models and the expected results, on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "reference.hpp"

namespace {

namespace lh = latency_hiding;

TEST(FmaIssueModel, FourIndependentFmasPerSubPartitionFillIt) {
  // one warp on one of four sub-partitions, one chain: 1 FMA per 4 cycles there, 1/16 of the SM
  EXPECT_DOUBLE_EQ(lh::fma_issue_model(1, 1), 1.0 / 16);
  // four warps (one per sub-partition) or four chains in one warp: a quarter either way...
  EXPECT_DOUBLE_EQ(lh::fma_issue_model(4, 1), 0.25);
  EXPECT_DOUBLE_EQ(lh::fma_issue_model(1, 4), 0.25);
  // ...but not interchangeable past it: 1 warp with 8 chains still leaves 3 sub-partitions idle
  EXPECT_DOUBLE_EQ(lh::fma_issue_model(1, 8), 0.25);
  EXPECT_DOUBLE_EQ(lh::fma_issue_model(16, 1), 1.0);
  EXPECT_DOUBLE_EQ(lh::fma_issue_model(8, 2), 1.0);
  EXPECT_DOUBLE_EQ(lh::fma_issue_model(8, 4), 1.0);
  EXPECT_DOUBLE_EQ(lh::fma_issue_model(6, 1), (0.5 + 0.5 + 0.25 + 0.25) / 4);  // warps 4, 5 on sub-partitions 0, 1
  EXPECT_THROW(lh::fma_issue_model(0, 1), std::invalid_argument);
  EXPECT_THROW(lh::fma_issue_model(1, 0), std::invalid_argument);
}

TEST(FmaChains, ExpectedSumIsExactAndRefusedPastTwoToThe24) {
  EXPECT_EQ(lh::fma_chains_expected(1, 100), 100.0f);
  EXPECT_EQ(lh::fma_chains_expected(4, 10), (0 + 1 + 2 + 3) + 40.0f);
  EXPECT_EQ(lh::fma_chains_expected(8, 1 << 20), 28.0f + 8.0f * (1 << 20));  // the lab's largest --iters
  EXPECT_THROW(lh::fma_chains_expected(8, 1 << 21), std::invalid_argument);
}

TEST(LittlesLaw, TheNotesA100NumbersAndTheWayBack) {
  // the notes: about 2 TB/s x about 600 ns = 1.2 MB in flight, about 11 KB on each of 108 SMs,
  // nearly 3000 threads with one 4-byte load each
  const double bytes = lh::little_bytes_in_flight(2e12, 600e-9);
  EXPECT_DOUBLE_EQ(bytes, 1.2e6);
  EXPECT_NEAR(bytes / 108, 11111, 1);
  EXPECT_NEAR(bytes / 108 / 4, 2778, 1);
  EXPECT_DOUBLE_EQ(lh::little_latency_s(bytes, 2e12), 600e-9);
  EXPECT_THROW(lh::little_latency_s(1, 0), std::invalid_argument);
  EXPECT_DOUBLE_EQ(lh::bytes_in_flight_per_sm(64, 1, 4), 8192);  // a full SM with one 4-byte load each
  EXPECT_DOUBLE_EQ(lh::bytes_in_flight_per_sm(16, 16, 16), 131072);
}

TEST(ReadSweep, PowersOfTwoThenEveryFourthWarp) {
  EXPECT_EQ(lh::read_warp_levels(1), (std::vector<int>{1}));
  EXPECT_EQ(lh::read_warp_levels(8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(lh::read_warp_levels(16), (std::vector<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(lh::read_warp_levels(32), (std::vector<int>{1, 2, 4, 8, 16, 20, 24, 28, 32}));
  const std::vector<int> all = lh::read_warp_levels(64);
  EXPECT_EQ(all.size(), 17u);
  EXPECT_EQ(all.back(), 64);
  for (std::size_t i = 5; i < all.size(); ++i) EXPECT_EQ(all[i] - all[i - 1], 4);  // steps of 1/8 or less past 16
  EXPECT_THROW(lh::read_warp_levels(0), std::invalid_argument);
}

TEST(ReadInput, SumWrapsAroundAndMatchesTheWords) {
  std::uint32_t s = 0;
  for (std::size_t i = 0; i < 1000; ++i) s += lh::input_word(i);
  EXPECT_EQ(lh::input_sum(1000), s);
  EXPECT_NE(lh::input_word(0), lh::input_word(1));
  EXPECT_EQ(lh::input_sum(0), 0u);
}

TEST(BarrierModel, TheNotesSlowWarp) {
  // the notes: 7 warps of 100 cycles, 1 of 400: with the barrier a round lasts 400 cycles and
  // leaves 7 x 300 = 2100 warp-cycles idle (errata row 7); without it each warp averages
  // (400 + 7 x 100) / 8 = 137.5 cycles a round when the slow warp changes every round
  EXPECT_DOUBLE_EQ(lh::round_cycles_with_barrier(100), 400);
  EXPECT_DOUBLE_EQ(lh::idle_warp_cycles_per_round(100, 25), 2100);
  EXPECT_DOUBLE_EQ(lh::round_cycles_without_barrier(100, 25), 137.5);
  EXPECT_EQ(lh::rounds_expected(3, 800, 100, 25), 3 + 100.0f * 100 + 700.0f * 25);
  EXPECT_THROW(lh::rounds_expected(0, 8 << 20, 100, 25), std::invalid_argument);
}

TEST(Mystery, TheStridedLoadIsAPermutationThirtyTwoApartAcrossAWarp) {
  const std::size_t n = 4096;
  std::vector<bool> seen(n, false);
  for (std::size_t g = 0; g < n; ++g) {
    const std::size_t s = lh::mystery_source(g, n, true);
    ASSERT_LT(s, n);
    EXPECT_FALSE(seen[s]) << g;
    seen[s] = true;
  }
  EXPECT_EQ(lh::mystery_source(1, n, true) - lh::mystery_source(0, n, true), 32u);  // neighbouring lanes, 128 bytes apart
  EXPECT_EQ(lh::mystery_source(77, n, false), 77u);
}

TEST(Mystery, TheTileTradesValuesAcrossTheDiagonalAndTheBranchSideFollowsTheFlag) {
  std::vector<float> in(2048);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i);
  // thread (warp 2, lane 5) of block 1 reads back what thread (warp 5, lane 2) loaded
  const std::size_t g = 1024 + 2 * 32 + 5;
  EXPECT_EQ(lh::mystery_expected(in, g, {}, 0), static_cast<float>(1024 + 5 * 32 + 2));
  // one step: lane 5 is odd (divergent: the second side), warp 2 even (uniform: the first side)
  const float v = static_cast<float>(1024 + 5 * 32 + 2);
  EXPECT_EQ(lh::mystery_expected(in, g, {false, false, true}, 1), std::fma(v, 0.25f, 2.0f));
  EXPECT_EQ(lh::mystery_expected(in, g, {false, false, false}, 1), std::fma(v, 0.5f, 1.0f));
}

// The execution note's self-test (自测), questions 2 and 3, answered with the lab's models and the
// H200 numbers its READMEs measured (4.8 TB/s; DRAM latency 335 ns, the latency lab).
TEST(NotesSelfTest, Q2TheSameBytesInFlightAtAQuarterOfTheOccupancy) {
  // 64 warps with one 16-byte load each and 16 warps with four: the same bytes in flight, so
  // the same bandwidth by Little's law, at 100 % and at 25 % occupancy.
  EXPECT_DOUBLE_EQ(lh::bytes_in_flight_per_sm(64, 1, 16), lh::bytes_in_flight_per_sm(16, 4, 16));
  // and the FMA pipes: 4 warps with 4 chains issue as fast as 16 warps with one
  EXPECT_DOUBLE_EQ(lh::fma_issue_model(4, 4), lh::fma_issue_model(16, 1));
}

TEST(NotesSelfTest, Q3OneLoadPerThreadCannotFillTheH200) {
  const double needed = lh::little_bytes_in_flight(4.8e12, 335e-9);  // about 1.6 MB
  EXPECT_NEAR(needed, 1.608e6, 1e3);
  const int sms = 132;
  const double one_float = sms * lh::bytes_in_flight_per_sm(64, 1, 4);     // every thread resident, one 4-byte load
  const double four_vectors = sms * lh::bytes_in_flight_per_sm(64, 4, 16);  // four 16-byte loads each
  EXPECT_LT(one_float, needed);            // 1.08 MB: two thirds of what DRAM needs
  EXPECT_NEAR(one_float / needed, 0.67, 0.01);
  EXPECT_GT(four_vectors, 10 * needed);   // 17 MB: room to spare
}

}  // namespace
