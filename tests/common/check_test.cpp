#include "common/check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace {

using cudalab::check_close;
using cudalab::check_exact;

TEST(CheckExact, AllEqualPasses) {
  const std::vector<int> a{1, 2, 3, 4};
  const auto r = check_exact(a, a);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.checked, 4u);
  EXPECT_EQ(r.summary(), "all 4 elements match");
}

TEST(CheckExact, CatchesOneWrongElementAndReportsIt) {
  std::vector<unsigned char> expected(1000, 7), actual(1000, 7);
  actual[999] = 8;  // the last element: a kernel that drops the tail
  const auto r = check_exact(expected, actual);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.mismatches, 1u);
  ASSERT_EQ(r.first.size(), 1u);
  EXPECT_EQ(r.first[0].index, 999u);
  EXPECT_EQ(r.first[0].expected, 7.0);
  EXPECT_EQ(r.first[0].actual, 8.0);
  EXPECT_NE(r.summary().find("[999] expected 7 got 8"), std::string::npos) << r.summary();
}

TEST(CheckExact, CountsAllButReportsOnlyTheFirstFew) {
  std::vector<int> expected(100, 0), actual(100, 1);
  const auto r = check_exact(expected, actual, 3);
  EXPECT_EQ(r.mismatches, 100u);
  ASSERT_EQ(r.first.size(), 3u);
  EXPECT_EQ(r.first[0].index, 0u);
  EXPECT_EQ(r.first[2].index, 2u);
}

TEST(CheckExact, NaNNeverMatches) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> expected{1.0f, nan}, actual{1.0f, nan};
  EXPECT_EQ(check_exact(expected, actual).mismatches, 1u);
}

TEST(CheckExact, SizeDifferenceIsAFailure) {
  const std::vector<int> expected{1, 2, 3}, actual{1, 2};
  const auto r = check_exact(expected, actual);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.mismatches, 1u);
}

TEST(CheckClose, ToleranceEdges) {
  // |a - e| <= abs + rel * |e|: 100 with abs 0.5, rel 0.01 allows up to 1.5 away.
  const std::vector<double> expected{100.0};
  EXPECT_TRUE(check_close(expected, std::vector<double>{101.5}, 0.5, 0.01).ok());
  EXPECT_TRUE(check_close(expected, std::vector<double>{98.5}, 0.5, 0.01).ok());
  EXPECT_FALSE(check_close(expected, std::vector<double>{101.5001}, 0.5, 0.01).ok());
  EXPECT_FALSE(check_close(expected, std::vector<double>{98.4999}, 0.5, 0.01).ok());
  // Zero tolerance is an exact comparison.
  EXPECT_TRUE(check_close(expected, expected, 0.0, 0.0).ok());
  EXPECT_FALSE(check_close(expected, std::vector<double>{std::nextafter(100.0, 200.0)}, 0.0, 0.0).ok());
}

TEST(CheckClose, AbsoluteToleranceMattersNearZero) {
  const std::vector<float> expected{0.0f};
  EXPECT_TRUE(check_close(expected, std::vector<float>{1e-7f}, 1e-6, 0.0).ok());
  EXPECT_FALSE(check_close(expected, std::vector<float>{1e-7f}, 0.0, 0.5).ok());
}

TEST(CheckClose, NaNAndInfinity) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(check_close(std::vector<float>{1.0f}, std::vector<float>{nan}, 1e9, 1e9).ok());
  EXPECT_FALSE(check_close(std::vector<float>{nan}, std::vector<float>{nan}, 1e9, 1e9).ok());
  EXPECT_FALSE(check_close(std::vector<float>{1.0f}, std::vector<float>{inf}, 1e9, 1e9).ok());
  EXPECT_TRUE(check_close(std::vector<float>{inf}, std::vector<float>{inf}, 0.0, 0.0).ok());
  EXPECT_FALSE(check_close(std::vector<float>{inf}, std::vector<float>{-inf}, 0.0, 0.0).ok());
}

TEST(CheckClose, ReportsIndexOfTheMismatch) {
  std::vector<float> expected(33, 1.0f), actual(33, 1.0f);
  actual[32] = 2.0f;
  const auto r = check_close(expected, actual, 1e-6, 1e-6);
  ASSERT_EQ(r.mismatches, 1u);
  EXPECT_EQ(r.first[0].index, 32u);
}

}  // namespace
