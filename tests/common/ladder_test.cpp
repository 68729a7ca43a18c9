// The variant driver without a GPU: a sweep stops before the first size that does not fit the
// budget, and its table has the same columns in every lab.
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include <string>
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

TEST(SweepSizes, CopyTableAndSweepOfTheTransfersLab) {
  const auto none = [](std::size_t) { return 0.0; };
  const auto sweep = cudalab::sweep_sizes(4096, std::size_t{1} << 30, 2, none, 1.0);
  ASSERT_EQ(sweep.size(), 19u);  // 2^12 .. 2^30
  EXPECT_EQ(sweep.front(), 4096u);
  EXPECT_EQ(sweep.back(), std::size_t{1} << 30);
  EXPECT_EQ(cudalab::sweep_sizes(4096, std::size_t{256} << 20, 16, none, 1.0),
            (std::vector<std::size_t>{4096, 65536, 1 << 20, 16 << 20, 256 << 20}));
  EXPECT_EQ(cudalab::sweep_sizes(1024, 1000, 4, none, 1.0).size(), 0u);
  EXPECT_EQ(cudalab::sweep_sizes(1024, 1024, 4, none, 1.0).size(), 1u);
}

TEST(SweepSizes, StopsBeforeOverflowingAndRefusesZero) {
  const auto none = [](std::size_t) { return 0.0; };
  EXPECT_EQ(cudalab::sweep_sizes(1, std::numeric_limits<std::size_t>::max(), 2, none, 1.0).size(), 64u);
  EXPECT_THROW(cudalab::sweep_sizes(0, 10, 2, none, 1.0), std::invalid_argument);
}

TEST(SweepSizes, AFactorBelowTwoGivesOneSize) {
  EXPECT_EQ(cudalab::sweep_sizes(5, 100, 1, [](std::size_t) { return 0.0; }, 1.0), (std::vector<std::size_t>{5}));
}

}  // namespace

TEST(SweepTable, SizeColumnsThenTheStandardColumnsAndOneRowPerRung) {
  cudalab::Table t = cudalab::sweep_table({{"width", "width"}, {"pixels", "pixels"}}, {"vs_cub", "x CUB"});
  std::vector<std::string> keys;
  for (const auto& c : t.columns()) keys.push_back(c.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"width", "pixels", "variant", "median_us", "gbps", "vs_cub", "correct"}));

  cudalab::LadderResult ladder;
  for (const char* name : {"slow", "fast"}) {
    cudalab::RungResult r;
    r.result.name = name;
    r.result.bytes = 4e9;
    r.result.timing.median_ms = name[0] == 's' ? 4.0 : 2.0;
    r.result.correct = name[0] == 'f';
    ladder.rungs.push_back(r);
  }
  cudalab::add_sweep_row(t, {7, 49}, {"baseline", ladder.rungs[0].result.timing, 8e9, true}, cudalab::Value(1.0, 3));
  cudalab::add_sweep_rows(t, {7, 49}, ladder, [](const cudalab::VariantResult& r) {
    return cudalab::Value(4.0 / r.timing.median_ms, 3);
  });
  ASSERT_EQ(t.rows().size(), 3u);
  const auto& fast = t.rows()[2];
  ASSERT_EQ(fast.size(), keys.size());
  EXPECT_EQ(fast[0].text(), "7");
  EXPECT_EQ(fast[2].text(), "fast");
  EXPECT_EQ(fast[3].text(), "2000.00");  // us
  EXPECT_EQ(fast[4].text(), "2000");     // 4e9 B in 2 ms
  EXPECT_EQ(fast[5].text(), "2.000");
  EXPECT_EQ(fast[6].text(), "yes");
  EXPECT_EQ(t.rows()[1][6].text(), "NO");
  EXPECT_EQ(t.rows()[0][2].text(), "baseline");
  EXPECT_EQ(t.rows()[0][4].text(), "2000");  // 8e9 B in 4 ms
}
