// scan: prefix sums with every step of the ladder, each result checked element by element
// against the CPU and timed against cub::DeviceScan in the same process.
//   ./labs/scan                        all variants, N = 2^26 ints, inclusive
//   ./labs/scan 2^28 --type float --kind exclusive
//   ./labs/scan 2^20 --variant decoupled_lookback
//   ./labs/scan --sweep --json         N = 2^10 .. 2^28
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/ladder.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "common/variants.hpp"
#include "reference.hpp"
#include "scan.hpp"

namespace {

using scan::Kind;
using scan::Variant;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 26;
  std::string variant = "all";
  std::string type = "int";
  std::string kind = "inclusive";
  bool sweep = false;
};

// Checks the output against x (or -x while the second input set is in the buffer).
template <typename T>
bool matches(const std::vector<T>& x, const cudalab::DeviceBuffer<T>& out, Kind kind, const cudalab::InputSets* sets,
             const std::string& name) {
  const std::vector<T> got = out.download();
  const int sign = sets && sets->current() == 1 ? -1 : 1;
  return scan::first_mismatch(x, got.data(), kind, sign, name.c_str()) == x.size();
}

// One rung per variant: poison the output (0x7F bytes: no int prefix of these inputs and no
// finite float sum near them), scan, check every element.
template <typename T>
cudalab::Rung rung(Variant v, Kind kind, const std::vector<T>& x, const cudalab::DeviceBuffer<T>& in,
                   cudalab::DeviceBuffer<T>& out, scan::Workspace<T>& ws, cudalab::InputSets* sets) {
  const auto launches = std::make_shared<int>(0);
  cudalab::Rung r;
  r.name = scan::variant_name(v);
  r.bytes = 2.0 * static_cast<double>(x.size()) * sizeof(T);  // read each element, write each once
  r.poison = [&out] { out.fill_bytes(0x7F); };
  r.launch = [v, kind, &in, &out, &ws, launches] { *launches = scan::scan(v, kind, in.data(), out.data(), in.size(), ws); };
  r.check = [&x, &out, kind, sets, name = r.name] { return matches(x, out, kind, sets, name); };
  r.cells = [launches, v] {
    return std::vector<cudalab::Cell>{{"launches", "launches", *launches},
                                      {"tile", "tile", static_cast<long long>(scan::tile_elements(v))}};
  };
  if (sets) r.refresh = sets->refresh();
  return r;
}

template <typename T>
cudalab::Rung cub_rung(scan::CubScan<T>& cub, Kind kind, const std::vector<T>& x, cudalab::DeviceBuffer<T>& out,
                       cudalab::InputSets* sets) {
  cudalab::Rung r;
  r.name = kind == Kind::kInclusive ? "cub::DeviceScan::InclusiveSum" : "cub::DeviceScan::ExclusiveSum";
  r.baseline = true;
  r.bytes = 2.0 * static_cast<double>(x.size()) * sizeof(T);
  r.poison = [&out] { out.fill_bytes(0x7F); };
  r.launch = [&cub] { cub.run(); };
  r.check = [&x, &out, kind, sets, name = r.name] { return matches(x, out, kind, sets, name); };
  if (sets) r.refresh = sets->refresh();
  return r;
}

// The ladder at one size: every chosen variant and CUB, on x and (alternating per timed launch,
// when `alternate`) -x, so that a kernel that replays an earlier result is caught.
template <typename T>
cudalab::LadderResult run_at(const Options& o, cudalab::Benchmarker& bench, std::size_t n, bool alternate) {
  const Kind kind = o.kind == "inclusive" ? Kind::kInclusive : Kind::kExclusive;
  const std::vector<T> x = scan::make_input<T>(n, o.common.seed);
  cudalab::DeviceBuffer<T> in(x), out(n);
  scan::Workspace<T> ws(n);
  scan::CubScan<T> cub(in.data(), out.data(), n, kind);
  cudalab::InputSets sets;
  cudalab::InputSets* alt = nullptr;
  if (alternate) {
    std::vector<T> negated(n);
    for (std::size_t i = 0; i < n; ++i) negated[i] = static_cast<T>(-x[i]);
    sets.add(in, negated);
    alt = &sets;
  }
  std::vector<cudalab::Rung> rungs;
  for (Variant v : cudalab::select_variants(scan::all_variants(), scan::variant_name, o.variant)) {
    rungs.push_back(rung(v, kind, x, in, out, ws, alt));
  }
  rungs.push_back(cub_rung(cub, kind, x, out, alt));
  return cudalab::run_ladder(bench, rungs);
}

template <typename T>
int run_single(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  const auto n = static_cast<std::size_t>(o.n);
  // input, output, the input's two sets, the workspace
  cudalab::require_device_memory(4.2 * static_cast<double>(n) * sizeof(T), fmt::format("a scan of {} elements", n));
  cudalab::require_host_memory(3.0 * static_cast<double>(n) * sizeof(T), fmt::format("a scan of {} elements", n));
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const cudalab::Yardsticks y = cudalab::measure_yardsticks(bench, facts, report);
  const cudalab::LadderResult ladder = run_at<T>(o, bench, n, true);
  cudalab::report_ladder(report, ladder, y, o.common.repeat, {false, "x CUB"});
  return ladder.all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

template <typename T>
int run_sweep(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const cudalab::Yardsticks y = cudalab::measure_yardsticks(bench, facts, report);
  const auto needed = [](std::size_t n) { return 2.2 * static_cast<double>(n) * sizeof(T); };
  return cudalab::sweep_ladders(report, "Scan over N", y, {false, "x CUB"},
                                cudalab::sweep_sizes(1024, std::size_t{1} << 28, 4, needed),
                                [&](std::size_t n) { return run_at<T>(o, bench, n, false); });
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

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  cudalab::Report report("scan", o.common.json);
  cudalab::report_setup(report, facts, o.type, 0);
  report.field("kind", "scan", o.kind);
  if (o.sweep) return o.type == "int" ? run_sweep<int>(o, facts, report) : run_sweep<float>(o, facts, report);
  report.field("n", "N (elements)", o.n);
  return o.type == "int" ? run_single<int>(o, facts, report) : run_single<float>(o, facts, report);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("scan", [&] { return run(argc, argv); });
}
