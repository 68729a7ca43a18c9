#include "common/math.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace {

using cudalab::ceil_div;
using cudalab::round_up;

TEST(CeilDiv, CoversTheNotesExample) {
  EXPECT_EQ(ceil_div(1000, 256), 4);  // N = 1000, 256-thread blocks: 4 blocks, 24 idle threads
  EXPECT_EQ(ceil_div(76, 16), 5);     // the 76 x 62 image: 5 x 4 blocks
  EXPECT_EQ(ceil_div(62, 16), 4);
}

TEST(CeilDiv, Boundaries) {
  EXPECT_EQ(ceil_div(0, 256), 0);
  EXPECT_EQ(ceil_div(1, 256), 1);
  EXPECT_EQ(ceil_div(255, 256), 1);
  EXPECT_EQ(ceil_div(256, 256), 1);
  EXPECT_EQ(ceil_div(257, 256), 2);
  EXPECT_EQ(ceil_div(7, 1), 7);
}

TEST(CeilDiv, NoOverflowNearTheMaximum) {
  constexpr auto kMax = std::numeric_limits<std::uint32_t>::max();
  EXPECT_EQ(ceil_div(kMax, 2u), 2147483648u);
  constexpr auto kMax64 = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(ceil_div(kMax64, std::int64_t{1} << 62), 2);
}

TEST(CeilDiv, MixedTypesUseTheCommonType) {
  const std::size_t n = (std::size_t{1} << 32) + 1;  // past 32 bits
  EXPECT_EQ(ceil_div(n, 256), (std::size_t{1} << 24) + 1);
}

TEST(RoundUp, Multiples) {
  EXPECT_EQ(round_up(0, 32), 0);
  EXPECT_EQ(round_up(1, 32), 32);
  EXPECT_EQ(round_up(32, 32), 32);
  EXPECT_EQ(round_up(33, 32), 64);
}

static_assert(ceil_div(10, 3) == 4, "usable in constant expressions");

}  // namespace
