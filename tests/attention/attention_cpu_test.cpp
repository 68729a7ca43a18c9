// The attention lab's CPU side: the inputs' formula, the FP64 softmax and attention rows (the
// cases with a closed form), the bound (it admits the roundings of a right kernel and refuses a
// zero output, a missed key and a missed rescale), the rows and heads a check covers, the FLOPs
// of a causal prefill, the variant table.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "attention.hpp"
#include "reference.hpp"

namespace {

using attention::Elem;

TEST(AttentionInputs, BF16ValuesInMinusOneToOneThatDependOnSeedAndIndex) {
  std::set<std::uint16_t> seen;
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const float x = attention::input_value(42, static_cast<std::uint64_t>(i));
    ASSERT_GE(x, -1.0f);
    ASSERT_LE(x, 1.0f);  // BF16 rounding may round 1 - 2^-23 up to 1
    EXPECT_EQ(cudalab::from_bf16_bits(cudalab::to_bf16_bits(x)), x) << "element " << i << " is not a BF16 value";
    seen.insert(attention::input_bits(42, static_cast<std::uint64_t>(i)));
    sum += x;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_GT(seen.size(), 1000u);  // BF16 has about 2,300 values in [-1, 1) that uniform draws reach
  EXPECT_EQ(attention::input_bits(42, 7), attention::input_bits(42, 7));
  EXPECT_NE(attention::input_bits(42, 7), attention::input_bits(43, 7));
  const attention::Seeds s(5);
  EXPECT_NE(s.q, s.k);
  EXPECT_NE(s.k, s.v);
}

TEST(AttentionSoftmax, SumsToOneAndIgnoresAShift) {
  const std::vector<float> x{-3.0f, 0.5f, 2.0f, 2.0f, -8.0f};
  std::vector<float> shifted(x);
  for (auto& v : shifted) v += 100.0f;
  const auto y = attention::softmax_row(x.data(), 5), z = attention::softmax_row(shifted.data(), 5);
  double sum = 0;
  for (int i = 0; i < 5; ++i) {
    sum += y[i];
    EXPECT_NEAR(y[i], z[i], 1e-12);
  }
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(y[2], y[3]);
  EXPECT_NEAR(y[2] / y[1], std::exp(1.5), 1e-12);
  const float one = 7.0f;
  EXPECT_DOUBLE_EQ(attention::softmax_row(&one, 1)[0], 1.0);
}

TEST(AttentionSoftmax, TheToleranceAdmitsRoundingAndNotAMissedRescale) {
  const double f32 = attention::softmax_tolerance(Elem::kF32, 4096), bf16 = attention::softmax_tolerance(Elem::kBf16, 4096);
  EXPECT_LT(f32, 1e-5);
  EXPECT_GT(f32, 4.0 / 16777216.0);
  EXPECT_GT(bf16, 1.0 / 256.0);
  EXPECT_LT(bf16, 1.0 / 128.0);
  // A running max that is not rescaled leaves a factor exp(m_old - m_new) on part of the sum.
  EXPECT_GT(std::fabs(std::exp(-0.01) - 1.0), bf16);
}

TEST(AttentionRow, OneKeyGivesItsValueAndEqualScoresTheMean) {
  const int d = 4;
  const std::vector<float> q{1, 2, 3, 4}, k1{0.5f, 0.5f, 0.5f, 0.5f}, v1{1, -2, 3, -4};
  const auto one = attention::attention_row(q.data(), k1.data(), v1.data(), d, 0);
  for (int c = 0; c < d; ++c) EXPECT_DOUBLE_EQ(one.o[c], v1[c]);
  EXPECT_DOUBLE_EQ(one.weighted_abs_v, 4.0);
  // q = 0: every score is 0, every weight 1/n: O is the mean of V's rows (the keys up to `last`).
  const std::vector<float> zero(d, 0.0f), k(3 * d, 1.0f), v{1, 1, 1, 1, 2, 2, 2, 2, 9, 9, 9, 9};
  const auto mean = attention::attention_row(zero.data(), k.data(), v.data(), d, 1);
  for (int c = 0; c < d; ++c) EXPECT_DOUBLE_EQ(mean.o[c], 1.5);
  const auto all = attention::attention_row(zero.data(), k.data(), v.data(), d, 2);
  for (int c = 0; c < d; ++c) EXPECT_DOUBLE_EQ(all.o[c], 4.0);
}

TEST(AttentionRow, ScoresAreScaledByOneOverSqrtD) {
  // Two keys whose dot products with q differ by sqrt(d) x ln 2: weights 2/3 and 1/3.
  const int d = 16;
  std::vector<float> q(d, 0.0f), k(2 * d, 0.0f), v(2 * d, 0.0f);
  q[0] = 1.0f;
  k[0] = static_cast<float>(4.0 * std::log(2.0));  // key 0: score ln 2 after / sqrt(16)
  for (int c = 0; c < d; ++c) v[c] = 3.0f;        // v0 = 3, v1 = 0
  const auto a = attention::attention_row(q.data(), k.data(), v.data(), d, 1);
  EXPECT_NEAR(a.o[0], 2.0, 1e-6);
}

TEST(AttentionBound, AdmitsBF16RoundingAndRefusesZerosAndAMissedKey) {
  const attention::Shape s{2, 40, 40, 64, true};
  const attention::Seeds seeds(11);
  const attention::Answers want = attention::attention_answers(s, seeds);
  ASSERT_FALSE(want.rows.empty());
  const std::size_t n = static_cast<std::size_t>(s.heads) * s.q_len * s.d;
  // The answers rounded to BF16: what a right kernel may write.
  std::vector<std::uint16_t> right(n, 0), zeros(n, 0);
  for (const auto& r : want.rows) {
    for (int c = 0; c < s.d; ++c) {
      right[(static_cast<std::size_t>(r.head) * s.q_len + r.row) * s.d + c] = cudalab::to_bf16_bits(static_cast<float>(r.a.o[c]));
    }
  }
  testing::internal::CaptureStderr();
  EXPECT_LT(attention::first_mismatch(want, right, s, "right"), 0);
  EXPECT_GE(attention::first_mismatch(want, zeros, s, "zeros"), 0);
  // Row 39 of head 0 without its last key: the answer of keys 0 .. 38.
  const auto q = attention::head_rows(seeds.q, s.q_len, s.d, 0, attention::kQueryScale);
  const auto k = attention::head_rows(seeds.k, s.kv_len, s.d, 0), v = attention::head_rows(seeds.v, s.kv_len, s.d, 0);
  const auto missed = attention::attention_row(q.data() + 39 * s.d, k.data(), v.data(), s.d, 38);
  std::vector<std::uint16_t> one_off(right);
  for (int c = 0; c < s.d; ++c) one_off[39 * s.d + c] = cudalab::to_bf16_bits(static_cast<float>(missed.o[c]));
  EXPECT_GE(attention::first_mismatch(want, one_off, s, "a missed key"), 0);
  testing::internal::GetCapturedStderr();
}

TEST(AttentionChecks, RowsAndHeadsCoverTheEdgesAndAllOfASmallProblem) {
  EXPECT_EQ(attention::checked_rows(5, 1).size(), 5u);
  const auto rows = attention::checked_rows(100000, 1);
  EXPECT_EQ(rows.front(), 0);
  EXPECT_EQ(rows.back(), 99999);
  EXPECT_TRUE(std::set<int>(rows.begin(), rows.end()).count(1));
  EXPECT_TRUE(std::set<int>(rows.begin(), rows.end()).count(99998));
  EXPECT_GE(rows.size(), 20u);
  EXPECT_EQ(attention::checked_rows(100, 1, -1).size(), 100u);  // every row
  EXPECT_EQ(attention::checked_heads(3, 1), (std::vector<int>{0, 1, 2}));
  const auto heads = attention::checked_heads(64, 1);
  EXPECT_EQ(heads.front(), 0);
  EXPECT_EQ(heads.back(), 63);
}

TEST(AttentionCost, ACausalPrefillDoesAboutHalfTheFlops) {
  const attention::Shape full{4, 1024, 1024, 128, false}, causal{4, 1024, 1024, 128, true};
  EXPECT_DOUBLE_EQ(attention::attention_flops(full), 4.0 * 1024 * 1024 * 128 * 4);
  EXPECT_DOUBLE_EQ(attention::attention_flops(causal), 4.0 * (1024.0 * 1025 / 2) * 128 * 4);
  EXPECT_DOUBLE_EQ(attention::attention_bytes(full), 2.0 * 4 * 128 * 4 * 1024);
  const attention::Shape decode{8, 1, 4096, 64, false};
  EXPECT_DOUBLE_EQ(attention::attention_flops(decode), 4.0 * 4096 * 64 * 8);
}

TEST(AttentionVariants, EachHasAKindAndTheNamesParse) {
  int softmax = 0, prefill = 0, decode = 0;
  for (auto v : attention::all_variants()) {
    attention::Variant back{};
    EXPECT_TRUE(attention::parse_variant(attention::variant_name(v), &back));
    EXPECT_EQ(back, v);
    switch (attention::kind_of(v)) {
      case attention::Kind::kSoftmax: ++softmax; break;
      case attention::Kind::kPrefill: ++prefill; break;
      case attention::Kind::kDecode: ++decode; break;
    }
  }
  EXPECT_EQ(softmax, 3);
  EXPECT_EQ(prefill, 4);
  EXPECT_EQ(decode, 2);
  EXPECT_TRUE(attention::supported_dim(64));
  EXPECT_TRUE(attention::supported_dim(128));
  EXPECT_FALSE(attention::supported_dim(96));
}

}  // namespace
