// Every sort variant and CUB against the CPU's stable sort: uint32 and float keys, and pairs, at
// sizes around the tiles (the radix sort's and the merge sort's 4096 keys, the bitonic network's
// 2048, the merge sort's first version's 1024, and powers of two), for every distribution (uniform, sorted, reversed, all equal,
// 16 distinct), on keys drawn from the run's seed, into poisoned outputs; a non-stable variant
// refused for pairs.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "gpu_test.hpp"
#include "problem.hpp"
#include "reference.hpp"
#include "sort.hpp"

namespace {

using sort::Dist;
using sort::KeyType;
using sort::Variant;

void check(Variant v, KeyType t, bool pairs, Dist d, std::size_t n) {
  const std::uint64_t seed = cudalab::testing::seed(n * 7 + static_cast<std::uint64_t>(d) * 3 + (pairs ? 1 : 0));
  const std::vector<std::uint32_t> keys = sort::make_keys(n, t, d, seed);
  const std::vector<std::uint32_t> values =
      pairs ? cudalab::random_vector<std::uint32_t>(n, seed + 1, 0u, 0xFFFFFFFFu) : std::vector<std::uint32_t>{};
  const sort::Answer want = sort::reference(keys, pairs ? &values : nullptr, t);
  cudalab::DeviceBuffer<std::uint32_t> d_keys(keys), d_values(values);
  sort::Workspace ws(n, pairs);
  ws.poison();
  const sort::Sorted s = sort::sort(v, t, d_keys.data(), pairs ? d_values.data() : nullptr, n, ws);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> got(n), got_values(pairs ? n : 0);
  if (n > 0) {
    CUDA_CHECK(cudaMemcpy(got.data(), s.keys, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    if (pairs) CUDA_CHECK(cudaMemcpy(got_values.data(), s.values, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  }
  const std::string what = sort::variant_name(v) + " " + sort::key_type_name(t) + (pairs ? " pairs " : " keys ") +
                           sort::dist_name(d) + " n=" + std::to_string(n);
  EXPECT_EQ(sort::first_mismatch(want, got.data(), pairs ? got_values.data() : nullptr, t, pairs || sort::is_stable(v),
                                 what.c_str()),
            n)
      << what;
  EXPECT_EQ(d_keys.download(), keys) << what << ": the input was written";
}

class SortSizes : public ::testing::TestWithParam<std::tuple<Variant, std::size_t>> {};

TEST_P(SortSizes, U32AndFloatKeys) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  check(v, KeyType::kU32, false, Dist::kUniform, n);
  check(v, KeyType::kFloat, false, Dist::kUniform, n);
}

TEST_P(SortSizes, PairsAreStable) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  if (!sort::is_stable(v)) GTEST_SKIP() << sort::variant_name(v) << " sorts keys only";
  check(v, KeyType::kU32, true, Dist::kFew, n);
  check(v, KeyType::kU32, true, Dist::kUniform, n);
}

TEST_P(SortSizes, EveryDistribution) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  for (Dist d : {Dist::kSorted, Dist::kReversed, Dist::kEqual, Dist::kFew}) {
    check(v, KeyType::kU32, false, d, n);
    check(v, KeyType::kFloat, false, d, n);
  }
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<Variant, std::size_t>>& info) {
  return sort::variant_name(std::get<0>(info.param)) + "_n" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(
    Variants, SortSizes,
    ::testing::Combine(::testing::ValuesIn(sort::all_variants()),
                       ::testing::Values(std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{255},
                                         std::size_t{1023}, std::size_t{1025}, std::size_t{2047}, std::size_t{2048}, std::size_t{2049}, std::size_t{4095},
                                         std::size_t{4097}, std::size_t{5119}, std::size_t{5121}, std::size_t{5631}, std::size_t{5633}, std::size_t{100003}, (std::size_t{1} << 20) + 7)),
    param_name);

TEST(SortGpu, CubPassesTheSameCheck) {
  CUDALAB_REQUIRE_GPU();
  for (bool pairs : {false, true}) {
    for (KeyType t : {KeyType::kU32, KeyType::kFloat}) {
      if (pairs && t == KeyType::kFloat) continue;
      const std::size_t n = 100003;
      const std::vector<std::uint32_t> keys = sort::make_keys(n, t, Dist::kFew, cudalab::testing::seed(31));
      const std::vector<std::uint32_t> values = cudalab::random_vector<std::uint32_t>(n, cudalab::testing::seed(32), 0u, ~0u);
      const sort::Answer want = sort::reference(keys, pairs ? &values : nullptr, t);
      cudalab::DeviceBuffer<std::uint32_t> d_keys(keys), d_values(values);
      sort::CubSort cub(t, d_keys.data(), pairs ? d_values.data() : nullptr, n);
      cub.poison();
      const sort::Sorted s = cub.run();
      std::vector<std::uint32_t> got(n), got_values(n);
      CUDA_CHECK(cudaMemcpy(got.data(), s.keys, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
      if (pairs) CUDA_CHECK(cudaMemcpy(got_values.data(), s.values, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
      EXPECT_EQ(sort::first_mismatch(want, got.data(), pairs ? got_values.data() : nullptr, t, true, "cub"), n)
          << sort::key_type_name(t) << (pairs ? " pairs" : " keys");
    }
  }
}

TEST(SortGpu, BitonicRefusesPairsAndEverySortRefusesMoreThanItsWorkspace) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<std::uint32_t> buf(64);
  sort::Workspace ws(64, true);
  EXPECT_THROW(sort::sort(Variant::kBitonic, KeyType::kU32, buf.data(), buf.data(), 64, ws), std::invalid_argument);
  EXPECT_THROW(sort::sort(Variant::kRadix8, KeyType::kU32, buf.data(), nullptr, 65, ws), std::invalid_argument);
  sort::Workspace keys_only(64, false);
  EXPECT_THROW(sort::sort(Variant::kRadix4, KeyType::kU32, buf.data(), buf.data(), 64, keys_only), std::invalid_argument);
}

// The lab's Problem: every timed launch's fresh keys (uint32 rotated, floats' exponents shifted,
// values rotated) make the base's sorted output a replay that the check refuses, while a sort of
// them matches the answer derived from the base's; the end-to-end sorts (a variant's and CUB's,
// with the copies) leave the base keys in the buffers and the check passing again.
TEST(SortProblem, FreshKeysCatchAReplayAndEndToEndSortsTheBase) {
  CUDALAB_REQUIRE_GPU();
  for (bool pairs : {false, true}) {
    for (KeyType t : {KeyType::kU32, KeyType::kFloat}) {
      if (pairs && t == KeyType::kFloat) continue;
      const std::string what = std::string(sort::key_type_name(t)) + (pairs ? " pairs" : " keys");
      sort::Problem p(5003, t, pairs, Dist::kFew, cudalab::testing::seed(41), cudalab::Replays::kCaught);
      std::vector<cudalab::Rung> rungs = p.rungs("onesweep");
      ASSERT_EQ(rungs.size(), 2u) << what;  // the variant and CUB
      for (cudalab::Rung& r : rungs) {
        r.poison();
        r.launch();
        CUDA_CHECK(cudaDeviceSynchronize());
        ASSERT_TRUE(r.check()) << what << " " << r.name;
        testing::internal::CaptureStderr();
        for (int rep : {0, 1, 2, 40}) {
          p.replay_sets()->use_rep(rep);
          EXPECT_FALSE(r.check()) << what << " " << r.name << ": the base's output on repetition " << rep;
          r.launch();
          CUDA_CHECK(cudaDeviceSynchronize());
          EXPECT_TRUE(r.check()) << what << " " << r.name << " on repetition " << rep;
        }
        testing::internal::GetCapturedStderr();
        p.replay_sets()->use(0);
      }
      EXPECT_GT(p.end_to_end("onesweep", 2).median_ms, 0.0) << what;
      EXPECT_GT(p.end_to_end("", 2).median_ms, 0.0) << what;
      EXPECT_THROW(p.end_to_end("no_such_sort", 1), std::invalid_argument);
      EXPECT_GE(p.cpu_sort_ms(), 0.0);
      rungs[0].launch();
      CUDA_CHECK(cudaDeviceSynchronize());
      EXPECT_TRUE(rungs[0].check()) << what << ": the base keys after the end-to-end sorts";
    }
  }
}

}  // namespace
