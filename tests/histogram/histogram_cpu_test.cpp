// The histogram lab's CPU side: the bins (the rule CUB's HistogramEven uses), the three key
// distributions, the rotated second set, the CPU histogram and the check of a result.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "histogram.hpp"
#include "reference.hpp"

namespace {

using histogram::Dist;

TEST(HistogramBins, Uint8KeysSplitTheByteRangeEvenly) {
  // bin = key * bins / 256: HistogramEven's rule with levels 0 .. 256
  for (unsigned bins : {2u, 3u, 7u, 100u, 256u}) {
    for (unsigned key = 0; key < 256; ++key) {
      EXPECT_EQ(histogram::bin_of(static_cast<unsigned char>(key), bins), static_cast<int>(key * bins / 256))
          << key << " in " << bins;
    }
  }
  EXPECT_EQ(histogram::bin_of(static_cast<unsigned char>(255), 256u), 255);
  EXPECT_EQ(histogram::bin_of(static_cast<unsigned char>(127), 2u), 0);
  EXPECT_EQ(histogram::bin_of(static_cast<unsigned char>(128), 2u), 1);
}

TEST(HistogramBins, Uint32KeysAreTheirBinAndOutOfRangeKeysCountNowhere) {
  EXPECT_EQ(histogram::bin_of(0u, 65536u), 0);
  EXPECT_EQ(histogram::bin_of(65535u, 65536u), 65535);
  EXPECT_EQ(histogram::bin_of(65536u, 65536u), -1);
  EXPECT_EQ(histogram::bin_of(999u, 1000u), 999);
  EXPECT_EQ(histogram::bin_of(1000u, 1000u), -1);
  EXPECT_EQ(histogram::bin_of(0xFFFFFFFFu, 2u), -1);
  const std::vector<unsigned> keys{0, 1, 2, 1, 7, 1};
  EXPECT_EQ(histogram::cpu_histogram(keys.data(), keys.size(), 2), (std::vector<unsigned>{1, 3}));
}

TEST(HistogramKeys, EveryDistributionStaysInRangeAndDependsOnTheSeed) {
  for (Dist d : {Dist::kUniform, Dist::kSkewed, Dist::kOneValue}) {
    for (unsigned bins : {2u, 1000u, 65536u}) {
      const auto keys = histogram::make_keys<unsigned>(20000, bins, d, 5);
      EXPECT_LT(*std::max_element(keys.begin(), keys.end()), bins) << histogram::dist_name(d);
      const auto other = histogram::make_keys<unsigned>(20000, bins, d, 6);
      if (bins > 2) EXPECT_NE(keys, other) << histogram::dist_name(d) << " " << bins;
    }
  }
}

TEST(HistogramKeys, TheDistributionsAreWhatTheirNamesSay) {
  const std::size_t n = 1 << 18;
  const auto count = [&](Dist d) {
    const auto keys = histogram::make_keys<unsigned char>(n, 256, d, 11);
    return histogram::cpu_histogram(keys.data(), n, 256);
  };
  const auto uniform = count(Dist::kUniform), skewed = count(Dist::kSkewed), one = count(Dist::kOneValue);
  // uniform: every bin near n / 256 = 1024
  EXPECT_GT(*std::min_element(uniform.begin(), uniform.end()), 800u);
  EXPECT_LT(*std::max_element(uniform.begin(), uniform.end()), 1250u);
  // skewed: key 0 about n / 9, far above the top keys
  EXPECT_NEAR(static_cast<double>(skewed[0]) / n, 1.0 / 9.0, 0.01);
  EXPECT_GT(skewed[0], 50 * skewed[200]);
  EXPECT_GT(skewed[200], 0u);
  // one value: one bin holds every key
  EXPECT_EQ(std::count(one.begin(), one.end(), 0u), 255);
  EXPECT_EQ(*std::max_element(one.begin(), one.end()), n);
}

TEST(HistogramKeys, TheSecondSetMovesEveryKeyToAnotherBin) {
  for (unsigned bins : {2u, 3u, 256u}) {
    const auto keys = histogram::make_keys<unsigned char>(4096, bins, Dist::kOneValue, 3);
    const auto second = histogram::rotated(keys, bins);
    EXPECT_NE(histogram::cpu_histogram(keys.data(), keys.size(), bins),
              histogram::cpu_histogram(second.data(), second.size(), bins)) << bins;
  }
  for (unsigned bins : {2u, 1001u, 65536u}) {
    const auto keys = histogram::make_keys<unsigned>(4096, bins, Dist::kSkewed, 3);
    const auto second = histogram::rotated(keys, bins);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_NE(histogram::bin_of(keys[i], bins), histogram::bin_of(second[i], bins)) << i;
      ASSERT_LT(second[i], bins);
    }
  }
}

TEST(HistogramReference, TheCheckFindsOneWrongBin) {
  const auto keys = histogram::make_keys<unsigned>(5000, 100, Dist::kUniform, 2);
  const auto want = histogram::cpu_histogram(keys.data(), keys.size(), 100);
  EXPECT_EQ(std::accumulate(want.begin(), want.end(), 0u), 5000u);
  std::vector<unsigned> got = want;
  EXPECT_EQ(histogram::first_wrong_bin(want, got.data(), "same"), want.size());
  got[57] += 1;
  EXPECT_EQ(histogram::first_wrong_bin(want, got.data(), "one more"), 57u);
  const std::vector<unsigned> zeros(100, 0);
  EXPECT_EQ(histogram::first_wrong_bin(want, zeros.data(), "zeros"), 0u);
}

TEST(HistogramVariants, TheLadderIsInOrderAndNamed) {
  const std::vector<std::string> want{"global_atomics", "shared_private", "warp_private", "warp_aggregated",
                                      "vector_runs", "cluster_dsm"};
  EXPECT_EQ(histogram::variant_names(), want);
  for (auto v : histogram::all_variants()) EXPECT_FALSE(histogram::variant_summary(v).empty());
  histogram::Variant v{};
  EXPECT_TRUE(histogram::parse_variant("vector_runs", &v));
  EXPECT_EQ(v, histogram::Variant::kVectorRuns);
  EXPECT_FALSE(histogram::parse_variant("best", &v));
}

}  // namespace
