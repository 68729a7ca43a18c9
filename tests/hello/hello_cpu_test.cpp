// hello without a GPU: the index arithmetic of a 2D launch (what every thread must compute about
// itself), the notes' vecAdd inputs, and the names of the deliberate mistakes.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "hello.hpp"
#include "reference.hpp"

namespace {

TEST(HelloIndex, TheNotesLaunchNumbersEveryThreadOnce) {
  const dim3 grid(4, 3), block(4, 2);
  const auto all = hello::expected_indices(grid, block);
  ASSERT_EQ(all.size(), 96u);
  std::set<int> linear;
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].linear, static_cast<int>(i));
    linear.insert(all[i].linear);
    EXPECT_EQ(all[i].warp, 0);  // 8 threads per block: one (partial) warp
  }
  EXPECT_EQ(linear.size(), 96u);
  // block (1,2) is the 9th block (2 * 4 + 1); its thread (3,1) is the 8th of 8
  const auto t = hello::expected_index(grid, block, 1, 2, 3, 1);
  EXPECT_EQ(t.linear, 9 * 8 + 7);
  EXPECT_EQ(t.lane, 7);
  EXPECT_EQ(hello::warps_per_block(block), 1);
}

TEST(HelloIndex, WarpZeroOfA16x16BlockIsRowsZeroAndOne) {
  const dim3 one(1), block(16, 16);
  EXPECT_EQ(hello::warps_per_block(block), 8);
  const auto all = hello::expected_indices(one, block);
  for (const auto& t : all) {
    EXPECT_EQ(t.warp, t.thread_y / 2) << t.thread_x << "," << t.thread_y;
    EXPECT_EQ(t.lane, (t.thread_y % 2) * 16 + t.thread_x);
  }
  EXPECT_EQ(hello::expected_index(one, block, 0, 0, 15, 1).warp, 0);
  EXPECT_EQ(hello::expected_index(one, block, 0, 0, 0, 2).warp, 1);
}

TEST(HelloIndex, APartialLastWarp) {
  const dim3 one(1), block(10, 5);  // 50 threads: warps of 32 and 18
  EXPECT_EQ(hello::warps_per_block(block), 2);
  const auto t = hello::expected_index(one, block, 0, 0, 9, 4);
  EXPECT_EQ(t.linear, 49);
  EXPECT_EQ(t.warp, 1);
  EXPECT_EQ(t.lane, 17);
}

TEST(HelloVecAdd, TheNotesInputsAndTheirSumFitAnInt) {
  const auto a = hello::notes_a(46340), b = hello::notes_b(46340);
  EXPECT_EQ(a[9999], 9999);
  EXPECT_EQ(b[9999], 99980001);
  EXPECT_LT(static_cast<long long>(a.back()) + b.back(), 2147483647LL);
  EXPECT_EQ((10000 + 255) / 256, 40);  // the notes' Num_Blocks for N = 10000
}

TEST(HelloBreak, EveryKindHasANameThatParsesBack) {
  std::set<std::string> names;
  for (hello::Break b : hello::all_breaks()) {
    hello::Break parsed;
    ASSERT_TRUE(hello::parse_break(hello::break_name(b), &parsed)) << hello::break_name(b);
    EXPECT_EQ(parsed, b);
    EXPECT_FALSE(hello::break_summary(b).empty());
    names.insert(hello::break_name(b));
  }
  EXPECT_EQ(names.size(), hello::all_breaks().size());
  hello::Break unused;
  EXPECT_FALSE(hello::parse_break("nonsense", &unused));
}

}  // namespace
