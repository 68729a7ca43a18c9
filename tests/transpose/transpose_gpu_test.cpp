// transpose on the GPU: every variant against the CPU at square, non-square and odd shapes with
// the output poisoned; the bank microbenchmark's chains stay put and its cycles follow the
// predicted conflict degree.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "common/device_buffer.hpp"
#include "gpu_test.hpp"
#include "reference.hpp"
#include "transpose.hpp"

namespace {

// One test per variant, every shape in each: each student task (transpose.naive, transpose.tile)
// is graded by its own variants' tests.
class TransposeVariants : public ::testing::TestWithParam<transpose::Variant> {};

TEST_P(TransposeVariants, EveryShapeMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const transpose::Variant v = GetParam();
  for (const auto& [rows, cols] : {std::make_pair(1, 1), std::make_pair(31, 33), std::make_pair(1000, 3),
                                   std::make_pair(4097, 5), std::make_pair(5, 4097), std::make_pair(256, 256),
                                   std::make_pair(1024, 768), std::make_pair(33, 32)}) {
    const auto in = cudalab::testing::heavy_tailed(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols),
                                                  cudalab::testing::seed(static_cast<std::uint64_t>(rows) * 40009 + cols));
    const auto expected = transpose::reference(in, static_cast<std::size_t>(rows), static_cast<std::size_t>(cols));
    cudalab::DeviceBuffer<float> d_in(in), d_out(in.size());
    d_out.fill_bytes(0xFF);  // NaN: an element never written fails
    transpose::launch(v, d_in.data(), d_out.data(), rows, cols);
    EXPECT_EQ(d_out.download(), expected) << transpose::variant_name(v) << " at " << rows << " x " << cols;
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, TransposeVariants, ::testing::ValuesIn(transpose::all_variants()),
                         [](const auto& variant) { return transpose::variant_name(variant.param); });

TEST(TransposeBanks, CyclesFollowThePredictedDegree) {
  CUDALAB_REQUIRE_GPU();
  // Not a speed target: the order of one warp's bank passes, which the hardware fixes, counted
  // in clock cycles inside one warp, the fastest of many chunks (so another process's kernel
  // time-sliced onto the SM under ctest -j cannot reorder them).
  std::vector<double> by_degree;
  for (int s : {1, 2, 4, 8, 16, 32}) {
    const double c = transpose::bank_cycles({transpose::BankPattern::kStride, s}, 2048);
    ASSERT_GT(c, 0) << "stride " << s << ": the chain went astray";
    by_degree.push_back(c);
  }
  for (std::size_t k = 1; k < by_degree.size(); ++k) EXPECT_GT(by_degree[k], by_degree[k - 1]) << k;
  const double base = by_degree.front();
  for (const transpose::BankCase c : {transpose::BankCase{transpose::BankPattern::kStride, 33},
                                      transpose::BankCase{transpose::BankPattern::kBytes, 1},
                                      transpose::BankCase{transpose::BankPattern::kBroadcast, 0}}) {
    const double cycles = transpose::bank_cycles(c, 2048);
    ASSERT_GT(cycles, 0) << transpose::bank_case_name(c);
    EXPECT_LT(cycles, base * 1.2) << transpose::bank_case_name(c) << ": conflict-free, like stride 1";
    EXPECT_LT(cycles, by_degree[1]) << transpose::bank_case_name(c) << ": cheaper than a 2-way conflict";
  }
}

}  // namespace
