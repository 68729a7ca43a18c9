// Every divergence variant against the CPU reference, one test each. Both sides run the same fmaf chain, so
// the comparison is exact (zero tolerance): a single different rounding would show.
#include <gtest/gtest.h>

#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "divergence.hpp"
#include "reference.hpp"
#include "gpu_test.hpp"

namespace {

using divergence::Variant;

// One test per variant: each student task (divergent, uniform) is graded by its own.
class DivergenceVariants : public ::testing::TestWithParam<Variant> {};

TEST_P(DivergenceVariants, MatchesTheReferenceExactly) {
  CUDALAB_REQUIRE_GPU();
  const Variant v = GetParam();
  for (int block : {32, 96, 256}) {
    for (int iters : {1, 7, 300}) {
      const int grid = 5;
      const std::size_t n = static_cast<std::size_t>(grid) * block;
      std::vector<float> data;
      if (divergence::is_data_dependent(v)) data = divergence::make_data(v, n, 42 + block);
      cudalab::DeviceBuffer<float> d_data(data), out(n);
      out.fill_bytes(0xFF);
      divergence::launch(v, d_data.data(), out.data(), grid, block, iters);
      std::vector<float> expected(n);
      for (std::size_t i = 0; i < n; ++i) expected[i] = divergence::reference(v, data, i, block, iters);
      const auto r = cudalab::check_exact(expected, out.download());
      EXPECT_TRUE(r.ok()) << divergence::variant_name(v) << " block=" << block << " iters=" << iters << ": "
                          << r.summary();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, DivergenceVariants, ::testing::ValuesIn(divergence::all_variants()),
                         [](const auto& variant) { return divergence::variant_name(variant.param); });

}  // namespace
