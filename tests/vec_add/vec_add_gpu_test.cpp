// Every vec_add variant against the CPU reference, for float and int, at sizes that break
// sloppy kernels, with poisoned outputs and seeded random inputs.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/random.hpp"
#include "gpu_test.hpp"
#include "reference.hpp"
#include "vec_add.hpp"

namespace {

using vec_add::Variant;

template <typename T>
std::vector<T> input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_same_v<T, float>) return cudalab::testing::heavy_tailed(n, cudalab::testing::seed(seed));
  else return cudalab::random_vector<T>(n, cudalab::testing::seed(seed), T(-1000000), T(1000000));
}

template <typename T>
void check_variant(Variant v, std::size_t n, int block) {
  const auto a = input<T>(n, 1000 + n), b = input<T>(n, 2000 + n);
  std::vector<T> expected(n);
  vec_add::reference(a.data(), b.data(), expected.data(), n);
  cudalab::DeviceBuffer<T> da(a), db(b), dc(n);
  dc.fill_bytes(0xAB);  // poison
  vec_add::launch(v, da.data(), db.data(), dc.data(), n, block);
  CUDA_CHECK(cudaDeviceSynchronize());
  // a + b is one correctly rounded IEEE operation on both sides: exact comparison.
  const auto r = cudalab::check_exact(expected, dc.download());
  EXPECT_TRUE(r.ok()) << vec_add::variant_name(v) << " n=" << n << " block=" << block << ": " << r.summary();
}

class VecAddAllSizes : public ::testing::TestWithParam<std::tuple<Variant, std::size_t>> {};

TEST_P(VecAddAllSizes, FloatMatchesReference) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  check_variant<float>(v, n, 256);
}

TEST_P(VecAddAllSizes, IntMatchesReference) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  check_variant<int>(v, n, 256);
}

TEST_P(VecAddAllSizes, OtherBlockSizes) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  for (int block : {32, 96, 1024}) check_variant<float>(v, n, block);
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<Variant, std::size_t>>& info) {
  return vec_add::variant_name(std::get<0>(info.param)) + "_n" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(
    Variants, VecAddAllSizes,
    ::testing::Combine(::testing::ValuesIn(vec_add::all_variants()),
                       ::testing::Values(std::size_t{1}, std::size_t{3}, std::size_t{31}, std::size_t{32},
                                         std::size_t{33}, std::size_t{1000}, std::size_t{1023},
                                         std::size_t{1025}, (std::size_t{1} << 20) + 3)),
    param_name);

TEST(VecAddGpu, VectorizedFallsBackForMisalignedPointers) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t n = 1001;
  const auto a = input<float>(n + 1, 7), b = input<float>(n + 1, 8);
  std::vector<float> expected(n);
  vec_add::reference(a.data() + 1, b.data() + 1, expected.data(), n);
  cudalab::DeviceBuffer<float> da(a), db(b), dc(n + 1);
  dc.fill_bytes(0xAB);
  // Offsetting by one float breaks 16-byte alignment.
  vec_add::launch(Variant::kVectorized, da.data() + 1, db.data() + 1, dc.data() + 1, n, 256);
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto out = dc.download();
  const auto r = cudalab::check_exact(expected, std::vector<float>(out.begin() + 1, out.end()));
  EXPECT_TRUE(r.ok()) << r.summary();
}

TEST(VecAddGpu, ZeroElementsLaunchesNothing) {
  CUDALAB_REQUIRE_GPU();
  for (Variant v : vec_add::all_variants()) {
    EXPECT_NO_THROW(vec_add::launch<float>(v, nullptr, nullptr, nullptr, 0, 256));
  }
}

}  // namespace
