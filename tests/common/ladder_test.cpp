// The variant driver's memory cap, without a GPU: a sweep stops before the first size that does
// not fit the budget.
#include <gtest/gtest.h>

#include <vector>

#include "common/ladder.hpp"

namespace {

TEST(SweepSizes, PowersUpToTheLastSize) {
  const auto all = cudalab::sweep_sizes(1, 1 << 20, 2, [](std::size_t) { return 1.0; }, 100.0);
  ASSERT_EQ(all.size(), 21u);
  EXPECT_EQ(all.front(), 1u);
  EXPECT_EQ(all.back(), std::size_t{1} << 20);
  EXPECT_EQ(cudalab::sweep_sizes(1024, 1 << 28, 4, [](std::size_t) { return 0.0; }, 1.0).size(), 10u);
}

TEST(SweepSizes, StopBeforeTheFirstSizeOverTheBudget) {
  const auto bytes = [](std::size_t n) { return 12.0 * static_cast<double>(n); };  // vec_add: 12 B per element
  const auto capped = cudalab::sweep_sizes(1024, 1 << 28, 2, bytes, 12.0 * 65536);
  EXPECT_EQ(capped.back(), 65536u);  // exactly at the budget still fits
  EXPECT_EQ(cudalab::sweep_sizes(1024, 1 << 28, 2, bytes, 12.0 * 65535).back(), 32768u);
  EXPECT_TRUE(cudalab::sweep_sizes(1024, 1 << 28, 2, bytes, 100.0).empty());
}

TEST(SweepSizes, AFactorBelowTwoGivesOneSize) {
  EXPECT_EQ(cudalab::sweep_sizes(5, 100, 1, [](std::size_t) { return 0.0; }, 1.0), (std::vector<std::size_t>{5}));
}

}  // namespace
