#include "common/gpu_state.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <mutex>

#include <cuda_runtime_api.h>

namespace cudalab {

namespace {

// The few NVML entry points used here, declared from the library's documented C interface
// (every call returns 0 on success; a device handle is an opaque pointer).
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr int kNvmlClockSm = 1, kNvmlClockMem = 2, kNvmlTemperatureGpu = 0;
constexpr unsigned long long kReasonGpuIdle = 0x1ull;

struct Nvml {
  bool ok = false;
  std::string why;
  NvmlReturn (*get_handle)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*clock)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*power)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*power_limit)(NvmlDevice, unsigned*) = nullptr;
  NvmlReturn (*temperature)(NvmlDevice, int, unsigned*) = nullptr;
  NvmlReturn (*reasons)(NvmlDevice, unsigned long long*) = nullptr;
};

template <typename F>
bool bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

// Opened once per process and never closed (the library stays loaded for the process's life).
const Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      n.why = "libnvidia-ml.so.1 not found";
      return;
    }
    NvmlReturn (*init)() = nullptr;
    if (!bind(lib, "nvmlInit_v2", init) || !bind(lib, "nvmlDeviceGetHandleByPciBusId_v2", n.get_handle) ||
        !bind(lib, "nvmlDeviceGetClockInfo", n.clock)) {
      n.why = "NVML lacks an entry point";
      return;
    }
    bind(lib, "nvmlDeviceGetPowerUsage", n.power);
    bind(lib, "nvmlDeviceGetEnforcedPowerLimit", n.power_limit);
    bind(lib, "nvmlDeviceGetTemperature", n.temperature);
    if (!bind(lib, "nvmlDeviceGetCurrentClocksEventReasons", n.reasons)) {
      bind(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", n.reasons);  // its name before driver 535
    }
    const NvmlReturn r = init();
    if (r != 0) {
      n.why = "nvmlInit failed (error " + std::to_string(r) + ")";
      return;
    }
    n.ok = true;
  });
  return n;
}

}  // namespace

GpuState read_gpu_state(int device) {
  GpuState s;
  const Nvml& n = nvml();
  if (!n.ok) {
    s.why_unknown = n.why;
    return s;
  }
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, static_cast<int>(sizeof(bus)), device) != cudaSuccess) {
    (void)cudaGetLastError();
    s.why_unknown = "no PCI bus id for the device";
    return s;
  }
  NvmlDevice handle = nullptr;
  if (n.get_handle(bus, &handle) != 0) {
    s.why_unknown = std::string("NVML does not see device ") + bus;
    return s;
  }
  if (n.clock(handle, kNvmlClockSm, &s.sm_mhz) != 0) {
    s.why_unknown = "NVML gave no SM clock";
    return s;
  }
  s.known = true;
  n.clock(handle, kNvmlClockMem, &s.mem_mhz);
  unsigned mw = 0;
  if (n.power && n.power(handle, &mw) == 0) s.power_w = mw / 1000.0;
  if (n.power_limit && n.power_limit(handle, &mw) == 0) s.power_limit_w = mw / 1000.0;
  if (n.temperature) n.temperature(handle, kNvmlTemperatureGpu, &s.temperature_c);
  if (n.reasons) n.reasons(handle, &s.reasons);
  return s;
}

std::string clock_reason_names(unsigned long long reasons) {
  static const std::pair<unsigned long long, const char*> kNames[] = {
      {0x2ull, "applications_clocks_setting"}, {0x4ull, "sw_power_cap"},         {0x8ull, "hw_slowdown"},
      {0x10ull, "sync_boost"},                 {0x20ull, "sw_thermal_slowdown"},  {0x40ull, "hw_thermal_slowdown"},
      {0x80ull, "hw_power_brake_slowdown"},    {0x100ull, "display_clock_setting"}};
  std::string out;
  unsigned long long left = reasons & ~kReasonGpuIdle;
  for (const auto& [bit, name] : kNames) {
    if ((left & bit) == 0) continue;
    out += (out.empty() ? "" : ", ") + std::string(name);
    left &= ~bit;
  }
  if (left != 0) out += (out.empty() ? "" : ", ") + std::string("other");
  return out.empty() ? "none" : out;
}

void GpuStateRange::add(const GpuState& s) {
  if (!s.known) {
    if (!known && why_unknown.empty()) why_unknown = s.why_unknown;
    return;
  }
  if (!known) {
    sm_min_mhz = sm_max_mhz = s.sm_mhz;
  } else {
    sm_min_mhz = std::min(sm_min_mhz, s.sm_mhz);
    sm_max_mhz = std::max(sm_max_mhz, s.sm_mhz);
  }
  known = true;
  why_unknown.clear();
  power_max_w = std::max(power_max_w, s.power_w);
  power_limit_w = std::max(power_limit_w, s.power_limit_w);
  temperature_max_c = std::max(temperature_max_c, s.temperature_c);
  reasons |= s.reasons & ~kReasonGpuIdle;
}

}  // namespace cudalab
