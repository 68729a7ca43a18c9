// CPU-side arithmetic of device facts and timing: no GPU needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/bandwidth.hpp"
#include "common/cuda_check.hpp"
#include "common/device_facts.hpp"
#include "common/timer.hpp"

namespace {

TEST(TheoreticalBandwidth, H200) {
  // 2 transfers per clock x 3201 MHz x 6016 bit / 8 = 4814.3 GB/s.
  EXPECT_NEAR(cudalab::theoretical_bandwidth_gbps(3201000, 6016), 4814.3, 0.05);
}

TEST(TheoreticalBandwidth, A100FromTheNotes) {
  // The notes compute 2 x 1215 MHz x 512 B = 1244 GB/s and blame the boost clock for the gap
  // to the quoted 1555 GB/s. The gap is the bus: the 40 GB A100 has 5120 bits (640 B), and
  // 2 x 1215 MHz x 640 B is exactly the quoted 1555 GB/s.
  EXPECT_NEAR(cudalab::theoretical_bandwidth_gbps(1215000, 5120), 1555.2, 0.05);
  EXPECT_NEAR(cudalab::theoretical_bandwidth_gbps(1215000, 4096), 1244.16, 0.05);
}

TEST(TheoreticalBandwidth, ZeroInputsGiveZero) {
  EXPECT_EQ(cudalab::theoretical_bandwidth_gbps(0, 6016), 0.0);
  EXPECT_EQ(cudalab::theoretical_bandwidth_gbps(3201000, 0), 0.0);
}

TEST(DeviceFacts, DerivedNumbers) {
  cudalab::DeviceFacts f;
  f.cc_major = 9;
  f.cc_minor = 0;
  f.sm_count = 132;
  f.max_threads_per_sm = 2048;
  f.warp_size = 32;
  f.memory_clock_khz = 3201000;
  f.memory_bus_width_bits = 6016;
  EXPECT_EQ(f.arch(), "sm_90");
  EXPECT_EQ(f.max_resident_threads(), 270336);
  EXPECT_EQ(f.max_resident_warps(), 8448);
  EXPECT_NEAR(f.theoretical_bandwidth_gbps(), 4814.3, 0.05);
}

TEST(ArchLanes, EveryArchitectureFromTuringToBlackwell) {
  struct Case {
    int major, minor, fp32, fp64;
  };
  for (const Case c : {Case{7, 5, 64, 2}, Case{8, 0, 64, 32}, Case{8, 6, 128, 2}, Case{8, 9, 128, 2},
                       Case{9, 0, 128, 64}, Case{10, 0, 128, 64}, Case{12, 0, 128, 2}}) {
    const cudalab::ArchLanes lanes = cudalab::arch_lanes(c.major, c.minor);
    EXPECT_TRUE(lanes.known) << c.major << "." << c.minor;
    EXPECT_EQ(lanes.fp32, c.fp32) << c.major << "." << c.minor;
    EXPECT_EQ(lanes.fp64, c.fp64) << c.major << "." << c.minor;
  }
  EXPECT_FALSE(cudalab::arch_lanes(6, 1).known);
  EXPECT_FALSE(cudalab::arch_lanes(7, 0).known);  // Volta: not in the table, so not guessed
  EXPECT_EQ(cudalab::arch_lanes(11, 0).fp32, 0);
}

TEST(ArchLanes, PeaksOfTheH200AndTheA100) {
  cudalab::DeviceFacts h200;
  h200.cc_major = 9;
  h200.sm_count = 132;
  h200.sm_clock_khz = 1980000;
  EXPECT_NEAR(h200.theoretical_fp32_gflops(), 66908.2, 0.1);  // 132 x 128 x 2 x 1.98 GHz
  EXPECT_NEAR(h200.theoretical_fp64_gflops(), 33454.1, 0.1);
  cudalab::DeviceFacts a100;
  a100.cc_major = 8;
  a100.sm_count = 108;
  a100.sm_clock_khz = 1410000;
  EXPECT_NEAR(a100.theoretical_fp32_gflops(), 19491.8, 0.1);  // the notes' 19.5 TFLOP/s
  cudalab::DeviceFacts unknown = h200;
  unknown.cc_major = 11;
  EXPECT_EQ(unknown.theoretical_fp32_gflops(), 0.0);
}

TEST(ArchLanes, Bf16TensorPeaksOfTheDataSheets) {
  // NVIDIA's data sheets, dense BF16 with FP32 accumulation: A100 312 TFLOP/s (108 SMs,
  // 1410 MHz), H100 SXM 989.4 (132 SMs, 1830 MHz boost).
  cudalab::DeviceFacts a100;
  a100.cc_major = 8;
  a100.sm_count = 108;
  a100.sm_clock_khz = 1410000;
  EXPECT_NEAR(a100.theoretical_bf16_tensor_gflops(), 312e3, 0.005 * 312e3);
  cudalab::DeviceFacts h100;
  h100.cc_major = 9;
  h100.sm_count = 132;
  h100.sm_clock_khz = 1830000;
  EXPECT_NEAR(h100.theoretical_bf16_tensor_gflops(), 989.4e3, 0.005 * 989.4e3);
  // No figure in the table: Turing has no BF16, GeForce halves FP32 accumulation.
  cudalab::DeviceFacts t4 = a100;
  t4.cc_major = 7;
  t4.cc_minor = 5;
  EXPECT_EQ(t4.theoretical_bf16_tensor_gflops(), 0.0);
  cudalab::DeviceFacts rtx30 = a100;
  rtx30.cc_minor = 6;
  EXPECT_EQ(rtx30.theoretical_bf16_tensor_gflops(), 0.0);
}

TEST(UsableDeviceCount, NeverThrowsAndExplainsZero) {
  std::string why;
  const int n = cudalab::usable_device_count(&why);
  EXPECT_GE(n, 0);
  if (n == 0) {
    EXPECT_FALSE(why.empty());
  }
}

TEST(Summarize, OddAndEvenCounts) {
  const auto odd = cudalab::summarize({3.0, 1.0, 2.0});
  EXPECT_EQ(odd.min_ms, 1.0);
  EXPECT_EQ(odd.median_ms, 2.0);
  EXPECT_EQ(odd.max_ms, 3.0);
  EXPECT_EQ(odd.samples_ms.size(), 3u);
  EXPECT_EQ(odd.samples_ms[0], 3.0);  // samples keep their order
  const auto even = cudalab::summarize({4.0, 1.0, 3.0, 2.0});
  EXPECT_EQ(even.median_ms, 2.5);
  const auto one = cudalab::summarize({7.0});
  EXPECT_EQ(one.min_ms, 7.0);
  EXPECT_EQ(one.median_ms, 7.0);
  EXPECT_EQ(one.max_ms, 7.0);
  EXPECT_EQ(cudalab::summarize({}).median_ms, 0.0);
}

TEST(Throughput, GbpsAndPercent) {
  // 1 GB in 1 ms is 1000 GB/s.
  EXPECT_DOUBLE_EQ(cudalab::gbps(1e9, 1.0), 1000.0);
  // A 4K RGBA frame (33,177,600 bytes in, the same out) at 4814 GB/s takes >= 13.8 us.
  EXPECT_NEAR(cudalab::gbps(2 * 33177600.0, 0.0138), 4808.3, 1.0);
  EXPECT_EQ(cudalab::gbps(1e9, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(cudalab::percent(4167.0, 4814.3), 100.0 * 4167.0 / 4814.3);
  EXPECT_EQ(cudalab::percent(1.0, 0.0), 0.0);
}

TEST(PcieLink, GenerationFromTheSysfsSpeed) {
  EXPECT_EQ(cudalab::pcie_generation_from_speed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(cudalab::pcie_generation_from_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(cudalab::pcie_generation_from_speed("8.0 GT/s PCIe"), 3);
  EXPECT_EQ(cudalab::pcie_generation_from_speed("5.0 GT/s"), 2);
  EXPECT_EQ(cudalab::pcie_generation_from_speed("2.5 GT/s PCIe"), 1);
  EXPECT_EQ(cudalab::pcie_generation_from_speed("64.0 GT/s PCIe"), 6);
  EXPECT_EQ(cudalab::pcie_generation_from_speed("Unknown"), 0);
  EXPECT_EQ(cudalab::pcie_generation_from_speed("12.0 GT/s"), 0);  // no such generation
  EXPECT_EQ(cudalab::pcie_generation_from_speed("32.0"), 0);       // no unit
  EXPECT_EQ(cudalab::pcie_generation_from_speed(""), 0);
}

TEST(PcieLink, SysfsBusIdFromTheRuntimesId) {
  EXPECT_EQ(cudalab::sysfs_bus_id("0000:1B:00.0"), "0000:1b:00.0");
  EXPECT_EQ(cudalab::sysfs_bus_id("00000000:00:06.0"), "0000:00:06.0");
  EXPECT_EQ(cudalab::sysfs_bus_id("0001:c3:00.0"), "0001:c3:00.0");
}

TEST(PcieLink, ReadFromASysfsTree) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("cudalab_sysfs_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::create_directories(root / "0000:00:06.0");
  const auto write = [&](const char* file, const char* text) { std::ofstream(root / "0000:00:06.0" / file) << text; };
  write("current_link_speed", "16.0 GT/s PCIe\n");
  write("current_link_width", "8\n");
  write("max_link_speed", "32.0 GT/s PCIe\n");
  write("max_link_width", "16\n");
  const cudalab::PcieLink link = cudalab::read_pcie_link("0000:00:06.0", root.string());
  EXPECT_TRUE(link.known()) << link.why_unknown;
  EXPECT_EQ(link.generation, 4);
  EXPECT_EQ(link.width, 8);
  EXPECT_EQ(link.max_generation, 5);
  EXPECT_EQ(link.max_width, 16);
  EXPECT_NEAR(link.gbps_per_direction(), 15.75, 0.01);  // 16 GT/s x 8 x 128/130 / 8

  const cudalab::PcieLink missing = cudalab::read_pcie_link("0000:99:00.0", root.string());
  EXPECT_FALSE(missing.known());
  EXPECT_EQ(missing.gbps_per_direction(), 0.0);
  EXPECT_NE(missing.why_unknown.find("cannot read"), std::string::npos);

  write("current_link_speed", "Unknown\n");  // what some virtual machines report
  const cudalab::PcieLink odd = cudalab::read_pcie_link("0000:00:06.0", root.string());
  EXPECT_FALSE(odd.known());
  EXPECT_NE(odd.why_unknown.find("Unknown"), std::string::npos);
  fs::remove_all(root);
}

TEST(HostMemory, MemAvailableFromMeminfo) {
  const std::string meminfo =
      "MemTotal:       131072000 kB\nMemFree:        1000 kB\nMemAvailable:   125829120 kB\nBuffers: 0 kB\n";
  EXPECT_DOUBLE_EQ(cudalab::meminfo_available_bytes(meminfo), 125829120.0 * 1024);
  EXPECT_LT(cudalab::meminfo_available_bytes("MemTotal: 5 kB\n"), 0);
  EXPECT_LT(cudalab::meminfo_available_bytes(""), 0);
  // This machine's own: positive (or infinity where there is no /proc/meminfo).
  EXPECT_GT(cudalab::usable_host_memory(), 0);
  EXPECT_THROW(cudalab::require_host_memory(1e30, "N = 2^100"), cudalab::UsageError);
  EXPECT_NO_THROW(cudalab::require_host_memory(4096, "N = 1024"));
}

}  // namespace
