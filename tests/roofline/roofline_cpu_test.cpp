// roofline on the CPU: the dial's function and intensity, the model (roof, ridge, bend), ulps,
// BF16 rounding, the RMSNorm reference and its traffic, the integer and multiply-add references.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference.hpp"

namespace {

TEST(Dial, FunctionAndIntensity) {
  EXPECT_FLOAT_EQ(roofline::dial_reference(1.0f, 1), std::fma(1.0f, 0.999f, 0.001f));
  // k = 2: two chains, x and x + 1, one step each, summed.
  EXPECT_FLOAT_EQ(roofline::dial_reference(1.0f, 2), std::fma(1.0f, 0.999f, 0.001f) + std::fma(2.0f, 0.999f, 0.001f));
  EXPECT_NE(roofline::dial_reference(0.5f, 64), roofline::dial_reference(0.5f, 128));
  EXPECT_DOUBLE_EQ(roofline::dial_intensity<float>(1), 0.25);   // 2 FLOP / 8 bytes
  EXPECT_DOUBLE_EQ(roofline::dial_intensity<float>(16), 4.0);
  EXPECT_DOUBLE_EQ(roofline::dial_intensity<double>(16), 2.0);  // 16 bytes per element
}

TEST(Model, RoofRidgeAndBend) {
  // The notes' A100: 19.5 TFLOP/s over 1555 GB/s is a ridge of 12.5 FLOP/byte.
  EXPECT_NEAR(roofline::ridge(19.5e12, 1555e9), 12.54, 0.01);
  EXPECT_DOUBLE_EQ(roofline::roof(1.0, 10.0, 2.0), 2.0);    // memory-bound
  EXPECT_DOUBLE_EQ(roofline::roof(100.0, 10.0, 2.0), 10.0);  // compute-bound
  EXPECT_DOUBLE_EQ(roofline::bend({1, 2, 4, 8}, {1, 3, 6, 9}, 10, 0.5), 4);
  EXPECT_DOUBLE_EQ(roofline::bend({1, 2}, {1, 2}, 10, 0.5), -1);
}

TEST(Ulp, Distance) {
  EXPECT_EQ(roofline::ulp_distance(1.0f, 1.0f), 0);
  EXPECT_EQ(roofline::ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)), 1);
  EXPECT_EQ(roofline::ulp_distance(-1.0f, std::nextafter(-1.0f, 0.0f)), 1);
  EXPECT_EQ(roofline::ulp_distance(0.0f, -0.0f), 0);
}

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(roofline::float_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(roofline::bf16_to_float(0x3f80), 1.0f);
  EXPECT_EQ(roofline::float_to_bf16(1.0f + 1.0f / 256), 0x3f80);          // a tie: to even
  EXPECT_EQ(roofline::float_to_bf16(1.0f + 3.0f / 256), 0x3f82);          // a tie: to even (up)
  EXPECT_EQ(roofline::float_to_bf16(1.0f + 1.0f / 256 + 1.0f / 4096), 0x3f81);  // above the tie
  EXPECT_TRUE(std::isnan(roofline::bf16_to_float(roofline::float_to_bf16(std::nanf("")))));
}

TEST(RmsNorm, ReferenceAndTraffic) {
  const int cols = 256;
  std::vector<std::uint16_t> x(2 * cols, roofline::float_to_bf16(2.0f)), w(cols, roofline::float_to_bf16(0.5f));
  const auto y = roofline::rmsnorm_reference(x, w, 2, cols, 0.0f);
  for (auto v : y) EXPECT_EQ(roofline::bf16_to_float(v), 0.5f);  // 2 / rms(2) * 0.5
  // The notes' 4096 x 8192: 128 MiB of x and y, 16 KiB of w; the unfused version 1.5x.
  EXPECT_DOUBLE_EQ(roofline::rmsnorm_bytes(4096, 8192), 4.0 * 4096 * 8192 + 2.0 * 8192);
  EXPECT_NEAR(roofline::rmsnorm_unfused_bytes(4096, 8192) / roofline::rmsnorm_bytes(4096, 8192), 1.5, 0.001);
}

TEST(References, DivisionAndMultiplyAdd) {
  EXPECT_EQ(roofline::div_reference(17, 7, 1), 2u + 3u);
  EXPECT_EQ(roofline::div_reference(17, 8, 2), (2u + 1u) + (2u + 2u));
  const float e = std::ldexp(1.0f, -12);
  const float a = 1.0f + e, c = -(1.0f + 2 * e);
  EXPECT_EQ(roofline::mul_add_reference(true, a, a, c), e * e);  // the product's low bits survive once
  EXPECT_EQ(roofline::mul_add_reference(false, a, a, c), 0.0f);  // rounded away first
}

// The execution note's self-test (自测), question 4: arithmetic intensity against the ridge, on the
// H200's FP32 (67 TFLOP/s, 4.8 TB/s): vec_add is memory-bound; the dial crosses the ridge between
// k = 32 and k = 64 FMAs per element.
TEST(NotesSelfTest, Q4IntensityAgainstTheRidge) {
  const double peak = 67e12, bandwidth = 4.8e12;
  const double ridge = roofline::ridge(peak, bandwidth);
  EXPECT_NEAR(ridge, 13.96, 0.01);
  const double vec_add = 1.0 / 12;  // one add per 4 + 4 bytes read and 4 written
  EXPECT_LT(vec_add, ridge);
  EXPECT_DOUBLE_EQ(roofline::roof(vec_add, peak, bandwidth), vec_add * bandwidth);  // 0.4 TFLOP/s at most
  EXPECT_LT(roofline::dial_intensity<float>(32), ridge);
  EXPECT_GT(roofline::dial_intensity<float>(64), ridge);
  EXPECT_DOUBLE_EQ(roofline::roof(roofline::dial_intensity<float>(64), peak, bandwidth), peak);
}

}  // namespace
