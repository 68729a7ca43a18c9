// The grading tests' inputs (tests/gpu_test.hpp): the run's seed changes them, and the heavy-tailed
// floats defeat a kernel that samples its input or writes a constant.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "gpu_test.hpp"

namespace {

using cudalab::testing::heavy_tailed;
using cudalab::testing::mix_seed;
using cudalab::testing::parse_seed;

TEST(TestSeed, ParsesDecimalsAndRefusesTheRest) {
  EXPECT_EQ(parse_seed(nullptr), 0u);
  EXPECT_EQ(parse_seed(""), 0u);
  EXPECT_EQ(parse_seed("abc"), 0u);
  EXPECT_EQ(parse_seed("12x"), 0u);
  EXPECT_EQ(parse_seed("-5"), 0u);
  EXPECT_EQ(parse_seed(" 5"), 0u);
  EXPECT_EQ(parse_seed("99999999999999999999999"), 0u);  // past 2^64
  EXPECT_EQ(parse_seed("12345"), 12345u);
  EXPECT_EQ(parse_seed("4611686018427387904"), std::uint64_t{1} << 62);
}

TEST(TestSeed, ARunSeedChangesEveryTestsInputsAndNoneKeepsThem) {
  EXPECT_EQ(mix_seed(17, 0), 17u);  // a plain ctest run: the test's own seed
  std::set<std::uint64_t> seen;
  for (std::uint64_t run : {1ull, 2ull, 3ull, 1ull << 40}) {
    for (std::uint64_t local : {0ull, 1ull, 2ull, 1000ull}) {
      const std::uint64_t s = mix_seed(local, run);
      EXPECT_NE(s, local);
      seen.insert(s);
    }
  }
  EXPECT_EQ(seen.size(), 16u);  // runs and tests apart, no two alike
  const auto a = cudalab::random_vector<float>(64, mix_seed(5, 1), -1.f, 1.f);
  const auto b = cudalab::random_vector<float>(64, mix_seed(5, 2), -1.f, 1.f);
  EXPECT_NE(a, b);
}

TEST(HeavyTailed, MagnitudesSpanDecadesWithSpikesAtRandomPlaces) {
  EXPECT_TRUE(heavy_tailed(0, 1).empty());
  const auto one = heavy_tailed(1, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(std::fabs(one[0]), 1048576.0f);  // the spike every input has
  for (std::size_t n : {std::size_t{7}, std::size_t{4097}, std::size_t{100003}}) {
    const auto v = heavy_tailed(n, 42);
    ASSERT_EQ(v.size(), n);
    EXPECT_EQ(v, heavy_tailed(n, 42));  // a function of the seed ...
    EXPECT_NE(v, heavy_tailed(n, 43));  // ... and of nothing else
    std::vector<std::size_t> spikes;
    float smallest = INFINITY, largest_ordinary = 0;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_TRUE(std::isfinite(v[i])) << i;
      sum += v[i];
      if (std::fabs(v[i]) == 1048576.0f) {
        spikes.push_back(i);
      } else {
        EXPECT_LE(std::fabs(v[i]), 256.0f) << i;  // 2^8 at most, but for the spikes
        if (v[i] != 0) smallest = std::min(smallest, std::fabs(v[i]));
        largest_ordinary = std::max(largest_ordinary, std::fabs(v[i]));
      }
    }
    EXPECT_GE(spikes.size(), 1u);
    EXPECT_LE(spikes.size(), n / 4096 + 1);
    EXPECT_TRUE(std::isfinite(sum));
    if (n > 1000) {
      EXPECT_GT(largest_ordinary / smallest, 1e4f) << n;  // a heavy tail of magnitudes, not one scale
      EXPECT_GT(spikes.size(), 1u);
      EXPECT_NE(spikes.front(), 0u);  // not at a place a kernel could guess
    }
  }
}

}  // namespace
