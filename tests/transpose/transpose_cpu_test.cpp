// transpose on the CPU: the reference, and the bank arithmetic the microbenchmark must follow
// (the notes' "8-way" for sTile[t*32]-like strides and "4-way" for bytes, corrected).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "reference.hpp"
#include "transpose.hpp"

namespace {

using transpose::BankCase;
using transpose::BankPattern;

TEST(TransposeReference, SmallShapes) {
  const std::vector<float> in{1, 2, 3, 4, 5, 6};  // 2 x 3
  EXPECT_EQ(transpose::reference(in, 2, 3), (std::vector<float>{1, 4, 2, 5, 3, 6}));  // 3 x 2
  EXPECT_EQ(transpose::reference(in, 1, 6), in);  // a row becomes a column: same memory
  const auto a = transpose::make_input(31, 33);
  EXPECT_EQ(transpose::reference(transpose::reference(a, 31, 33), 33, 31), a);  // twice is the identity
  EXPECT_NE(a[1], a[2]);
}

TEST(BankPrediction, StridesBytesAndBroadcast) {
  const int want[] = {1, 2, 4, 8, 16, 32, 1};
  const int strides[] = {1, 2, 4, 8, 16, 32, 33};
  for (int k = 0; k < 7; ++k) {
    EXPECT_EQ(transpose::predicted_degree(BankCase{BankPattern::kStride, strides[k]}), want[k]) << strides[k];
  }
  EXPECT_EQ(transpose::predicted_degree(BankCase{BankPattern::kBytes, 1}), 1);      // not the notes' 4-way
  EXPECT_EQ(transpose::predicted_degree(BankCase{BankPattern::kBroadcast, 0}), 1);  // one word for all
  EXPECT_EQ(transpose::bank_case_offset(BankCase{BankPattern::kStride, 33}, 31), 1023u);
  EXPECT_EQ(transpose::bank_case_offset(BankCase{BankPattern::kBytes, 1}, 5), 5u);
  EXPECT_EQ(transpose::bank_case_offset(BankCase{BankPattern::kBroadcast, 0}, 17), 0u);
}

TEST(BankPrediction, ATileColumnIs32WayUnlessPaddedOrSwizzled) {
  for (int column = 0; column < 32; ++column) {
    EXPECT_EQ(transpose::tile_column_degree(32, false, column), 32) << column;
    EXPECT_EQ(transpose::tile_column_degree(33, false, column), 1) << column;
    EXPECT_EQ(transpose::tile_column_degree(32, true, column), 1) << column;
  }
}

TEST(TransposeVariants, NamesRoundTrip) {
  for (auto v : transpose::all_variants()) {
    transpose::Variant back{};
    ASSERT_TRUE(transpose::parse_variant(transpose::variant_name(v), &back));
    EXPECT_EQ(back, v);
  }
  // every variant has a name of its own (the count grows with the table)
  std::set<std::string> names;
  for (auto v : transpose::all_variants()) names.insert(transpose::variant_name(v));
  EXPECT_EQ(names.size(), transpose::all_variants().size());
  EXPECT_GE(names.size(), 2u);
}

TEST(TransposeVariants, LaunchShapesCoverTheMatrixWithTheirOwnBlocks) {
  using transpose::Variant;
  // What the lab's launch table prints: padded_coarse is the one variant of 128 threads.
  EXPECT_EQ(transpose::launch_shape(Variant::kNaive, 8192, 8192).threads_per_block(), 256);
  EXPECT_EQ(transpose::launch_shape(Variant::kPadded, 8192, 8192).threads_per_block(), 256);
  EXPECT_EQ(transpose::launch_shape(Variant::kPaddedCoarse, 8192, 8192).threads_per_block(), 128);
  for (auto [rows, cols] : std::vector<std::pair<int, int>>{{1, 1}, {4097, 5}, {33, 8193}, {8192, 8192}}) {
    for (auto v : transpose::all_variants()) {
      const transpose::LaunchShape l = transpose::launch_shape(v, rows, cols);
      const std::string what = transpose::variant_name(v) + " " + std::to_string(rows) + " x " + std::to_string(cols);
      EXPECT_EQ(l.block_x, 32) << what;
      EXPECT_GE(static_cast<long long>(l.grid_x) * 32, cols) << what;
      EXPECT_LT(static_cast<long long>(l.grid_x - 1) * 32, cols) << what;  // no block column of nothing
      // A tiled variant's block covers 32 rows (looping over them), the naive one block_y rows.
      const long long rows_per_block = v == Variant::kNaive ? l.block_y : 32;
      EXPECT_GE(l.grid_y * rows_per_block, rows) << what;
      EXPECT_LT((l.grid_y - 1) * rows_per_block, rows) << what;
    }
  }
}

}  // namespace
