// The GPU-state pieces that need no GPU: the clock reasons' names, the range over a ladder's
// rungs, and the report's line and JSON object (common/gpu_state.hpp, report_gpu_state).
#include "common/gpu_state.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/ladder.hpp"
#include "common/report.hpp"
#include "render_report.hpp"

namespace {

using cudalab::GpuState;
using cudalab::GpuStateRange;

std::string render(bool json, const GpuStateRange& g) {
  return cudalab_test::render(json, [&g](cudalab::Report& r) { cudalab::report_gpu_state(r, g); });
}

GpuState state(unsigned sm, double w, unsigned c, unsigned long long reasons) {
  GpuState s;
  s.known = true;
  s.sm_mhz = sm;
  s.power_w = w;
  s.power_limit_w = 700;
  s.temperature_c = c;
  s.reasons = reasons;
  return s;
}

TEST(GpuState, ClockReasonsAreNamedAndIdleIsNotOne) {
  EXPECT_EQ(cudalab::clock_reason_names(0), "none");
  EXPECT_EQ(cudalab::clock_reason_names(0x1), "none");  // idle between launches: not a limit
  EXPECT_EQ(cudalab::clock_reason_names(0x4), "sw_power_cap");
  EXPECT_EQ(cudalab::clock_reason_names(0x1 | 0x4 | 0x40), "sw_power_cap, hw_thermal_slowdown");
  EXPECT_EQ(cudalab::clock_reason_names(0x8 | 0x10000), "hw_slowdown, other");
}

TEST(GpuState, TheRangeKeepsTheExtremesAndEveryReason) {
  GpuStateRange g;
  GpuState unknown;
  unknown.why_unknown = "libnvidia-ml.so.1 not found";
  g.add(unknown);
  EXPECT_FALSE(g.known);
  EXPECT_EQ(g.why_unknown, "libnvidia-ml.so.1 not found");
  g.add(state(1980, 500, 40, 0x1));
  g.add(state(1755, 690, 52, 0x4));
  g.add(state(1890, 600, 47, 0));
  EXPECT_TRUE(g.known);
  EXPECT_EQ(g.sm_min_mhz, 1755u);
  EXPECT_EQ(g.sm_max_mhz, 1980u);
  EXPECT_DOUBLE_EQ(g.power_max_w, 690);
  EXPECT_EQ(g.temperature_max_c, 52u);
  EXPECT_EQ(g.reasons, 0x4ull);  // idle dropped
}

TEST(GpuState, TheReportHasNumbersInJsonAndOneLineInText) {
  GpuStateRange g;
  g.add(state(1755, 690.4, 52, 0x4));
  g.add(state(1980, 500, 40, 0));
  const auto doc = nlohmann::json::parse(render(true, g));
  EXPECT_EQ(doc["gpu_state"]["sm_min_mhz"], 1755);
  EXPECT_EQ(doc["gpu_state"]["sm_max_mhz"], 1980);
  EXPECT_EQ(doc["gpu_state"]["clock_event_reasons"], 4);
  EXPECT_TRUE(doc["gpu_state"]["power_max_w"].is_number());
  const std::string text = render(false, g);
  EXPECT_NE(text.find(": SM 1755 .. 1980 MHz, up to 690 W of 700, up to 52 C, clocks held back by: sw_power_cap\n"),
            std::string::npos)
      << text;
}

TEST(GpuState, AnUnknownStateSaysWhy) {
  GpuStateRange g;
  GpuState s;
  s.why_unknown = "NVML does not see device 0000:01:00.0";
  g.add(s);
  const auto doc = nlohmann::json::parse(render(true, g));
  EXPECT_EQ(doc["gpu_state"], "unknown: NVML does not see device 0000:01:00.0");
  EXPECT_NE(render(false, g).find(": unknown: NVML does not see device"), std::string::npos);
}

TEST(GpuState, ReadingItNeverThrows) {
  // On a machine without the driver: unknown, with a reason; with one: a clock.
  const GpuState s = cudalab::read_gpu_state(0);
  if (s.known) {
    EXPECT_GT(s.sm_mhz, 0u);
  } else {
    EXPECT_FALSE(s.why_unknown.empty());
  }
}

}  // namespace
