// The scan lab's CPU side: the check every result goes through (exact for int, a rounding bound
// for float that admits any order of additions and nothing else) and the variant table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/ladder.hpp"
#include "common/random.hpp"
#include "problem.hpp"
#include "reference.hpp"
#include "scan.hpp"

namespace {

using scan::Kind;

std::vector<int> int_scan(const std::vector<int>& x, Kind kind) {
  std::vector<int> out(x.size());
  unsigned run = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (kind == Kind::kExclusive) out[i] = static_cast<int>(run);
    run += static_cast<unsigned>(x[i]);
    if (kind == Kind::kInclusive) out[i] = static_cast<int>(run);
  }
  return out;
}

TEST(ScanReference, IntIsExactAndCatchesOneWrongElement) {
  const std::vector<int> x = cudalab::random_vector<int>(5001, 3, -1000, 1000);
  for (Kind kind : {Kind::kInclusive, Kind::kExclusive}) {
    std::vector<int> got = int_scan(x, kind);
    EXPECT_EQ(scan::first_mismatch(x, got.data(), kind), x.size());
    got[4000] += 1;
    EXPECT_EQ(scan::first_mismatch(x, got.data(), kind), 4000u);
  }
  // the other kind is wrong: inclusive where exclusive was asked
  const std::vector<int> incl = int_scan(x, Kind::kInclusive);
  EXPECT_EQ(scan::first_mismatch(x, incl.data(), Kind::kExclusive), 0u);
}

TEST(ScanReference, IntWrapsModuloTwoToThe32) {
  const std::vector<int> x{2147483647, 1, -5};
  const std::vector<int> got{2147483647, -2147483647 - 1, 2147483643};
  EXPECT_EQ(scan::first_mismatch(x, got.data(), Kind::kInclusive), 3u);
}

TEST(ScanReference, TheNegatedSetExpectsMinusTheScan) {
  const std::vector<int> x = cudalab::random_vector<int>(100, 5, -9, 9);
  std::vector<int> minus = int_scan(x, Kind::kInclusive);
  for (int& v : minus) v = -v;
  EXPECT_EQ(scan::first_mismatch(x, minus.data(), Kind::kInclusive, -1), x.size());
  EXPECT_LT(scan::first_mismatch(x, minus.data(), Kind::kInclusive, 1), x.size());
}

// A timed launch's fresh inputs are x times an odd int (wrapping) or a power of two: the scan of
// the scaled inputs is the scaled scan, and the check expects exactly that one.
TEST(ScanReference, ScaledInputsExpectTheScaledScan) {
  const std::vector<int> x = cudalab::random_vector<int>(1000, 6, -100, 100);
  const std::int32_t m = cudalab::fresh_int_multiplier(12345);
  std::vector<int> scaled(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    scaled[i] = static_cast<int>(static_cast<std::uint32_t>(x[i]) * static_cast<std::uint32_t>(m));
  }
  const std::vector<int> got = int_scan(scaled, Kind::kExclusive);
  EXPECT_EQ(scan::first_mismatch(x, got.data(), Kind::kExclusive, m), x.size());
  EXPECT_LT(scan::first_mismatch(x, got.data(), Kind::kExclusive, 1), x.size());
  EXPECT_LT(scan::first_mismatch(x, got.data(), Kind::kExclusive, m + 2), x.size());

  const std::vector<float> xf = cudalab::random_vector<float>(1000, 7, -1.f, 1.f);
  const double mf = cudalab::fresh_multiplier(27);  // -2^-7
  std::vector<float> gotf(xf.size());
  float run = 0;
  for (std::size_t i = 0; i < xf.size(); ++i) gotf[i] = run += static_cast<float>(xf[i] * mf);
  EXPECT_EQ(scan::first_mismatch(xf, gotf.data(), Kind::kInclusive, mf), xf.size());
  EXPECT_LT(scan::first_mismatch(xf, gotf.data(), Kind::kInclusive, -mf), xf.size());
  EXPECT_LT(scan::first_mismatch(xf, gotf.data(), Kind::kInclusive, 2 * mf), xf.size());
}

// Compaction's fresh inputs: the CPU scales x as the device does and selects again; a negative
// number keeps the elements that were negative, and a wrapped int product keeps others still.
TEST(ScanReference, CompactionOfScaledInputsSelectsFromTheScaledValues) {
  const std::vector<float> x{0.5f, -1.0f, 2.0f, -0.25f, 0.0f};
  EXPECT_EQ(scan::scaled(-1.0f, -4.0), 4.0f);
  std::vector<float> down(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) down[i] = scan::scaled(x[i], -0.5);
  EXPECT_EQ(scan::compaction_reference(down), (std::vector<float>{0.5f, 0.125f}));
  EXPECT_EQ(scan::scaled(2147483647, 3.0), 2147483645);  // (2^31 - 1) * 3 modulo 2^32
  EXPECT_EQ(scan::scaled(-7, static_cast<double>(cudalab::fresh_int_multiplier(0))), -21);
  const std::vector<int> big{1 << 30, -(1 << 30), 5};
  std::vector<int> times3(big.size());
  for (std::size_t i = 0; i < big.size(); ++i) times3[i] = scan::scaled(big[i], 3.0);
  // 3 * 2^30 wraps to -2^30 (dropped), 3 * -2^30 to +2^30 (kept)
  EXPECT_EQ(scan::compaction_reference(times3), (std::vector<int>{1 << 30, 15}));
}

TEST(ScanReference, FloatAdmitsAnyOrderOfAdditionsAndNoMissingElement) {
  const std::size_t n = 1 << 16;
  const std::vector<float> x = cudalab::random_vector<float>(n, 11, -1.f, 1.f);
  // in float, in order (n roundings in a row) and in blocks of 512 added tile to tile
  std::vector<float> serial(n), tiled(n);
  float run = 0;
  for (std::size_t i = 0; i < n; ++i) serial[i] = run += x[i];
  float carry = 0;
  for (std::size_t t = 0; t < n; t += 512) {
    float local = 0;
    for (std::size_t i = t; i < t + 512; ++i) tiled[i] = carry + (local += x[i]);
    carry += local;
  }
  EXPECT_EQ(scan::first_mismatch(x, serial.data(), Kind::kInclusive), n);
  EXPECT_EQ(scan::first_mismatch(x, tiled.data(), Kind::kInclusive), n);
  // one element left out of every prefix from 777 on
  std::vector<float> missing = tiled;
  for (std::size_t i = 777; i < n; ++i) missing[i] -= x[777];
  EXPECT_EQ(scan::first_mismatch(x, missing.data(), Kind::kInclusive), 777u);
  std::vector<float> nan = tiled;
  nan[5] = std::nanf("");
  EXPECT_EQ(scan::first_mismatch(x, nan.data(), Kind::kInclusive), 5u);
}

TEST(ScanReference, ExclusiveStartsAtExactlyZero) {
  const std::vector<float> x{0.5f, 0.25f};
  const std::vector<float> got{1e-30f, 0.5f};
  EXPECT_EQ(scan::first_mismatch(x, got.data(), Kind::kExclusive), 0u);
}

TEST(ScanVariants, TableNamesAndTiles) {
  const auto& all = scan::all_variants();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(scan::variant_name(all.front()), "kogge_stone");
  EXPECT_EQ(scan::variant_name(all.back()), "decoupled_lookback");
  for (scan::Variant v : all) {
    scan::Variant parsed{};
    EXPECT_TRUE(scan::parse_variant(scan::variant_name(v), &parsed));
    EXPECT_EQ(parsed, v);
    const std::size_t tile = scan::tile_elements(v);
    EXPECT_GE(tile, 512u);
    EXPECT_EQ(tile & (tile - 1), 0u) << "a power of two";
  }
  scan::Variant unused{};
  EXPECT_FALSE(scan::parse_variant("best", &unused));
}

TEST(CompactionReference, KeepsThePositivesInOrderAndTheCheckCatchesEachWayToBeWrong) {
  const std::vector<float> x{0.5f, -1.0f, 0.0f, 2.0f, -0.0f, 3.5f, -2.0f};
  const std::vector<float> want = scan::compaction_reference(x);
  ASSERT_EQ(want, (std::vector<float>{0.5f, 2.0f, 3.5f}));  // 0 and -0 are not kept
  EXPECT_TRUE(scan::compaction_matches(want, 3, want.data(), "test"));
  EXPECT_FALSE(scan::compaction_matches(want, 2, want.data(), "test"));   // a count short
  const std::vector<float> reordered{2.0f, 0.5f, 3.5f};
  EXPECT_FALSE(scan::compaction_matches(want, 3, reordered.data(), "test"));  // not stable
  const std::vector<int> none = scan::compaction_reference(std::vector<int>{0, -3, -1});
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(scan::compaction_matches(none, 0, none.data(), "test"));
  EXPECT_FALSE(scan::compaction_matches(none, 1, none.data(), "test"));
}

// The table in ladder order (the three-kernel way first), every name parsed back to its variant
// and no two alike; the count grows with the table.
TEST(CompactionVariants, TableNames) {
  const auto& all = scan::compaction::all_variants();
  ASSERT_FALSE(all.empty());
  EXPECT_EQ(scan::compaction::variant_name(all.front()), "scan_then_scatter");
  std::set<std::string> names;
  for (scan::compaction::Variant v : all) {
    const std::string name = scan::compaction::variant_name(v);
    EXPECT_TRUE(names.insert(name).second) << name << " twice";
    scan::compaction::Variant parsed{};
    EXPECT_TRUE(scan::compaction::parse_variant(name, &parsed)) << name;
    EXPECT_EQ(parsed, v) << name;
  }
  scan::compaction::Variant parsed{};
  EXPECT_FALSE(scan::compaction::parse_variant("single", &parsed));
}

}  // namespace
