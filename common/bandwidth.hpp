#pragma once
// The standard comparison table of a bandwidth-bound lab: for each kernel variant its median
// time, the bytes it must move, GB/s, % of the theoretical DRAM peak and % of the copy
// ceiling measured in the same run.
#include <cstddef>
#include <string>
#include <vector>

#include "common/report.hpp"
#include "common/timer.hpp"

namespace cudalab {

struct VariantResult {
  std::string name;
  Timing timing;
  double bytes = 0;    // bytes the kernel must read + write (the napkin-math minimum)
  bool correct = false;
  std::string suspect{};  // non-empty: why this result is not believed (mark_suspects), never ranked
  double flops{0};        // floating-point operations one launch does (0: not counted)
  double gbps() const { return cudalab::gbps(bytes, timing.median_ms); }
  double gflops() const { return timing.median_ms > 0 ? flops / (timing.median_ms * 1e6) : 0.0; }
};

// A result faster than physics is an error to explain, never a record: marks (VariantResult::
// suspect) each correct result above the theoretical peak (bandwidth, or FP32 FLOP/s when it
// counts FLOPs and peak_gflops > 0), above kCopyCeilingMargin x the copy ceiling of the same
// run while it moves more bytes than the L2 holds, or whose timed launches left work the events
// did not wait for (Timing::work_outside_the_timed_stream). The margin: a kernel that reads two
// streams and writes one can beat cudaMemcpy's one-to-one copy by a few percent (vec_add),
// never by ten. Returns how many it marked.
constexpr double kCopyCeilingMargin = 1.10;
// peak_name names the FLOP rate in the reason ("FP32", "BF16 Tensor Core").
int mark_suspects(std::vector<VariantResult>& results, double peak_gbps, double copy_gbps, double l2_bytes,
                  double peak_gflops = 0, const std::string& peak_name = "FP32");

// The one memory cap of every lab: 90% of the current device's free memory. The rest is room
// for the L2 flush buffer (twice the L2), the copy ceiling's buffers and the context's own
// allocations. Single runs refuse sizes past it (require_device_memory); sweeps stop before
// it (sweep_sizes in ladder.hpp).
constexpr double kUsableMemoryFraction = 0.9;
double usable_device_memory();

// Throws UsageError ("needs 12.0 GiB of GPU memory; the GPU has 3.9 GiB free") when `bytes`
// is more than usable_device_memory().
void require_device_memory(double bytes, const std::string& what);

// Host memory a lab may take: 80% of what the kernel reports as MemAvailable in /proc/meminfo
// (the rest for the OS and the CUDA driver's own pinned buffers); infinity where there is no
// /proc/meminfo. require_host_memory throws UsageError past it, as require_device_memory does.
constexpr double kUsableHostMemoryFraction = 0.8;
double usable_host_memory();
void require_host_memory(double bytes, const std::string& what);
// MemAvailable of a /proc/meminfo text, in bytes; a negative value when it has none.
double meminfo_available_bytes(const std::string& meminfo);

}  // namespace cudalab
