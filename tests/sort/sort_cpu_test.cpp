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
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(sort::variant_name(all.front()), "bitonic");
  EXPECT_FALSE(sort::is_stable(sort::Variant::kBitonic));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kMerge));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kRadix1));
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

namespace {

// The fresh inputs of every timed launch (sort::Problem): the answer to rotated uint32 keys and
// values, and to float keys times 2^k, derived from the base's answer, is the CPU's sort of those
// keys themselves: for every distribution (ties, the equal and sorted ones), pairs too, and
// rotations that wrap none, some or all of the keys.
TEST(SortFreshInputs, TheAnswerToRotatedKeysIsTheBaseAnswerRotated) {
  for (sort::Dist d : {sort::Dist::kUniform, sort::Dist::kFew, sort::Dist::kEqual, sort::Dist::kSorted, sort::Dist::kReversed}) {
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{1023}, std::size_t{4099}}) {
      const std::vector<std::uint32_t> keys = sort::make_keys(n, KeyType::kU32, d, 11 + n);
      const std::vector<std::uint32_t> values = cudalab::random_vector<std::uint32_t>(n, 5 + n, 0u, 0xFFFFFFFFu);
      const sort::Answer base = sort::reference(keys, &values, KeyType::kU32);
      std::vector<std::uint32_t> rotations{0u, 1u, 0x80000001u, 0xFFFFFFFFu, 0u - keys[0], 0u - keys[n / 2]};
      for (int rep = 0; rep < 3; ++rep) rotations.push_back(static_cast<std::uint32_t>(cudalab::fresh_rotation(rep, 1ull << 32)));
      for (std::uint32_t c : rotations) {
        std::vector<std::uint32_t> k2 = keys, v2 = values;
        for (auto& x : k2) x += c;
        for (auto& x : v2) x += c;
        const sort::Answer want = sort::reference(k2, &v2, KeyType::kU32);
        const sort::Answer got = sort::rotated(base, c);
        EXPECT_EQ(got.keys, want.keys) << sort::dist_name(d) << " n " << n << " c " << c;
        EXPECT_EQ(got.values, want.values) << sort::dist_name(d) << " n " << n << " c " << c;
      }
    }
  }
  const sort::Answer keys_only = sort::reference({5u, 0xFFFFFFFEu, 1u}, nullptr, KeyType::kU32);
  const sort::Answer r = sort::rotated(keys_only, 3u);
  EXPECT_EQ(r.keys, (std::vector<std::uint32_t>{1u, 4u, 8u}));
  EXPECT_TRUE(r.values.empty());
}

TEST(SortFreshInputs, TheAnswerToShiftedFloatKeysIsTheBaseAnswerShifted) {
  for (sort::Dist d : {sort::Dist::kUniform, sort::Dist::kFew, sort::Dist::kReversed}) {
    const std::size_t n = 5003;
    const std::vector<std::uint32_t> keys = sort::make_keys(n, KeyType::kFloat, d, 23);
    const sort::Answer base = sort::reference(keys, nullptr, KeyType::kFloat);
    for (int rep = 0; rep < 40; ++rep) {
      const int k = cudalab::fresh_exponent_shift(rep);
      std::vector<std::uint32_t> shifted = keys;
      for (auto& x : shifted) x = cudalab::shift_exponent(x, k);
      const sort::Answer want = sort::reference(shifted, nullptr, KeyType::kFloat);
      const sort::Answer got = sort::exponent_shifted(base, k);
      EXPECT_EQ(got.keys, want.keys) << sort::dist_name(d) << " k " << k;
      EXPECT_NE(shifted, keys) << "rep " << rep << " must change the keys";
    }
  }
}

TEST(FreshExponentShift, ShiftsNormalFloatsExactlyAndKeepsTheSpecials) {
  std::vector<int> seen;
  for (int rep = 0; rep < 80; ++rep) {
    const int k = cudalab::fresh_exponent_shift(rep);
    EXPECT_NE(k, 0) << rep;
    EXPECT_GE(k, -20);
    EXPECT_LE(k, 20);
    EXPECT_NE(k, cudalab::fresh_exponent_shift(rep + 1)) << rep;
    if (rep < 40) seen.push_back(k);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());  // 40 shifts before one repeats
  EXPECT_EQ(cudalab::fresh_exponent_shift(-1), 0);
  for (float f : {1.0f, -3.5f, 1e-30f, -7e20f}) {
    for (int k : {-20, -1, 1, 20}) {
      float g;
      const std::uint32_t b = cudalab::shift_exponent(bits(f), k);
      std::memcpy(&g, &b, sizeof g);
      EXPECT_EQ(g, std::ldexp(f, k)) << f << " k " << k;
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (std::uint32_t special : {bits(0.0f), bits(-0.0f), bits(inf), bits(-inf), 0x7FC00123u, 0xFFC00001u, 0x00000005u}) {
    EXPECT_EQ(cudalab::shift_exponent(special, 7), special);
  }
  EXPECT_EQ(cudalab::shift_exponent(bits(3e38f), 1), bits(3e38f));  // would leave the normals: kept
}

}  // namespace
