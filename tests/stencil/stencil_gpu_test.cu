// Every stencil variant against the CPU at odd sizes, sizes smaller than a tile or a filter, and
// sizes not a multiple of any tile: conv at radii 1, 2, 3 and 8; heat2d and heat3d over numbers
// of steps around the temporal variant's 4 per launch; inputs drawn from the run's seed, outputs
// poisoned first; a variant of another problem and bad sizes refused.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/variants.hpp"
#include "gpu_test.hpp"
#include "reference.hpp"
#include "stencil.hpp"

namespace {

using stencil::Kind;
using stencil::Variant;

std::vector<Variant> of_kind(Kind k) {
  return cudalab::variants_where(stencil::all_variants(), [k](Variant v) { return stencil::kind_of(v) == k; });
}

std::string label(Variant v, int nx, int ny, int nz, int extra) {
  return stencil::variant_name(v) + " " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) +
         " (" + std::to_string(extra) + ")";
}

class ConvSizes : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(ConvSizes, EveryVariantMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const auto [nx, ny, r] = GetParam();
  const std::uint64_t seed = cudalab::testing::seed(static_cast<std::uint64_t>(nx * 131 + ny * 7 + r));
  const std::vector<float> in = stencil::make_field(static_cast<std::size_t>(nx) * ny, seed);
  const std::vector<float> w = stencil::make_filter(r, seed + 1);
  const stencil::Answer want = stencil::conv_reference(in, nx, ny, w, r);
  stencil::set_filter(w, r);
  cudalab::DeviceBuffer<float> d_in(in), d_out(in.size());
  for (Variant v : of_kind(Kind::kConv)) {
    d_out.fill_bytes(0xFF);
    stencil::conv(v, d_in.data(), d_out.data(), nx, ny, r);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = d_out.download();
    const std::string what = label(v, nx, ny, 1, r);
    EXPECT_EQ(stencil::first_mismatch(want, got.data(), 1, what.c_str()), got.size()) << what;
  }
}

// 1 x 1 and 5 x 3: smaller than the filter (every read clamps); 33 x 9, 97 x 45: one past a tile
// in x, odd in y; 1000 x 333: many tiles, none of their multiples.
INSTANTIATE_TEST_SUITE_P(Shapes, ConvSizes,
                         ::testing::Combine(::testing::Values(1, 5, 33, 97, 1000), ::testing::Values(1, 3, 9, 45, 333),
                                            ::testing::Values(1, 2, 3, 8)));

class Heat2dSizes : public ::testing::TestWithParam<std::tuple<std::tuple<int, int>, int>> {};

TEST_P(Heat2dSizes, EveryVariantMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const auto [shape, steps] = GetParam();
  const auto [nx, ny] = shape;
  const std::vector<float> u0 =
      stencil::make_field(static_cast<std::size_t>(nx) * ny, cudalab::testing::seed(static_cast<std::uint64_t>(nx * 17 + ny)));
  const stencil::Answer want = stencil::heat_reference(u0, nx, ny, 1, steps, false);
  cudalab::DeviceBuffer<float> d_u0(u0), a(u0.size()), b(u0.size());
  for (Variant v : of_kind(Kind::kHeat2d)) {
    a.fill_bytes(0xFF);
    b.fill_bytes(0xFF);
    int launches = 0;
    const float* result = stencil::heat2d(v, d_u0.data(), a.data(), b.data(), nx, ny, steps, &launches);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(u0.size());
    CUDA_CHECK(cudaMemcpy(got.data(), result, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const std::string what = label(v, nx, ny, 1, steps);
    EXPECT_EQ(stencil::first_mismatch(want, got.data(), 1, what.c_str()), got.size()) << what;
    const int per_launch = v == Variant::kHeat2dTemporal ? stencil::kTemporalSteps : 1;
    EXPECT_EQ(launches, (steps + per_launch - 1) / per_launch) << what;
    EXPECT_EQ(d_u0.download(), u0) << what << ": the input was written";
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, Heat2dSizes,
                         ::testing::Combine(::testing::Values(std::make_tuple(1, 1), std::make_tuple(2, 3),
                                                              std::make_tuple(33, 9), std::make_tuple(97, 45),
                                                              std::make_tuple(300, 201)),
                                            ::testing::Values(1, 3, 4, 5, 9)));

class Heat3dSizes : public ::testing::TestWithParam<std::tuple<std::tuple<int, int, int>, int>> {};

TEST_P(Heat3dSizes, EveryVariantMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const auto [shape, steps] = GetParam();
  const auto [nx, ny, nz] = shape;
  const std::vector<float> u0 = stencil::make_field(static_cast<std::size_t>(nx) * ny * nz,
                                                    cudalab::testing::seed(static_cast<std::uint64_t>(nx * 31 + ny * 5 + nz)));
  const stencil::Answer want = stencil::heat_reference(u0, nx, ny, nz, steps, true);
  cudalab::DeviceBuffer<float> d_u0(u0), a(u0.size()), b(u0.size());
  for (Variant v : of_kind(Kind::kHeat3d)) {
    a.fill_bytes(0xFF);
    b.fill_bytes(0xFF);
    const float* result = stencil::heat3d(v, d_u0.data(), a.data(), b.data(), nx, ny, nz, steps);
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(u0.size());
    CUDA_CHECK(cudaMemcpy(got.data(), result, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    const std::string what = label(v, nx, ny, nz, steps);
    EXPECT_EQ(stencil::first_mismatch(want, got.data(), 1, what.c_str()), got.size()) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, Heat3dSizes,
                         ::testing::Combine(::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(5, 3, 2),
                                                              std::make_tuple(33, 9, 7), std::make_tuple(40, 37, 19),
                                                              std::make_tuple(64, 8, 3)),
                                            ::testing::Values(1, 2, 5)));

TEST(StencilGpu, AVariantOfAnotherProblemAndBadSizesAreRefused) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<float> buf(64), a(64), b(64);
  EXPECT_THROW(stencil::conv(Variant::kHeat2dNaive, buf.data(), a.data(), 8, 8, 1), std::invalid_argument);
  EXPECT_THROW(stencil::heat2d(Variant::kConvNaive, buf.data(), a.data(), b.data(), 8, 8, 1), std::invalid_argument);
  EXPECT_THROW(stencil::heat3d(Variant::kHeat2dNaive, buf.data(), a.data(), b.data(), 4, 4, 4, 1), std::invalid_argument);
  EXPECT_THROW(stencil::conv(Variant::kConvNaive, buf.data(), a.data(), 8, 8, 9), std::invalid_argument);
  EXPECT_THROW(stencil::heat2d(Variant::kHeat2dNaive, buf.data(), a.data(), b.data(), 8, 8, 0), std::invalid_argument);
  EXPECT_THROW(stencil::heat2d(Variant::kHeat2dNaive, buf.data(), a.data(), b.data(), 0, 8, 1), std::invalid_argument);
  EXPECT_THROW(stencil::heat3d(Variant::kHeat3dNaive, buf.data(), a.data(), b.data(), 4, 4, 0, 1), std::invalid_argument);
}

}  // namespace
