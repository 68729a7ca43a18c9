// Every divergence variant against the CPU reference. Both sides run the same fmaf chain, so
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

TEST(DivergenceGpu, EveryVariantMatchesTheReferenceExactly) {
  CUDALAB_REQUIRE_GPU();
  for (int block : {32, 96, 256}) {
    for (int iters : {1, 7, 300}) {
      const int grid = 5;
      const std::size_t n = static_cast<std::size_t>(grid) * block;
      for (Variant v : divergence::all_variants()) {
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
}

}  // namespace
