// scan: prefix sums with every step of the ladder, each result checked element by element
// against the CPU and timed against cub::DeviceScan in the same process.
//   ./labs/scan                        all variants, N = 2^26 ints, inclusive
//   ./labs/scan 2^28 --type float --kind exclusive
//   ./labs/scan 2^20 --variant decoupled_lookback
//   ./labs/scan --sweep --json         N = 2^10 .. 2^28
//   ./labs/scan 2^28 --compact single_pass   then stream compaction (keep the x > 0) against CUB
#include <cstdint>
#include <string>
#include <vector>

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
  std::string compact = "all";
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
  // input, output, the input's two sets, the workspace (compaction: the flags too, after the scan)
  cudalab::require_device_memory(4.2 * static_cast<double>(n) * sizeof(T), fmt::format("a scan of {} elements", n));
  cudalab::require_host_memory(3.0 * static_cast<double>(n) * sizeof(T), fmt::format("a scan of {} elements", n));
  run.yardsticks();
  int code = cudalab::kExitSuccess;
  {
    scan::Problem<T> p(n, kind, o.common.seed, cudalab::Replays::kCaught);
    code = run.ladder(p.rungs(o.variant), {false, "x CUB"});
  }
  if (o.compact == "none") return code;
  if (n > scan::compaction::kMaxN) {
    run.report().note("  stream compaction: not run (N is 2^32 or more; its counts are 32-bit)");
    return code;
  }
  scan::CompactionProblem<T> c(n, o.common.seed, cudalab::Replays::kCaught);
  double best_over_cub = 0;
  const auto ratio = [&best_over_cub](cudalab::LadderResult& r) {
    double cub_ms = 0, best_ms = 0;
    for (const auto& rung : r.rungs) {
      if (!rung.result.correct) continue;
      if (rung.baseline) cub_ms = rung.result.timing.median_ms;
      else if (best_ms == 0 || rung.result.timing.median_ms < best_ms) best_ms = rung.result.timing.median_ms;
    }
    best_over_cub = cub_ms > 0 && best_ms > 0 ? cub_ms / best_ms : 0;
  };
  cudalab::Section s;
  s.key = "compaction";
  s.heading = fmt::format("Stream compaction: keep the x > 0 of the same N, in order ({} kept; GB/s: N read, the kept written)",
                          c.kept());
  s.shape = {false, "x CUB"};
  s.after = ratio;
  const int compacted = run.section(s, c.rungs(o.compact));
  if (best_over_cub > 0) {
    run.report().field("compaction_best_over_cub", "best compaction / cub::DeviceSelect::If", cudalab::Value(best_over_cub, 3), "x");
  }
  return code != cudalab::kExitSuccess ? code : compacted;
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("scan", "Prefix sums: block scans, scan-then-propagate and the single-pass look-back, checked and "
                           "timed against CUB.");
  cli.positional("N", o.n, "number of elements (e.g. 1000000, 64M, 2^28)", 1, std::int64_t{1} << 34);
  cli.variant_option(o.variant, scan::variant_names(), cudalab::names_of(scan::all_variants(), scan::variant_summary));
  cli.option("--type", o.type, "element type", {"int", "float"});
  cli.option("--kind", o.kind, "inclusive (out[i] includes in[i]) or exclusive", {"inclusive", "exclusive"});
  std::vector<std::string> compact_choices{"all", "none"};
  for (const auto& name : scan::compaction::variant_names()) compact_choices.push_back(name);
  cli.option("--compact", o.compact, "stream compaction after the scan (keep the x > 0): which variant", compact_choices);
  cli.flag("--sweep", o.sweep, "time the variants and CUB over N = 2^10 .. 2^28");
  cli.add_common(o.common);
  cli.footer("Examples:\n  scan 2^28\n  scan 2^20 --variant decoupled_lookback --type float --kind exclusive\n"
             "  scan --sweep --json\n  scan 2^28 --compact none");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.sweep && cli.given("--compact")) throw cudalab::UsageError("--compact runs after a single scan, not in --sweep");

  cudalab::LabRun run("scan", o.common, o.type);
  run.report().field("kind", "scan", o.kind);
  if (!o.sweep) run.report().field("n", "N (elements)", o.n);
  return o.type == "int" ? run_as<int>(o, run) : run_as<float>(o, run);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("scan", [&] { return run(argc, argv); });
}
