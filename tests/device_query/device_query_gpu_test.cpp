// device_query against the real GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/cuda_check.hpp"
#include "device_query.hpp"
#include "gpu_test.hpp"

namespace {

TEST(DeviceQueryGpu, BandwidthComesFromTheAttributes) {
  CUDALAB_REQUIRE_GPU();
  int clock_khz = 0, bus_bits = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
  const auto f = cudalab::query_device(0);
  EXPECT_DOUBLE_EQ(f.theoretical_bandwidth_gbps(), 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9);
  EXPECT_GT(f.theoretical_bandwidth_gbps(), 100.0);  // every GPU CUDA 13 supports has more
}

TEST(DeviceQueryGpu, ResidencyOfTheRealDeviceIsConsistent) {
  CUDALAB_REQUIRE_GPU();
  const auto f = cudalab::query_device(0);
  const auto r = device_query::residency_by_threads_and_blocks(f.max_threads_per_sm, f.max_blocks_per_sm,
                                                               f.warp_size, 256);
  EXPECT_GE(r.resident_blocks, 1);
  EXPECT_LE(r.resident_threads, f.max_threads_per_sm);
  EXPECT_LE(r.resident_blocks, f.max_blocks_per_sm);
  EXPECT_GT(r.occupancy_percent, 0.0);
  EXPECT_LE(r.occupancy_percent, 100.0);
}

TEST(DeviceQueryGpu, H200FactsFromTheCourse) {
  CUDALAB_REQUIRE_GPU();
  const auto f = cudalab::query_device(0);
  if (f.name.find("H200") == std::string::npos) {
    GTEST_SKIP() << "device 0 is " << f.name << ", not an H200";
  }
  EXPECT_EQ(f.sm_count, 132);
  EXPECT_EQ(f.arch(), "sm_90");
  EXPECT_NEAR(f.theoretical_bandwidth_gbps(), 4814.0, 1.0);
}

TEST(DeviceQueryGpu, ReportOfEveryDeviceIsValidJson) {
  CUDALAB_REQUIRE_GPU();
  std::FILE* out = std::tmpfile();
  std::string text;
  const int count = cudalab::usable_device_count();
  {
    cudalab::Report report("device_query", true, out);
    for (int d = 0; d < count; ++d) device_query::report_device(report, cudalab::query_device(d));
    text = report.json_text();
  }
  std::fclose(out);
  const auto doc = nlohmann::json::parse(text);
  ASSERT_EQ(doc["devices"].size(), static_cast<std::size_t>(count));
  EXPECT_GT(doc["devices"][0]["sm_count"].get<int>(), 0);
}

}  // namespace
