#pragma once
// The GPU's clocks, power and temperature as the driver's management library (NVML) reports
// them, so a report says at which clock its times were taken: a reader whose numbers differ can
// tell a slower card from a throttled one (power cap, heat) or one whose clocks were locked.
// NVML ships with the driver (libnvidia-ml.so.1) and is opened at run time: a machine without
// it, or a sandbox that hides it, gets a state that says why it is unknown, never an error.
#include <string>

namespace cudalab {

struct GpuState {
  bool known = false;
  std::string why_unknown;   // when !known: what failed (library, symbol, device, query)
  unsigned sm_mhz = 0;       // the SM clock now
  unsigned mem_mhz = 0;      // the memory clock now
  double power_w = 0;        // the board's power draw now (0: not reported)
  double power_limit_w = 0;  // the enforced power limit (0: not reported)
  unsigned temperature_c = 0;
  unsigned long long reasons = 0;  // why the clocks are below their maximum (NVML's clock event reasons)
};

// The state of CUDA device `device` now.
GpuState read_gpu_state(int device);

// The clock event reasons as names ("sw_power_cap, hw_thermal_slowdown"), "none" for 0. The
// GPU's being idle is not a reason a measurement cares about and is left out.
std::string clock_reason_names(unsigned long long reasons);

// What a ladder saw over its rungs, each read right after that rung's timed launches.
struct GpuStateRange {
  bool known = false;
  std::string why_unknown;
  unsigned sm_min_mhz = 0, sm_max_mhz = 0;
  double power_max_w = 0, power_limit_w = 0;
  unsigned temperature_max_c = 0;
  unsigned long long reasons = 0;  // every reason any rung saw
  void add(const GpuState& s);
};

}  // namespace cudalab
