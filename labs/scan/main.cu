// scan: prefix sums with every step of the ladder, each result checked element by element
// against the CPU and timed against cub::DeviceScan in the same process.
//   ./labs/scan                        all variants, N = 2^26 ints, inclusive
//   ./labs/scan 2^28 --type float --kind exclusive
//   ./labs/scan 2^20 --variant decoupled_lookback
//   ./labs/scan --sweep --json         N = 2^10 .. 2^28
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "common/variants.hpp"
#include "problem.hpp"
#include "scan.hpp"

namespace {

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 26;
  std::string variant = "all";
  std::string type = "int";
  std::string kind = "inclusive";
  bool sweep = false;
};

template <typename T>
int run_as(const Options& o, cudalab::LabRun& run) {
  const scan::Kind kind = o.kind == "inclusive" ? scan::Kind::kInclusive : scan::Kind::kExclusive;
  if (o.sweep) {
    const auto needed = [](std::size_t n) { return 2.2 * static_cast<double>(n) * sizeof(T); };
    return run.sweep("Scan over N", run.sweep_sizes(1024, std::size_t{1} << 28, 4, needed), [&](std::size_t n) {
      scan::Problem<T> p(n, kind, o.common.seed, cudalab::Replays::kNotChecked);
      return cudalab::run_ladder(run.bench(), p.rungs(o.variant));
    }, {false, "x CUB"});
  }
  const auto n = static_cast<std::size_t>(o.n);
  // input, output, the input's two sets, the workspace
  cudalab::require_device_memory(4.2 * static_cast<double>(n) * sizeof(T), fmt::format("a scan of {} elements", n));
  cudalab::require_host_memory(3.0 * static_cast<double>(n) * sizeof(T), fmt::format("a scan of {} elements", n));
  run.yardsticks();
  scan::Problem<T> p(n, kind, o.common.seed, cudalab::Replays::kCaught);
  return run.ladder(p.rungs(o.variant), {false, "x CUB"});
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("scan", "Prefix sums: block scans, scan-then-propagate and the single-pass look-back, checked and "
                           "timed against CUB.");
  cli.positional("N", o.n, "number of elements (e.g. 1000000, 64M, 2^28)", 1, std::int64_t{1} << 34);
  cli.variant_option(o.variant, scan::variant_names(), cudalab::names_of(scan::all_variants(), scan::variant_summary));
  cli.option("--type", o.type, "element type", {"int", "float"});
  cli.option("--kind", o.kind, "inclusive (out[i] includes in[i]) or exclusive", {"inclusive", "exclusive"});
  cli.flag("--sweep", o.sweep, "time the variants and CUB over N = 2^10 .. 2^28");
  cli.add_common(o.common);
  cli.footer("Examples:\n  scan 2^28\n  scan 2^20 --variant decoupled_lookback --type float --kind exclusive\n"
             "  scan --sweep --json");
  if (auto code = cli.parse(argc, argv)) return *code;

  cudalab::LabRun run("scan", o.common, o.type);
  run.report().field("kind", "scan", o.kind);
  if (!o.sweep) run.report().field("n", "N (elements)", o.n);
  return o.type == "int" ? run_as<int>(o, run) : run_as<float>(o, run);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("scan", [&] { return run(argc, argv); });
}
