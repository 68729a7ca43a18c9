#include "common/bandwidth.hpp"

#include <fstream>
#include <limits>
#include <sstream>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "common/cuda_check.hpp"

namespace cudalab {

int mark_suspects(std::vector<VariantResult>& results, double peak_gbps, double copy_gbps, double l2_bytes,
                  double peak_gflops, const std::string& peak_name) {
  int marked = 0;
  for (auto& r : results) {
    if (!r.correct || !r.suspect.empty()) continue;
    const double g = r.gbps();
    if (r.timing.work_outside_the_timed_stream()) {
      r.suspect = fmt::format("the host waited at least {:.4f} ms per launch, the events saw at most {:.4f} ms (the host "
                              "adds {:.4f} ms here): work outside the timed stream", r.timing.host_min_ms, r.timing.max_ms,
                              r.timing.host_overhead_ms);
    } else if (peak_gbps > 0 && g > peak_gbps) {
      r.suspect = fmt::format("{:.0f} GB/s is above the theoretical peak of {:.0f} GB/s", g, peak_gbps);
    } else if (peak_gflops > 0 && r.flops > 0 && r.gflops() > peak_gflops) {
      r.suspect = fmt::format("{:.0f} GFLOP/s is above the theoretical {} peak of {:.0f} GFLOP/s", r.gflops(), peak_name,
                              peak_gflops);
    } else if (copy_gbps > 0 && r.bytes > l2_bytes && g > kCopyCeilingMargin * copy_gbps) {
      r.suspect = fmt::format("{:.0f} GB/s is {:.2f} x the copy ceiling of this run for {} (more than the L2 holds)", g,
                              g / copy_gbps, human_bytes(r.bytes));
    }
    marked += r.suspect.empty() ? 0 : 1;
  }
  return marked;
}

namespace {
double free_device_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return static_cast<double>(free_bytes);
}
}  // namespace

double usable_device_memory() { return free_device_bytes() * kUsableMemoryFraction; }

void require_device_memory(double bytes, const std::string& what) {
  const double free_bytes = free_device_bytes();
  if (bytes > free_bytes * kUsableMemoryFraction) {
    throw UsageError(fmt::format("{} needs {} of GPU memory; the GPU has {} free", what, human_bytes(bytes),
                                 human_bytes(free_bytes)));
  }
}

double meminfo_available_bytes(const std::string& meminfo) {
  std::istringstream in(meminfo);
  std::string key, unit;
  double value = 0;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return value * (unit.find("kB") != std::string::npos ? 1024.0 : 1.0);
  }
  return -1;
}

double usable_host_memory() {
  std::ifstream in("/proc/meminfo");
  std::stringstream text;
  text << in.rdbuf();
  const double available = in ? meminfo_available_bytes(text.str()) : -1;
  return available < 0 ? std::numeric_limits<double>::infinity() : available * kUsableHostMemoryFraction;
}

void require_host_memory(double bytes, const std::string& what) {
  const double usable = usable_host_memory();
  if (bytes > usable) {
    throw UsageError(fmt::format("{} needs {} of host memory; {} is available", what, human_bytes(bytes),
                                 human_bytes(usable / kUsableHostMemoryFraction)));
  }
}

}  // namespace cudalab
