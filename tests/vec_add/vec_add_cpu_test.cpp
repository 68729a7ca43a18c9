// vec_add: the CPU reference, variant names and the launch arithmetic. No GPU needed.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "reference.hpp"
#include "vec_add.hpp"

namespace {

using vec_add::Variant;

TEST(VecAddReference, AddsElementwise) {
  const std::vector<int> a{1, -2, 3}, b{10, 20, -30};
  std::vector<int> c(3, 99);
  vec_add::reference(a.data(), b.data(), c.data(), 3);
  EXPECT_EQ(c, (std::vector<int>{11, 18, -27}));
}

TEST(VecAddVariants, NamesRoundTrip) {
  // every variant has a name of its own (the count grows with the table)
  std::set<std::string> names;
  for (Variant v : vec_add::all_variants()) names.insert(vec_add::variant_name(v));
  EXPECT_EQ(names.size(), vec_add::all_variants().size());
  EXPECT_GE(names.size(), 2u);
  for (Variant v : vec_add::all_variants()) {
    Variant parsed{};
    ASSERT_TRUE(vec_add::parse_variant(vec_add::variant_name(v), &parsed));
    EXPECT_EQ(parsed, v);
  }
  Variant unused{};
  EXPECT_FALSE(vec_add::parse_variant("fastest", &unused));
}

TEST(VecAddGeometry, TheNotesExample) {
  // N = 1000, 256-thread blocks: 4 blocks, 1024 threads, 24 idle (2.34%).
  const auto g = vec_add::geometry(Variant::kNaive, 1000, 256, 132, 8);
  EXPECT_EQ(g.blocks(), 4);
  EXPECT_EQ(g.threads(), 1024);
  EXPECT_EQ(g.idle_slots(), 24);
  EXPECT_NEAR(g.idle_percent(), 2.34, 0.005);
}

TEST(VecAddGeometry, CoarseningDividesTheGrid) {
  // 2 elements per thread: 2 blocks of 256 = 512 threads, 1024 slots, 24 idle.
  const auto g2 = vec_add::geometry(Variant::kCoarsened2, 1000, 256, 132, 8);
  EXPECT_EQ(g2.blocks(), 2);
  EXPECT_EQ(g2.threads(), 512);
  EXPECT_EQ(g2.idle_slots(), 24);
  const auto g8 = vec_add::geometry(Variant::kCoarsened8, 1 << 20, 256, 132, 8);
  EXPECT_EQ(g8.blocks(), 512);
  EXPECT_EQ(g8.idle_slots(), 0);
}

TEST(VecAddGeometry, FixedGridIsSmsTimesResidentBlocksButNeverMoreThanTheWork) {
  const auto big = vec_add::geometry(Variant::kGridStride, std::size_t{1} << 28, 256, 132, 8);
  EXPECT_EQ(big.blocks(), 132 * 8);
  EXPECT_EQ(big.items_per_thread, (std::int64_t{1} << 28) / (132 * 8 * 256) + 1);
  const auto small = vec_add::geometry(Variant::kGridStride, 1000, 256, 132, 8);
  EXPECT_EQ(small.blocks(), 4);
  const auto vec_small = vec_add::geometry(Variant::kVectorized, 1000, 256, 132, 8);
  EXPECT_EQ(vec_small.blocks(), 1);  // 250 float4 vectors fit one block
  const auto one = vec_add::geometry(Variant::kVectorized, 1, 256, 132, 8);
  EXPECT_EQ(one.blocks(), 1);
}

TEST(VecAddPlan, RejectsBadBlockSizes) {
  EXPECT_THROW(vec_add::make_plan(Variant::kNaive, 100, 16), std::invalid_argument);
  EXPECT_THROW(vec_add::make_plan(Variant::kNaive, 100, 2048), std::invalid_argument);
}

}  // namespace
