// The stencil lab's CPU side: the references (an identity filter, the clamped border, a heat
// step by hand, heat conserving the field's sum), the check (one element past its bound, a NaN,
// the negated input set, a checked subset), the rows a large convolution checks, the halo
// arithmetic, and the variant table.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "reference.hpp"
#include "stencil.hpp"

namespace {

std::vector<float> one_tap(int r, int dx, int dy) {  // a filter that picks in[y + dy][x + dx]
  std::vector<float> w(static_cast<std::size_t>((2 * r + 1) * (2 * r + 1)), 0.0f);
  w[static_cast<std::size_t>((dy + r) * (2 * r + 1) + dx + r)] = 1.0f;
  return w;
}

TEST(StencilReference, ConvOfOneTapIsTheShiftedImageClampedAtTheBorder) {
  const int nx = 7, ny = 5;
  const std::vector<float> in = stencil::make_field(nx * ny, 3);
  const auto same = stencil::conv_reference(in, nx, ny, one_tap(2, 0, 0), 2);
  for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(same.value[i], in[i]);
  const auto left = stencil::conv_reference(in, nx, ny, one_tap(2, -2, 1), 2);
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      const int sx = x - 2 < 0 ? 0 : x - 2, sy = y + 1 >= ny ? ny - 1 : y + 1;
      EXPECT_EQ(left.value[static_cast<std::size_t>(y * nx + x)], in[static_cast<std::size_t>(sy * nx + sx)]);
    }
  }
  // an image smaller than the filter is valid: every read clamps
  const auto tiny = stencil::conv_reference(std::vector<float>{2.0f}, 1, 1, stencil::make_filter(8, 5), 8);
  double total = 0;
  for (float w : stencil::make_filter(8, 5)) total += w;
  EXPECT_NEAR(tiny.value[0], 2.0 * total, 1e-6);
}

TEST(StencilReference, FiltersHaveAbsoluteWeightsSummingToOne) {
  for (int r = 1; r <= stencil::kMaxRadius; ++r) {
    const std::vector<float> w = stencil::make_filter(r, static_cast<std::uint64_t>(r));
    ASSERT_EQ(w.size(), static_cast<std::size_t>((2 * r + 1) * (2 * r + 1)));
    double total = 0;
    for (float v : w) total += std::fabs(v);
    EXPECT_NEAR(total, 1.0, 1e-5) << r;
  }
}

TEST(StencilReference, AHeatStepByHandAndTheSumConserved) {
  // 3 x 1: u = (1, 0, 0); cell 0's west is itself (clamped), east 0; n and s are itself
  const auto one = stencil::heat_reference(std::vector<float>{1, 0, 0}, 3, 1, 1, 1, false);
  const double a = stencil::kAlpha2d;
  EXPECT_DOUBLE_EQ(one.value[0], 1 + a * (1 + 1 + 1 + 0 - 4));
  EXPECT_DOUBLE_EQ(one.value[1], 0 + a * (0 + 0 + 1 + 0 - 0));
  EXPECT_DOUBLE_EQ(one.value[2], 0.0);
  for (bool three_d : {false, true}) {
    const int nx = 9, ny = 7, nz = three_d ? 5 : 1;
    const std::vector<float> u0 = stencil::make_field(static_cast<std::size_t>(nx * ny * nz), 11);
    const auto after = stencil::heat_reference(u0, nx, ny, nz, 20, three_d);
    double before = 0, now = 0, spread0 = 0, spread = 0;
    for (std::size_t i = 0; i < u0.size(); ++i) {
      before += u0[i];
      now += after.value[i];
      spread0 = std::fmax(spread0, std::fabs(u0[i]));
      spread = std::fmax(spread, std::fabs(after.value[i]));
    }
    EXPECT_NEAR(now, before, 1e-9) << "clamped borders let no heat out";
    EXPECT_LT(spread, spread0) << "diffusion flattens the field";
    EXPECT_DOUBLE_EQ(after.tolerance[0], 16.0 * 20 * 0x1p-24 * spread0 + 1e-30);
  }
}

TEST(StencilReference, TheCheckCatchesOneElementANanAndTheWrongSign) {
  const int nx = 40, ny = 30;
  const std::vector<float> in = stencil::make_field(nx * ny, 7);
  const auto want = stencil::conv_reference(in, nx, ny, stencil::make_filter(3, 8), 3);
  std::vector<float> got(want.value.begin(), want.value.end());
  EXPECT_EQ(stencil::first_mismatch(want, got.data(), 1, "test"), got.size());
  std::vector<float> negated(got.size());
  for (std::size_t i = 0; i < got.size(); ++i) negated[i] = -got[i];
  EXPECT_EQ(stencil::first_mismatch(want, negated.data(), -1, "test"), got.size());
  EXPECT_LT(stencil::first_mismatch(want, negated.data(), 1, "test"), got.size());
  std::vector<float> scaled(got.size());  // fresh inputs: the field times 2^-3, the answer too
  for (std::size_t i = 0; i < got.size(); ++i) scaled[i] = got[i] * 0.125f;
  EXPECT_EQ(stencil::first_mismatch(want, scaled.data(), 0.125, "test"), got.size());
  EXPECT_LT(stencil::first_mismatch(want, scaled.data(), 1, "test"), got.size());
  EXPECT_LT(stencil::first_mismatch(want, got.data(), -0.125, "test"), got.size());
  std::vector<float> off = got;
  off[777] += 1e-3f;
  EXPECT_EQ(stencil::first_mismatch(want, off.data(), 1, "test"), 777u);
  std::vector<float> nan = got;
  nan[5] = std::nanf("");
  EXPECT_EQ(stencil::first_mismatch(want, nan.data(), 1, "test"), 5u);
}

TEST(StencilReference, ALargeConvolutionChecksItsBordersAndDrawnRows) {
  EXPECT_EQ(stencil::conv_check_rows(100, 50, 3, 1).size(), 50u);  // small: every row
  const std::vector<int> rows = stencil::conv_check_rows(16384, 16384, 8, 1);
  ASSERT_GE(rows.size(), 18u);
  ASSERT_LE(rows.size(), 18u + 16);
  for (int y = 0; y <= 8; ++y) {
    EXPECT_EQ(rows[static_cast<std::size_t>(y)], y);
    EXPECT_EQ(rows[rows.size() - 1 - static_cast<std::size_t>(y)], 16383 - y);
  }
  for (std::size_t i = 1; i < rows.size(); ++i) EXPECT_LT(rows[i - 1], rows[i]);
  // a subset answer compares only its elements
  const int nx = 30, ny = 40;
  const std::vector<float> in = stencil::make_field(nx * ny, 9);
  const auto some = stencil::conv_reference(in, nx, ny, stencil::make_filter(1, 2), 1, {0, 17, 39});
  ASSERT_EQ(some.value.size(), 90u);
  const auto all = stencil::conv_reference(in, nx, ny, stencil::make_filter(1, 2), 1);
  std::vector<float> got(all.value.begin(), all.value.end());
  got[5 * nx] = 99.0f;  // row 5: not checked
  EXPECT_EQ(stencil::first_mismatch(some, got.data(), 1, "test"), some.value.size());
  got[17 * nx + 3] = 99.0f;
  EXPECT_EQ(stencil::first_mismatch(some, got.data(), 1, "test"), static_cast<std::size_t>(17 * nx + 3));
}

TEST(StencilHalo, LoadsPerOutput) {
  EXPECT_DOUBLE_EQ(stencil::loads_per_output(32, 8, 1), 34.0 * 10 / 256);
  EXPECT_DOUBLE_EQ(stencil::loads_per_output(32, 32, 8), 48.0 * 48 / 1024);
  EXPECT_GT(stencil::loads_per_output(32, 8, 8), stencil::loads_per_output(32, 32, 8));  // coarsening pays
}

TEST(StencilVariants, TableKindsAndBadFilters) {
  const auto& all = stencil::all_variants();
  ASSERT_EQ(all.size(), 13u);
  EXPECT_EQ(stencil::variant_name(all.front()), "conv_naive");
  int conv = 0, heat2d = 0, heat3d = 0;
  for (stencil::Variant v : all) {
    stencil::Variant parsed{};
    EXPECT_TRUE(stencil::parse_variant(stencil::variant_name(v), &parsed));
    EXPECT_EQ(parsed, v);
    const stencil::Kind k = stencil::kind_of(v);
    EXPECT_EQ(stencil::variant_name(v).rfind(stencil::kind_name(k), 0), 0u) << "a variant's name starts with its problem";
    conv += k == stencil::Kind::kConv;
    heat2d += k == stencil::Kind::kHeat2d;
    heat3d += k == stencil::Kind::kHeat3d;
  }
  EXPECT_EQ(conv, 5);
  EXPECT_EQ(heat2d, 5);
  EXPECT_EQ(heat3d, 3);
  EXPECT_THROW(stencil::set_filter(std::vector<float>(1, 1.0f), 0), std::invalid_argument);
  EXPECT_THROW(stencil::set_filter(std::vector<float>(400, 1.0f), 9), std::invalid_argument);
  EXPECT_THROW(stencil::set_filter(std::vector<float>(8, 1.0f), 1), std::invalid_argument);
}

}  // namespace
