// The histogram lab's CPU side: the bins (the rule CUB's HistogramEven uses), the three key
// distributions, the rotated second set, the CPU histogram and the check of a result.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "common/ladder.hpp"
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
      if (bins > 2) {
        EXPECT_NE(keys, other) << histogram::dist_name(d) << " " << bins;
      }
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

// A timed launch's fresh keys are the keys rotated modulo their range; the check derives their
// histogram from the count of each key value, and it must be the rotated keys' histogram.
TEST(HistogramKeys, TheHistogramOfRotatedKeysFollowsFromTheValueCounts) {
  for (unsigned bins : {2u, 3u, 7u, 256u}) {
    for (Dist d : {Dist::kUniform, Dist::kSkewed, Dist::kOneValue}) {
      const auto keys = histogram::make_keys<unsigned char>(4096, bins, d, 3);
      const auto values = histogram::value_counts(keys, bins);
      for (std::uint64_t shift : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{77}, std::uint64_t{255}}) {
        const auto moved = histogram::rotated(keys, bins, shift);
        EXPECT_EQ(histogram::rotated_histogram<unsigned char>(values, bins, shift),
                  histogram::cpu_histogram(moved.data(), moved.size(), bins)) << bins << " " << shift;
      }
    }
  }
  for (unsigned bins : {2u, 1001u, 65536u}) {
    const auto keys = histogram::make_keys<unsigned>(4096, bins, Dist::kSkewed, 3);
    const auto values = histogram::value_counts(keys, bins);
    for (int rep : {0, 1, 2, 99}) {
      const std::uint64_t shift = cudalab::fresh_rotation(rep, bins), next = cudalab::fresh_rotation(rep + 1, bins);
      ASSERT_LT(shift, bins);
      const auto moved = histogram::rotated(keys, bins, shift), after = histogram::rotated(keys, bins, next);
      for (std::size_t i = 0; i < keys.size(); ++i) {  // every key changes bin from one launch to the next
        ASSERT_NE(histogram::bin_of(moved[i], bins), histogram::bin_of(after[i], bins)) << i;
        ASSERT_LT(moved[i], bins);
      }
      EXPECT_EQ(histogram::rotated_histogram<unsigned>(values, bins, shift),
                histogram::cpu_histogram(moved.data(), moved.size(), bins)) << bins << " " << rep;
    }
  }
  // a one-value input: every rotation moves its one full bin (so a replayed result is wrong)
  const auto one = histogram::make_keys<unsigned>(1000, 1001, Dist::kOneValue, 5);
  const auto values = histogram::value_counts(one, 1001);
  EXPECT_NE(histogram::rotated_histogram<unsigned>(values, 1001, cudalab::fresh_rotation(0, 1001)),
            histogram::rotated_histogram<unsigned>(values, 1001, cudalab::fresh_rotation(1, 1001)));
  EXPECT_EQ(cudalab::fresh_rotation(-1, 1001), 0u);
  EXPECT_EQ(cudalab::fresh_rotation(5, 1), 0u);
  // two keys' values: the launches alternate; 256 values: 256 launches before one repeats
  EXPECT_EQ(cudalab::fresh_rotation(0, 2), 1u);
  EXPECT_EQ(cudalab::fresh_rotation(1, 2), 0u);
  std::vector<std::uint64_t> seen;
  for (int rep = 0; rep < 256; ++rep) seen.push_back(cudalab::fresh_rotation(rep, 256));
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()) - seen.begin(), 256);
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
                                      "vector_runs", "lane_copies", "cluster_dsm"};
  EXPECT_EQ(histogram::variant_names(), want);
  for (auto v : histogram::all_variants()) EXPECT_FALSE(histogram::variant_summary(v).empty());
  histogram::Variant v{};
  EXPECT_TRUE(histogram::parse_variant("vector_runs", &v));
  EXPECT_EQ(v, histogram::Variant::kVectorRuns);
  EXPECT_TRUE(histogram::parse_variant("lane_copies", &v));
  EXPECT_EQ(v, histogram::Variant::kLaneCopies);
  EXPECT_FALSE(histogram::parse_variant("best", &v));
}

}  // namespace
