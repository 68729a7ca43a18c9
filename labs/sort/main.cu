// sort: radix sort from a histogram, a scan and a scatter, and a bitonic network, every result
// checked against the CPU's stable sort and timed against cub::DeviceRadixSort in the same run.
//   ./labs/sort                         2^24 uint32 keys, uniform, every variant
//   ./labs/sort 2^28 --type float
//   ./labs/sort 2^26 --pairs            uint32 keys with uint32 values: a stable sort (bitonic left out)
//   ./labs/sort 2^20 --dist reversed --variant radix8
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "common/variants.hpp"
#include "problem.hpp"
#include "sort.hpp"

namespace {

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 24;
  std::string variant = "all";
  std::string type = "u32";
  std::string dist = "uniform";
  bool pairs = false;
};

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("sort", "Sorting: a bitonic network and LSD radix sorts (histogram, scan, stable scatter), checked "
                           "and timed against CUB.");
  cli.positional("N", o.n, "number of keys (e.g. 1000000, 16M, 2^28)", 1, std::int64_t{1} << 32);
  cli.variant_option(o.variant, sort::variant_names(), cudalab::names_of(sort::all_variants(), sort::variant_summary));
  cli.option("--type", o.type, "key type", {"u32", "float"});
  cli.option("--dist", o.dist, "the keys: uniform, already sorted, reversed, all equal, or 16 distinct values",
             {"uniform", "sorted", "reversed", "equal", "few"});
  cli.flag("--pairs", o.pairs, "uint32 values beside uint32 keys: a stable sort of pairs");
  cli.add_common(o.common);
  cli.footer("Examples:\n  sort 2^28\n  sort 2^28 --type float\n  sort 2^26 --pairs\n  sort 2^20 --dist reversed --variant radix8");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.pairs && o.type != "u32") throw cudalab::UsageError("--pairs sorts uint32 keys: give no --type float");
  sort::Variant chosen{};
  if (o.pairs && sort::parse_variant(o.variant, &chosen) && !sort::is_stable(chosen)) {
    throw cudalab::UsageError(fmt::format("--variant {} is not stable: it sorts keys only, not --pairs", o.variant));
  }
  const sort::KeyType t = o.type == "float" ? sort::KeyType::kFloat : sort::KeyType::kU32;
  const sort::Dist d = o.dist == "sorted"     ? sort::Dist::kSorted
                       : o.dist == "reversed" ? sort::Dist::kReversed
                       : o.dist == "equal"    ? sort::Dist::kEqual
                       : o.dist == "few"      ? sort::Dist::kFew
                                              : sort::Dist::kUniform;
  const auto n = static_cast<std::size_t>(o.n);

  cudalab::LabRun run("sort", o.common, o.type);
  const double per_key = o.pairs ? 8.0 : 4.0;
  // keys (and values), their second set, two ping-pong buffers (the bitonic one padded to a power
  // of two), CUB's output and scratch, the tiles' counts and the one-sweep look-back's state (a
  // byte per key at most); the CPU: the inputs, two answers, the sort's order
  cudalab::require_device_memory((8.0 * per_key + 1.0) * static_cast<double>(n), fmt::format("a sort of {} keys", n));
  cudalab::require_host_memory(4.0 * per_key * static_cast<double>(n) + 12.0 * static_cast<double>(n),
                               fmt::format("a sort of {} keys", n));
  run.report().field("n", "N (keys)", o.n);
  run.report().field("pairs", "uint32 values beside the keys", o.pairs);
  run.report().field("dist", "keys", o.dist);
  run.yardsticks();
  sort::Problem p(n, t, o.pairs, d, o.common.seed, cudalab::Replays::kCaught);
  const std::string baseline = o.pairs ? "x SortPairs" : "x SortKeys";
  const double keys = static_cast<double>(n);
  cudalab::LadderResult result = cudalab::run_ladder(run.bench(), p.rungs(o.variant));
  for (auto& r : result.rungs) {
    const double ms = r.result.timing.median_ms;
    r.cells.push_back({"gkeys_per_s", "G keys/s", r.result.correct && ms > 0 ? cudalab::Value(keys / (ms * 1e6), 2)
                                                                            : cudalab::Value()});
  }
  cudalab::report_ladder(run.report(), result, run.yardsticks(), o.common.repeat, {false, baseline});
  return cudalab::ladder_exit_code(result);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("sort", [&] { return run(argc, argv); });
}
