// divergence without a GPU: the warp-grouping arithmetic and the reference.
#include <gtest/gtest.h>

#include <vector>

#include "divergence.hpp"
#include "reference.hpp"

namespace {

using divergence::Variant;

TEST(WarpGrouping, ThreadIdxMod2SplitsEveryWarp) {
  EXPECT_EQ(divergence::divergent_warps_mod2(256), 8);
  EXPECT_EQ(divergence::divergent_warps_mod2(32), 1);
  EXPECT_EQ(divergence::divergent_warps_mod2(33), 1);  // warp 1 holds only thread 32 (even)
  EXPECT_EQ(divergence::divergent_warps_mod2(34), 2);
  EXPECT_EQ(divergence::divergent_warps_mod2(1), 0);
}

TEST(WarpGrouping, WarpNumberParityNeverSplitsAWarp) {
  for (int block : {32, 64, 256, 1024}) EXPECT_EQ(divergence::divergent_warps_warp_uniform(block), 0);
  // Check the claim itself: (t / 32) % 2 is constant within each warp.
  for (int t = 0; t < 1024; ++t) EXPECT_EQ((t / 32) % 2, ((t / 32) * 32 / 32) % 2);
}

TEST(WarpGrouping, DataLayoutDecidesDataDependentDivergence) {
  const std::size_t n = 32 * 1000;
  const auto random = divergence::make_data(Variant::kDataRandom, n, 1);
  const auto sorted = divergence::make_data(Variant::kDataSorted, n, 1);
  const auto positive = divergence::make_data(Variant::kDataPositive, n, 1);
  EXPECT_GT(divergence::divergent_warps_in_data(random), 990u);  // P(32 equal signs) = 2^-31
  EXPECT_LE(divergence::divergent_warps_in_data(sorted), 1u);
  EXPECT_EQ(divergence::divergent_warps_in_data(positive), 0u);
  for (float x : positive) EXPECT_GT(x, 0.f);
}

// Each row's count of divergent warps, against the warps where the reference's two paths meet
// (takes_path_a differs within a warp) for the variants that branch; branch_free takes both
// paths' constants without a branch: none.
TEST(WarpGrouping, EachVariantsDivergentWarpsAreTheWarpsWhosePathsDiffer) {
  const int grid = 5, block = 256;
  const std::size_t n = static_cast<std::size_t>(grid) * block;
  for (Variant v : divergence::all_variants()) {
    const std::vector<float> data = divergence::is_data_dependent(v) ? divergence::make_data(v, n, 7) : std::vector<float>{};
    std::size_t mixed = 0;
    for (std::size_t w = 0; w < n; w += 32) {
      bool any_a = false, any_b = false;
      for (std::size_t i = w; i < w + 32; ++i) (divergence::takes_path_a(v, data, i, block) ? any_a : any_b) = true;
      mixed += any_a && any_b;
    }
    const std::size_t want = v == Variant::kBranchFree ? 0 : mixed;
    EXPECT_EQ(divergence::divergent_warps(v, data, grid, block), want) << divergence::variant_name(v);
  }
  EXPECT_EQ(divergence::divergent_warps(Variant::kDivergent, {}, grid, block), 40u);
}

TEST(Reference, PathsDifferAndBranchFreeMatchesDivergent) {
  const std::vector<float> none;
  for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{255}, std::size_t{256 + 7}}) {
    EXPECT_EQ(divergence::reference(Variant::kBranchFree, none, i, 256, 100),
              divergence::reference(Variant::kDivergent, none, i, 256, 100));
  }
  // Thread 3: odd -> path B in divergent; warp 0 -> path A in uniform.
  EXPECT_NE(divergence::reference(Variant::kDivergent, none, 3, 256, 100),
            divergence::reference(Variant::kUniform, none, 3, 256, 100));
  // Thread 35: odd and in warp 1: path B in both.
  EXPECT_EQ(divergence::reference(Variant::kDivergent, none, 35, 256, 100),
            divergence::reference(Variant::kUniform, none, 35, 256, 100));
}

TEST(Variants, NamesRoundTrip) {
  for (Variant v : divergence::all_variants()) {
    Variant p{};
    ASSERT_TRUE(divergence::parse_variant(divergence::variant_name(v), &p));
    EXPECT_EQ(p, v);
  }
}

}  // namespace
