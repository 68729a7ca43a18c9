#include "common/timer.hpp"

#include <gtest/gtest.h>

#include "common/device_facts.hpp"
#include "gpu_test.hpp"

namespace {

TEST(Benchmarker, CollectsRepeatSamplesInOrder) {
  CUDALAB_REQUIRE_GPU();
  cudalab::Benchmarker bench({/*warmup=*/2, /*repeat=*/7, /*flush_l2=*/true});
  cudalab::DeviceBuffer<char> buf(std::size_t{64} << 20);
  int launches = 0;
  const auto t = bench.run([&] {
    ++launches;
    CUDA_CHECK(cudaMemsetAsync(buf.data(), launches & 0xFF, buf.bytes()));
  });
  EXPECT_EQ(launches, 9);
  ASSERT_EQ(t.samples_ms.size(), 7u);
  EXPECT_GT(t.min_ms, 0.0);
  EXPECT_LE(t.min_ms, t.median_ms);
  EXPECT_LE(t.median_ms, t.max_ms);
}

TEST(Benchmarker, RejectsNonsenseOptions) {
  CUDALAB_REQUIRE_GPU();
  EXPECT_THROW(cudalab::Benchmarker({0, 0, false}), std::invalid_argument);
  EXPECT_THROW(cudalab::Benchmarker({-1, 5, false}), std::invalid_argument);
}

TEST(CopyCeiling, IsPositiveAndBelowTheTheoreticalPeak) {
  CUDALAB_REQUIRE_GPU();
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const auto facts = cudalab::query_device(device);
  cudalab::Benchmarker bench({1, 5, true});
  const auto c = cudalab::measure_copy_ceiling(bench, std::size_t{256} << 20);
  EXPECT_EQ(c.bytes, std::size_t{256} << 20);
  EXPECT_GT(c.gbps, 0.0);
  // A copy cannot beat the DRAM peak (the 256 MiB buffers are far larger than any L2 flush).
  EXPECT_LT(c.gbps, facts.theoretical_bandwidth_gbps());
}

}  // namespace
