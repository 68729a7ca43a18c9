// vec_add: c = a + b on the GPU, every variant checked against the CPU and timed.
//   ./labs/vec_add                      all variants, N = 2^26 floats
//   ./labs/vec_add 2^28 --type int      one size, int data
//   ./labs/vec_add --variant vectorized --block 512
//   ./labs/vec_add --sweep --json       bandwidth over N = 2^10 .. 2^28 for plotting
//   ./labs/vec_add --l2-sweep           bandwidth over working sets of 6 .. 384 MB, L2 not flushed
#include <algorithm>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "l2_sweep.hpp"
#include "problem.hpp"
#include "reference.hpp"

namespace {

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 26;  // 768 MiB for three float arrays: past L2, fits 4 GB
  std::string variant = "all";
  std::string type = "float";
  int block = 256;
  bool sweep = false, l2_sweep = false;
};

template <typename T>
int run_single(const Options& o, cudalab::LabRun& run) {
  const auto n = static_cast<std::size_t>(o.n);
  // a, b and c, and the base a and b that the timed launches' fresh inputs are scaled from
  cudalab::require_device_memory(5.0 * static_cast<double>(n) * sizeof(T), "vec_add with N = " + std::to_string(n));
  run.yardsticks();
  const vec_add::Problem<T> p = vec_add::make_problem<T>(n, o.common.seed);
  vec_add::DeviceProblem<T> dev(p, cudalab::Replays::kCaught);
  cudalab::Report& report = run.report();
  const std::vector<cudalab::Rung> rungs = dev.rungs(o.variant, o.block);
  report.heading("Launch configuration");
  report.table("launch", dev.launch_table());
  const cudalab::LadderResult ladder = run.measure(rungs);
  if (ladder.best < 0) {
    // No rung ranks: a wrong result fails the run; correct rungs whose timings are all suspect
    // (the GPU shared with other processes, say) do not: suspect only keeps them off a ranking.
    if (!ladder.all_ok) return cudalab::kExitWrongResult;
    report.note("  every variant's timing is suspect (not ranked): the end-to-end comparison is left out");
    return cudalab::kExitSuccess;
  }

  const auto& best = ladder.best_result();
  const cudalab::Timing e2e = dev.end_to_end(static_cast<std::size_t>(ladder.best), std::min(o.common.repeat, 5));
  report.heading("Does it pay? (same N, data starting and ending in host memory)");
  report.field("cpu_ms", "CPU, one core (-O3)", Value(p.cpu_ms, 3), "ms");
  report.field("gpu_kernel_ms", "GPU kernel only (" + best.name + ")", Value(best.timing.median_ms, 3), "ms");
  report.field("gpu_end_to_end_ms", "GPU incl. copies (pageable memory)", Value(e2e.median_ms, 3), "ms");
  report.field("speedup_end_to_end", "CPU time / GPU end-to-end time", Value(p.cpu_ms / e2e.median_ms, 3), "x");
  return cudalab::ladder_exit_code(ladder);
}

// Bandwidth over N for the plots: every variant at N = 2^10 .. 2^28 (as far as memory allows),
// plus CPU and end-to-end times of the best variant.
template <typename T>
int run_sweep(const Options& o, cudalab::LabRun& run) {
  cudalab::MeasurementTable curve(run.yardsticks(), {false});
  cudalab::Table crossover({{"n", "N"}, {"cpu_ms", "CPU ms"}, {"gpu_kernel_ms", "GPU kernel ms"},
                            {"gpu_end_to_end_ms", "GPU end-to-end ms"}});
  bool all_ok = true;
  const auto bytes = [](std::size_t n) { return 3.0 * static_cast<double>(n) * sizeof(T); };
  for (std::size_t n : run.sweep_sizes(1024, std::size_t{1} << 28, 2, bytes)) {
    const vec_add::Problem<T> p = vec_add::make_problem<T>(n, o.common.seed);
    vec_add::DeviceProblem<T> dev(p, cudalab::Replays::kNotChecked);
    const cudalab::LadderResult ladder = cudalab::run_ladder(run.bench(), dev.rungs(o.variant, o.block));
    all_ok = all_ok && ladder.all_ok;
    curve.add(ladder, {{"n", "N", static_cast<long long>(n)}});
    if (ladder.best < 0) continue;
    const auto e2e = dev.end_to_end(static_cast<std::size_t>(ladder.best), 3);
    crossover.add_row({static_cast<long long>(n), Value(p.cpu_ms, 4), Value(ladder.best_result().timing.median_ms, 4),
                       Value(e2e.median_ms, 4)});
  }
  const int code = cudalab::report_sweep(run.report(), "Bandwidth over N", curve, all_ok);
  run.report().heading("CPU vs GPU over N (best variant; end-to-end includes host<->device copies)");
  run.report().table("crossover", crossover);
  return code;
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("vec_add", "c = a + b on the GPU: every variant checked against the CPU and timed.");
  cli.positional("N", o.n, "number of elements (e.g. 1000000, 64M, 2^28)", 1, std::int64_t{1} << 34);
  cli.variant_option(o.variant, vec_add::variant_names(),
                     cudalab::names_of(vec_add::all_variants(), vec_add::variant_summary));
  cli.option("--block", o.block, "threads per block (a multiple of 32)", 32, 1024);
  cli.option("--type", o.type, "element type", {"float", "int"});
  cli.flag("--sweep", o.sweep, "time every variant over N = 2^10 .. 2^28 instead of one N");
  cli.flag("--l2-sweep", o.l2_sweep, "bandwidth over working sets of 6 .. 384 MB with L2 not flushed (its effective size)");
  cli.add_common(o.common);
  cli.footer("Examples:\n  vec_add 2^28\n  vec_add 1000 --variant naive --block 128\n  vec_add --sweep --json\n  vec_add --l2-sweep");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.sweep && o.l2_sweep) throw cudalab::UsageError("give either --sweep or --l2-sweep, not both");
  if (o.block % 32 != 0) {
    throw cudalab::UsageError("--block " + std::to_string(o.block) + " is not a multiple of the warp size (32)");
  }

  cudalab::LabRun run("vec_add", o.common, o.type, o.block);
  if (o.sweep) return o.type == "int" ? run_sweep<int>(o, run) : run_sweep<float>(o, run);
  if (o.l2_sweep) return vec_add::l2_sweep(run, o.common, o.block);
  run.report().field("n", "N (elements)", o.n);
  run.report().field("bytes_moved", "bytes moved per launch (12 per element)",
                     cudalab::bytes_cell(3.0 * static_cast<double>(o.n) * 4));
  return o.type == "int" ? run_single<int>(o, run) : run_single<float>(o, run);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("vec_add", [&] { return run(argc, argv); });
}
