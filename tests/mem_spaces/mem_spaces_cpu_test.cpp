// mem_spaces without a GPU: the CPU model of the demo and the array reference.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "mem_spaces.hpp"

namespace {

TEST(DemoModel, FollowsTheBlocksOrderOfWork) {
  // One block of 4 threads, weights {1, 1, 1, 1}: s_dyn[t] = in[t] + 0.5 in[t+1 mod 4];
  // out[t] = sum_k s_dyn[(t + 7k) mod 4] = s_dyn[t] + s_dyn[t+3] + s_dyn[t+2] + s_dyn[t+1].
  const std::vector<float> in{1, 2, 3, 4};
  const auto r = mem_spaces::reference(in, 4, {1, 1, 1, 1});
  const float total = (1 + 1) + (2 + 1.5f) + (3 + 2) + (4 + 0.5f);
  for (float x : r.out) EXPECT_FLOAT_EQ(x, total);
  ASSERT_EQ(r.scratch.size(), 1u);
  EXPECT_FLOAT_EQ(r.scratch[0], 4 * total);
}

TEST(DemoModel, PartialLastBlockSeesZerosAndAddsOnlyRealElements) {
  // n = 5, block 4: the second block holds in[4] and three zeros.
  const std::vector<float> in{1, 1, 1, 1, 8};
  const auto r = mem_spaces::reference(in, 4, {1, 1, 1, 1});
  ASSERT_EQ(r.scratch.size(), 2u);
  // Block 1: s_data = {8, 0, 0, 0}; s_dyn = {8, 0, 0, 4}; out[4] = sum of all = 12.
  EXPECT_FLOAT_EQ(r.out[4], 12.f);
  EXPECT_FLOAT_EQ(r.scratch[1], 12.f);  // only element 4, not the three idle threads
}

TEST(Atomics, CountsOfIssuedAtomics) {
  using mem_spaces::AtomicVariant;
  EXPECT_EQ(mem_spaces::atomics_issued(AtomicVariant::kPerThread, 1000, 256), 1000);
  EXPECT_EQ(mem_spaces::atomics_issued(AtomicVariant::kPerWarp, 1000, 256), 32);
  EXPECT_EQ(mem_spaces::atomics_issued(AtomicVariant::kPerBlock, 1000, 256), 4);
}

TEST(ArrayReference, WeightsRunOneToThirtyTwo) {
  std::vector<unsigned> in(64);
  for (unsigned i = 0; i < 64; ++i) in[i] = i;
  // i = 0: a[k] = in[k]; sum_r a[r] * (r + 1) = sum r (r + 1) for r < 32.
  unsigned expect = 0;
  for (unsigned r = 0; r < 32; ++r) expect += r * (r + 1);
  EXPECT_EQ(mem_spaces::array_reference(in, 0), expect);
  // i = 1: a[k] = in[32 + k]; sum_r a[(1 + r) % 32] * (r + 1).
  unsigned expect1 = 0;
  for (unsigned r = 0; r < 32; ++r) expect1 += (32 + (1 + r) % 32) * (r + 1);
  EXPECT_EQ(mem_spaces::array_reference(in, 1), expect1);
}

TEST(SpreadSumReference, ElementIGoesToCounterIModAddresses) {
  const std::vector<int> in{5, -3, 7, 1, 2, -9, 4};
  EXPECT_EQ(mem_spaces::spread_sum_reference(in, 1), (std::vector<long long>{7}));
  EXPECT_EQ(mem_spaces::spread_sum_reference(in, 3), (std::vector<long long>{5 + 1 + 4, -3 + 2, 7 - 9}));
  EXPECT_EQ(mem_spaces::spread_sum_reference(in, 10), (std::vector<long long>{5, -3, 7, 1, 2, -9, 4, 0, 0, 0}));
  EXPECT_THROW(mem_spaces::spread_sum_reference(in, 0), std::invalid_argument);
}

TEST(TableReadReference, LaneModDistinctPlus32PerRound) {
  std::vector<unsigned> words(mem_spaces::kTableWords);
  for (int i = 0; i < mem_spaces::kTableWords; ++i) words[static_cast<std::size_t>(i)] = static_cast<unsigned>(i);
  // One word per warp: every lane reads words 0, 32, 64, ...: the sum of 32 r over the rounds.
  unsigned broadcast = 0;
  for (unsigned r = 0; r < static_cast<unsigned>(mem_spaces::kTableRounds); ++r) broadcast += (32u * r) % 1024u;
  for (unsigned lane : {0u, 5u, 31u}) EXPECT_EQ(mem_spaces::table_read_reference(words, 1, lane), broadcast);
  // 4 words: lane 6 starts at word 2, lane 7 at word 3; a lane 32 apart is the same lane.
  EXPECT_EQ(mem_spaces::table_read_reference(words, 4, 6), broadcast + 2u * mem_spaces::kTableRounds);
  EXPECT_EQ(mem_spaces::table_read_reference(words, 4, 7), mem_spaces::table_read_reference(words, 4, 39));
  EXPECT_EQ(mem_spaces::table_read_reference(words, 32, 31), broadcast + 31u * mem_spaces::kTableRounds);
  for (int bad : {0, 3, 64, -1}) EXPECT_THROW(mem_spaces::table_read_reference(words, bad, 0), std::invalid_argument) << bad;
  EXPECT_THROW(mem_spaces::table_read_reference(std::vector<unsigned>(10), 1, 0), std::out_of_range);
  unsigned known = 0;  // words[i] = i: rounds r read 16 r
  for (unsigned r = 0; r < static_cast<unsigned>(mem_spaces::kTableRounds); ++r) known += 16u * r;
  EXPECT_EQ(mem_spaces::table_read_known_reference(words), known);
  EXPECT_THROW(mem_spaces::table_read_known_reference(std::vector<unsigned>(10)), std::out_of_range);
}

TEST(Bilinear, TheReferenceWeightsFourTexelsAndClampsAtTheEdges) {
  // 3 x 2 image: 0 1 2 / 10 11 12
  const std::vector<float> img{0, 1, 2, 10, 11, 12};
  EXPECT_DOUBLE_EQ(mem_spaces::bilinear_reference(img, 3, 2, 1, 0, 0.0, 0.0), 1.0);   // on a texel
  EXPECT_DOUBLE_EQ(mem_spaces::bilinear_reference(img, 3, 2, 0, 0, 0.5, 0.5), 5.5);   // the middle of four
  EXPECT_DOUBLE_EQ(mem_spaces::bilinear_reference(img, 3, 2, 0, 0, 0.25, 0.0), 0.25);  // along a row
  EXPECT_DOUBLE_EQ(mem_spaces::bilinear_reference(img, 3, 2, 2, 1, 0.7, 0.9), 12.0);  // the corner clamps both ways
  EXPECT_DOUBLE_EQ(mem_spaces::bilinear_reference(img, 3, 2, 2, 0, 0.5, 0.5), 7.0);   // the right edge clamps x
  // the texture's bound is the spread of the four texels x 2/256, plus FP32 rounding
  const double rounding = 8.0 * (0 + 1 + 10 + 11) * 0x1p-24;  // FP32's, on the sum of |texels|
  EXPECT_DOUBLE_EQ(mem_spaces::bilinear_tolerance(img, 3, 2, 0, 0, true), 11.0 * 2.0 / 256.0 + rounding);
  EXPECT_DOUBLE_EQ(mem_spaces::bilinear_tolerance(img, 3, 2, 0, 0, false), rounding);
  // a sample of zeros is refused where the texels are not
  EXPECT_GT(std::fabs(0.0 - mem_spaces::bilinear_reference(img, 3, 2, 1, 0, 0.37, 0.61)),
            mem_spaces::bilinear_tolerance(img, 3, 2, 1, 0, true));
}

}  // namespace
