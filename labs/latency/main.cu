// latency: how long one access takes when nothing hides it, level by level.
//   ./labs/latency                  global memory from 4 KiB to 4 GiB, the TLB step, shared and
//                                   constant memory, the FMA chain, and the latency table
//   ./labs/latency --sweep          the global working sets in steps of 2 (the plot's curve)
//   ./labs/latency --max-ws 64M     stop the global sweep at 64 MiB
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/timer.hpp"
#include "common/cuda_check.hpp"
#include "common/device_facts.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "sections.hpp"

namespace {

using namespace latency;  // the lab's options and sections (sections.hpp)
using cudalab::Value;

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("latency", "How long one access takes when nothing hides it: global, the TLBs, shared, constant, the ALU.");
  cli.option("--max-ws", o.max_ws, "largest global working set (e.g. 64M, 4G)", 4096, std::int64_t{16} << 30);
  cli.option("--hops", o.hops, "timed hops per chase", 16, std::int64_t{1} << 26);
  cli.option("--stride", o.stride, "bytes between the chased items of the global sweep (a multiple of 8)", 8, 4096);
  cli.option("--max-pages", o.max_pages, "widest span of the TLB step, in pages", 2, 65536);
  cli.flag("--sweep", o.sweep, "global working sets in steps of 2 instead of 4");
  cli.add_common(o.common, cudalab::CommonSet::kDeviceAndJson);
  cli.footer("Examples:\n  latency\n  latency --sweep --json\n  latency --max-ws 64M --hops 4096");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.stride % 8 != 0) throw cudalab::UsageError(fmt::format("--stride {} is not a multiple of 8 (a pointer)", o.stride));

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  // DRAM's measured ceiling, for shared memory's bandwidth to stand beside (before the chase's buffer)
  double copy_gbps = 0;
  {
    cudalab::Benchmarker bench(cudalab::BenchmarkOptions{});
    copy_gbps = cudalab::measure_copy_ceiling(bench).gbps;
  }
  std::string page_how;
  const std::size_t page = device_page_bytes(o.common.device, &page_how);
  // One buffer serves the global sweep and the TLB step; at most the labs' memory cap.
  const double want = std::max(static_cast<double>(o.max_ws), static_cast<double>(page) * o.max_pages);
  GlobalChase chase(static_cast<std::size_t>(std::min(want, cudalab::usable_device_memory())));

  cudalab::Report report("latency", o.common.json);
  report.field("device", "device", facts.name);
  const double ghz = measure_clock_ghz();
  report.field("sm_clock_ghz", "SM clock while a kernel runs (measured)", Value(ghz, 3), "GHz");
  report.field("sm_clock_max_ghz", "SM clock, the device's maximum", Value(facts.sm_clock_khz / 1e6, 3), "GHz");
  report.field("l2_mb", "L2", Value(static_cast<double>(facts.l2_bytes) / 1e6, 1), "MB");
  report.field("page", "device page (" + page_how + ")", cudalab::human_bytes(static_cast<double>(page)));

  bool ok = true;
  const auto global = global_sweep(report, o, chase, ghz, &ok);
  const TlbStep tlb = tlb_step(report, o, chase, page, ghz, &ok);
  const OnChip chip = on_chip(report, o, &ok);
  throughput(report, o, facts.sm_count, ghz, copy_gbps, &ok);
  latency_table(report, global, tlb, chip, page, static_cast<double>(facts.l2_bytes), ghz);
  return ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("latency", [&] { return run(argc, argv); });
}
