// latency_hiding: how warps (TLP) and independent instructions (ILP) hide latency.
//   ./labs/latency_hiding                       all four experiments
//   ./labs/latency_hiding --part arith          dependent FMA chains: warps per SM x chains
//   ./labs/latency_hiding --part memory --bytes 1G     bandwidth against bytes in flight
//   ./labs/latency_hiding --part copy           a copy at 25 % occupancy against one at 100 %
//   ./labs/latency_hiding --part barrier        the notes' slow warp, with and without a barrier
//   ./labs/latency_hiding --part walk           three kernels, the bottleneck checklist, each fix tried
#include <string>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "sections.hpp"

namespace {

using namespace latency_hiding;  // the lab's options and sections (sections.hpp)

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("latency_hiding", "How warps (TLP) and independent instructions (ILP) hide latency, with Little's law");
  cli.option("--part", o.part, "which experiment: all, arith, memory, copy, barrier, walk",
             {"all", "arith", "memory", "copy", "barrier", "walk"});
  cli.option("--max-warps", o.max_warps, "the most warps per SM swept (1, 2, 4 ... this; a power of two)", 1, 64);
  cli.option("--chains", o.chains, "FMA chains per thread: 1, 2, 4 or 8 (default: all four)", 0, 8);
  cli.option("--bytes", o.bytes,
             "bytes read in the memory experiment (and in + out of the copy); far above the L2 (1M, the least, for quick checks)",
             std::int64_t{1} << 20, std::int64_t{16} << 30);
  cli.option("--iters", o.iters, "dependent FMAs per chain (the sums stay exact in FP32)", 1, 1 << 20);
  cli.option("--dram-latency-ns", o.dram_latency_ns, "the DRAM latency for Little's law (the latency lab's; 0: from this run)",
             0, 100000);
  cli.add_common(o.common, cudalab::CommonSet::kNoSeed);
  cli.footer("Examples:\n  latency_hiding\n  latency_hiding --part arith --max-warps 16\n"
             "  latency_hiding --part memory --bytes 1G --dram-latency-ns 335");
  if (auto code = cli.parse(argc, argv)) return *code;
  if ((o.max_warps & (o.max_warps - 1)) != 0) throw cudalab::UsageError("--max-warps must be a power of two (1 .. 64)");
  if (o.chains != 0 && o.chains != 1 && o.chains != 2 && o.chains != 4 && o.chains != 8) {
    throw cudalab::UsageError(fmt::format("--chains {}: the kernel has 1, 2, 4 or 8 chains", o.chains));
  }
  if (o.bytes % 16 != 0) throw cudalab::UsageError("--bytes must be a multiple of 16");

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  cudalab::Report report("latency_hiding", o.common.json);
  report.field("device", "device", facts.name);
  report.field("sm_count", "SMs", facts.sm_count);
  report.field("peak_fp32_gflops", "FP32 peak (SMs x FP32 lanes x 2 x max clock)", Value(facts.theoretical_fp32_gflops(), 0),
               "GFLOP/s");
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  bool ok = true;
  if (o.part == "all" || o.part == "arith") ok = arithmetic(report, o, facts, bench) && ok;
  if (o.part == "all" || o.part == "memory" || o.part == "copy" || o.part == "walk") {
    cudalab::require_device_memory(static_cast<double>(o.bytes), "--bytes");
    const auto ceiling = cudalab::measure_copy_ceiling(bench);
    cudalab::report_copy_ceiling(report, ceiling.gbps);
    if (o.part == "all" || o.part == "memory") ok = memory(report, o, facts, bench, ceiling.gbps) && ok;
    if (o.part == "all" || o.part == "copy") ok = copies(report, o, facts, bench, ceiling.gbps) && ok;
    if (o.part == "all" || o.part == "walk") ok = walk(report, o, facts, bench, ceiling.gbps) && ok;
  }
  if (o.part == "all" || o.part == "barrier") ok = barriers(report, o) && ok;
  return ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("latency_hiding", [&] { return run(argc, argv); });
}
