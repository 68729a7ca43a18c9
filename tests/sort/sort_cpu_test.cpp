// The sort lab's CPU side: the sort bits (floats' total order, -0.0 as +0.0), the CPU's stable
// radix sort against std::stable_sort, the inputs of every distribution, the check (a wrong key,
// an unstable pair, a changed bit, and the orders an unstable float sort may take), the variant
// table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "reference.hpp"
#include "sort.hpp"

namespace {

using sort::KeyType;

std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

TEST(SortBits, FloatsInTheirTotalOrderWithTheZerosEqual) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ascending{-inf, -1e30f, -2.0f, -1.0f, -1e-30f, 0.0f, 1e-30f, 1.0f, 2.0f, 1e30f, inf};
  for (std::size_t i = 1; i < ascending.size(); ++i) {
    EXPECT_LT(sort::sort_bits(bits(ascending[i - 1]), KeyType::kFloat), sort::sort_bits(bits(ascending[i]), KeyType::kFloat))
        << ascending[i - 1] << " < " << ascending[i];
  }
  EXPECT_EQ(sort::sort_bits(bits(-0.0f), KeyType::kFloat), sort::sort_bits(bits(0.0f), KeyType::kFloat));
  EXPECT_GT(sort::sort_bits(0x7FC00000u, KeyType::kFloat), sort::sort_bits(bits(inf), KeyType::kFloat));   // +NaN last
  EXPECT_LT(sort::sort_bits(0xFFC00000u, KeyType::kFloat), sort::sort_bits(bits(-inf), KeyType::kFloat));  // -NaN first
  EXPECT_EQ(sort::sort_bits(0x7FFFFFFFu, KeyType::kFloat), 0xFFFFFFFFu);  // the bitonic pad: the largest
  EXPECT_EQ(sort::sort_bits(123u, KeyType::kU32), 123u);
}

TEST(SortReference, TheRadixOrderIsStdStableSortsForEveryDistribution) {
  for (KeyType t : {KeyType::kU32, KeyType::kFloat}) {
    for (sort::Dist d : {sort::Dist::kUniform, sort::Dist::kSorted, sort::Dist::kReversed, sort::Dist::kEqual, sort::Dist::kFew}) {
      const std::vector<std::uint32_t> k = sort::make_keys(5003, t, d, 17);
      const std::vector<std::uint32_t> order = sort::sorted_order(k, t);
      std::vector<std::uint32_t> expected(k.size());
      for (std::size_t i = 0; i < k.size(); ++i) expected[i] = static_cast<std::uint32_t>(i);
      std::stable_sort(expected.begin(), expected.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return sort::sort_bits(k[a], t) < sort::sort_bits(k[b], t); });
      EXPECT_EQ(order, expected) << sort::key_type_name(t) << " " << sort::dist_name(d);
    }
  }
}

TEST(SortReference, InputsOfEachDistribution) {
  const auto sorted = sort::make_keys(1000, KeyType::kU32, sort::Dist::kSorted, 3);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  const auto reversed = sort::make_keys(1000, KeyType::kU32, sort::Dist::kReversed, 3);
  EXPECT_TRUE(std::is_sorted(reversed.rbegin(), reversed.rend()));
  const auto equal = sort::make_keys(1000, KeyType::kU32, sort::Dist::kEqual, 3);
  EXPECT_EQ(std::count(equal.begin(), equal.end(), equal[0]), 1000);
  auto few = sort::make_keys(1000, KeyType::kU32, sort::Dist::kFew, 3);
  std::sort(few.begin(), few.end());
  EXPECT_LE(std::unique(few.begin(), few.end()) - few.begin(), 16);
  const auto floats = sort::make_keys(20000, KeyType::kFloat, sort::Dist::kUniform, 5);
  int zeros = 0, negative_zeros = 0, nans = 0, infs = 0, negatives = 0;
  for (std::uint32_t b : floats) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    zeros += b == 0;
    negative_zeros += b == 0x80000000u;
    nans += std::isnan(f);
    infs += std::isinf(f);
    negatives += f < 0;
  }
  EXPECT_GT(zeros, 0);
  EXPECT_GT(negative_zeros, 0);
  EXPECT_GT(nans, 0);
  EXPECT_GT(infs, 0);
  EXPECT_GT(negatives, 5000);
}

TEST(SortCheck, CatchesAWrongKeyAnUnstablePairAndAChangedBit) {
  const std::vector<std::uint32_t> keys = sort::make_keys(3000, KeyType::kU32, sort::Dist::kFew, 9);
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint32_t>(i * 7 + 1);
  const sort::Answer want = sort::reference(keys, &values, KeyType::kU32);
  EXPECT_EQ(sort::first_mismatch(want, want.keys.data(), want.values.data(), KeyType::kU32, true, "t"), keys.size());
  std::vector<std::uint32_t> v = want.values;
  std::swap(v[10], v[11]);  // keys 10 and 11 are equal (16 distinct in 3000): the order of equals
  ASSERT_EQ(want.keys[10], want.keys[11]);
  EXPECT_EQ(sort::first_mismatch(want, want.keys.data(), v.data(), KeyType::kU32, true, "t"), 10u);
  std::vector<std::uint32_t> k = want.keys;
  k[2999] ^= 1;
  EXPECT_EQ(sort::first_mismatch(want, k.data(), nullptr, KeyType::kU32, false, "t"), 2999u);
}

TEST(SortCheck, AnUnstableFloatSortMaySwapTheZerosButNotChangeABit) {
  const std::vector<std::uint32_t> keys{bits(1.0f), 0x80000000u, 0u, bits(-1.0f), 0x80000000u};
  const sort::Answer want = sort::reference(keys, nullptr, KeyType::kFloat);
  ASSERT_EQ(want.keys, (std::vector<std::uint32_t>{bits(-1.0f), 0x80000000u, 0u, 0x80000000u, bits(1.0f)}));  // stable
  std::vector<std::uint32_t> swapped{bits(-1.0f), 0u, 0x80000000u, 0x80000000u, bits(1.0f)};
  EXPECT_EQ(sort::first_mismatch(want, swapped.data(), nullptr, KeyType::kFloat, false, "t"), 5u);  // keys only: fine
  EXPECT_LT(sort::first_mismatch(want, swapped.data(), nullptr, KeyType::kFloat, true, "t"), 5u);   // stable: not
  std::vector<std::uint32_t> changed{bits(-1.0f), 0u, 0u, 0x80000000u, bits(1.0f)};  // a -0.0 became +0.0
  EXPECT_LT(sort::first_mismatch(want, changed.data(), nullptr, KeyType::kFloat, false, "t"), 5u);
}

TEST(SortVariants, TableAndStability) {
  const auto& all = sort::all_variants();
  ASSERT_EQ(all.size(), 5u);
  EXPECT_EQ(sort::variant_name(all.front()), "bitonic");
  EXPECT_FALSE(sort::is_stable(sort::Variant::kBitonic));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kMerge));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kRadix4));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kRadix8));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kOnesweep));
  for (sort::Variant v : all) {
    sort::Variant parsed{};
    EXPECT_TRUE(sort::parse_variant(sort::variant_name(v), &parsed));
    EXPECT_EQ(parsed, v);
  }
}

}  // namespace
