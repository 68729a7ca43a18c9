// reduction: sum an array with every step of the ladder, check each against the CPU, time
// each against cub::DeviceReduce::Sum in the same process.
//   ./labs/reduction                      all variants, N = 2^26 floats
//   ./labs/reduction 2^28 --type int
//   ./labs/reduction 2^20 --variant single_pass
//   ./labs/reduction --sweep --json       N = 2^10 .. 2^28
#include <cstdint>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "common/variants.hpp"
#include "problem.hpp"
#include "reduction.hpp"

namespace {

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 26;
  std::string variant = "all";
  std::string type = "float";
  int block = 256;
  bool sweep = false;
};

template <typename T>
int run_as(const Options& o, cudalab::LabRun& run) {
  const long long resident = run.facts().max_resident_threads();
  if (o.sweep) {
    const auto needed = [](std::size_t n) { return 2.2 * static_cast<double>(n) * sizeof(T); };
    return run.sweep("Sum over N", run.sweep_sizes(1024, std::size_t{1} << 28, 4, needed), [&](std::size_t n) {
      reduction::Problem<T> p(n, o.common.seed, resident, o.block, cudalab::Replays::kNotChecked);
      return cudalab::run_ladder(run.bench(), p.rungs(o.variant, false));
    }, {false, "x CUB"});
  }
  const auto n = static_cast<std::size_t>(o.n);
  // the input, the workspace, and two more contents of the input for the timed launches
  cudalab::require_device_memory(4.2 * static_cast<double>(n) * sizeof(T), fmt::format("a reduction of {} elements", n));
  run.yardsticks();
  reduction::Problem<T> p(n, o.common.seed, resident, o.block, cudalab::Replays::kCaught);
  const reduction::Expected<T>& want = p.expected();
  run.report().field("expected", "exact sum (CPU)",
                     std::is_integral_v<T> ? Value(static_cast<long long>(want.exact)) : Value(want.value, 4));
  if constexpr (std::is_floating_point_v<T>) {
    run.report().field("tolerance", "accepted |error| (rounding bound)", Value(want.tolerance, 4));
  }
  return run.ladder(p.rungs(o.variant, true), {false, "x CUB"});
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("reduction", "Parallel sum: the classic optimisation ladder, checked and timed against CUB.");
  cli.positional("N", o.n, "number of elements (e.g. 1000000, 64M, 2^28)", 1, std::int64_t{1} << 34);
  cli.variant_option(o.variant, reduction::variant_names(),
                     cudalab::names_of(reduction::all_variants(), reduction::variant_summary));
  cli.option("--type", o.type, "element type", {"float", "int"});
  cli.option("--block", o.block, "threads per block: 64, 128, 256, 512 or 1024", 64, 1024);
  cli.flag("--sweep", o.sweep, "time the variants and CUB over N = 2^10 .. 2^28");
  cli.add_common(o.common);
  cli.footer("Examples:\n  reduction 2^28\n  reduction 2^20 --variant single_pass --type int\n  reduction --sweep --json");
  if (auto code = cli.parse(argc, argv)) return *code;
  if ((o.block & (o.block - 1)) != 0) throw cudalab::UsageError(fmt::format("--block {} is not a power of two", o.block));

  cudalab::LabRun run("reduction", o.common, o.type, o.block);
  if (!o.sweep) run.report().field("n", "N (elements)", o.n);
  return o.type == "int" ? run_as<int>(o, run) : run_as<float>(o, run);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("reduction", [&] { return run(argc, argv); });
}
