// Every stencil variant against the CPU at odd sizes, sizes smaller than a tile or a filter, and
// sizes not a multiple of any tile: conv at radii 1, 2, 3 and 8 on heavy-tailed images; heat2d
// and heat3d over numbers of steps around the temporal variant's 4 per launch; inputs drawn from
// the run's seed, outputs poisoned first; a variant of another problem and bad sizes refused.
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

std::string variant_param(const ::testing::TestParamInfo<Variant>& p) { return stencil::variant_name(p.param); }

std::string label(Variant v, int nx, int ny, int nz, int extra) {
  return stencil::variant_name(v) + " " + std::to_string(nx) + "x" + std::to_string(ny) + "x" + std::to_string(nz) +
         " (" + std::to_string(extra) + ")";
}

// One test per variant (its name ends in the variant's: grading/points.json grades the student
// regions by them), each over every shape of its problem; the inputs and the CPU's answer of a
// shape are made once per test process and shared by the variants.
struct ConvCase {
  std::vector<float> in, w;
  stencil::Answer want;
  cudalab::DeviceBuffer<float> d_in, d_out;
  explicit ConvCase(std::tuple<int, int, int> key) {
    const auto [nx, ny, r] = key;
    const std::uint64_t seed = cudalab::testing::seed(static_cast<std::uint64_t>(nx * 131 + ny * 7 + r));
    in = cudalab::testing::heavy_tailed(static_cast<std::size_t>(nx) * ny, seed);  // no fitted value passes
    w = stencil::make_filter(r, seed + 1);
    want = stencil::conv_reference(in, nx, ny, w, r);
    d_in = cudalab::DeviceBuffer<float>(in);
    d_out = cudalab::DeviceBuffer<float>(in.size());
  }
};

struct HeatCase {
  std::vector<float> u0;
  stencil::Answer want;
  explicit HeatCase(std::tuple<int, int, int, int, bool> key) {
    const auto [nx, ny, nz, steps, three_d] = key;
    const std::size_t cells = static_cast<std::size_t>(nx) * ny * nz;
    u0 = stencil::make_field(cells, cudalab::testing::seed(static_cast<std::uint64_t>(nx * 31 + ny * 5 + nz + 1000 * steps + (three_d ? 7 : 0))));
    want = stencil::heat_reference(u0, nx, ny, nz, steps, three_d);
  }
};

class ConvVariants : public ::testing::TestWithParam<Variant> {};

// 1 x 1 and 5 x 3: smaller than the filter (every read clamps); 33 x 9, 97 x 45: one past a tile
// in x, odd in y; 385: one past conv_register_tile's 384-wide tile (a row that is no multiple of 4:
// its stores one by one); 1000 x 333: many tiles, none of their multiples (a multiple of 4: the
// register tile's 16-byte loads and stores, its pieces past the row's ends read cell by cell, and
// its last thread's 4 outputs one by one); radii 1, 2, 3, 5 and 8 (the register tile's windows
// start 3, 2, 1, 3 and 0 floats into their first 16-byte load).
TEST_P(ConvVariants, MatchTheCpuAtEveryShape) {
  CUDALAB_REQUIRE_GPU();
  const Variant v = GetParam();
  for (int r : {1, 2, 3, 5, 8}) {
    for (int nx : {1, 5, 33, 97, 385, 1000}) {
      for (int ny : {1, 3, 9, 45, 333}) {
        ConvCase& c = cudalab::testing::cached<ConvCase>(std::make_tuple(nx, ny, r));
        stencil::set_filter(c.w, r);
        c.d_out.fill_bytes(0xFF);
        stencil::conv(v, c.d_in.data(), c.d_out.data(), nx, ny, r);
        CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> got = c.d_out.download();
        const std::string what = label(v, nx, ny, 1, r);
        ASSERT_EQ(stencil::first_mismatch(c.want, got.data(), 1, what.c_str()), got.size()) << what;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, ConvVariants, ::testing::ValuesIn(of_kind(Kind::kConv)), variant_param);

class Heat2dVariants : public ::testing::TestWithParam<Variant> {};

// steps around the temporal variants' 4 per launch, on shapes from one cell to many tiles (300 x
// 201: two strips of heat2d_temporal_regs' blocks across, the last one ragged, and four down;
// 300 and 256 wide take heat2d_columns' four-column kernel, 256 x 48 in whole blocks and bands)
TEST_P(Heat2dVariants, MatchTheCpuAtEveryShape) {
  CUDALAB_REQUIRE_GPU();
  const Variant v = GetParam();
  for (const auto& [nx, ny] : {std::make_tuple(1, 1), std::make_tuple(2, 3), std::make_tuple(33, 9),
                               std::make_tuple(97, 45), std::make_tuple(300, 201), std::make_tuple(256, 48)}) {
    for (int steps : {1, 3, 4, 5, 6, 9}) {  // launches of 1 .. 4 steps for the temporal variants
      const HeatCase& c = cudalab::testing::cached<HeatCase>(std::make_tuple(nx, ny, 1, steps, false));
      cudalab::DeviceBuffer<float> d_u0(c.u0), a(c.u0.size()), b(c.u0.size());
      a.fill_bytes(0xFF);
      b.fill_bytes(0xFF);
      int launches = 0;
      const float* result = stencil::heat2d(v, d_u0.data(), a.data(), b.data(), nx, ny, steps, &launches);
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> got(c.u0.size());
      CUDA_CHECK(cudaMemcpy(got.data(), result, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
      const std::string what = label(v, nx, ny, 1, steps);
      ASSERT_EQ(stencil::first_mismatch(c.want, got.data(), 1, what.c_str()), got.size()) << what;
      const bool temporal = v == Variant::kHeat2dTemporal || v == Variant::kHeat2dTemporalRegs;
      const int per_launch = temporal ? stencil::kTemporalSteps : 1;
      EXPECT_EQ(launches, (steps + per_launch - 1) / per_launch) << what;
      EXPECT_EQ(d_u0.download(), c.u0) << what << ": the input was written";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, Heat2dVariants, ::testing::ValuesIn(of_kind(Kind::kHeat2d)), variant_param);

class Heat3dVariants : public ::testing::TestWithParam<Variant> {};

// one cell, a grid smaller than a block, odd shapes past one block, and one 64 wide and 8 tall
// (whole blocks), and 70 planes deep (heat3d_columns' chunks of 8: eight whole and a ragged
// ninth), each over 1, 2 and 5 steps
TEST_P(Heat3dVariants, MatchTheCpuAtEveryShape) {
  CUDALAB_REQUIRE_GPU();
  const Variant v = GetParam();
  for (const auto& [nx, ny, nz] : {std::make_tuple(1, 1, 1), std::make_tuple(5, 3, 2), std::make_tuple(33, 9, 7),
                                   std::make_tuple(40, 37, 19), std::make_tuple(64, 8, 3), std::make_tuple(35, 9, 70)}) {
    for (int steps : {1, 2, 5}) {
      const HeatCase& c = cudalab::testing::cached<HeatCase>(std::make_tuple(nx, ny, nz, steps, true));
      cudalab::DeviceBuffer<float> d_u0(c.u0), a(c.u0.size()), b(c.u0.size());
      a.fill_bytes(0xFF);
      b.fill_bytes(0xFF);
      const float* result = stencil::heat3d(v, d_u0.data(), a.data(), b.data(), nx, ny, nz, steps);
      CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> got(c.u0.size());
      CUDA_CHECK(cudaMemcpy(got.data(), result, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
      const std::string what = label(v, nx, ny, nz, steps);
      ASSERT_EQ(stencil::first_mismatch(c.want, got.data(), 1, what.c_str()), got.size()) << what;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, Heat3dVariants, ::testing::ValuesIn(of_kind(Kind::kHeat3d)), variant_param);

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
