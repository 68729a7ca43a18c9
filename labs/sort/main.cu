// sort: a bitonic network, a merge sort, radix sorts from a histogram, a scan and a scatter, and the
// one-sweep radix sort, every result checked against the CPU's stable sort and timed against
// cub::DeviceRadixSort in the same run; then whether it pays against std::sort on one core.
//   ./labs/sort                         2^24 uint32 keys, uniform, every variant
//   ./labs/sort 2^28 --type float
//   ./labs/sort 2^26 --pairs            uint32 keys with uint32 values: a stable sort (bitonic left out)
//   ./labs/sort 2^20 --dist reversed --variant radix8
#include <algorithm>
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

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 24;
  std::string variant = "all";
  std::string type = "u32";
  std::string dist = "uniform";
  bool pairs = false;
};

// "Does it pay?": the CPU's std::sort (one core) against the best variant and CUB, kernel only and
// with the copies in and out, as a student's program that starts and ends with the keys in host
// memory pays. Up to 2^24 keys, the default (std::sort of 2^28 keys takes the CPU half a minute).
constexpr std::int64_t kPaysMax = std::int64_t{1} << 24;

void does_it_pay(cudalab::Report& report, sort::Problem& p, const cudalab::LadderResult& result, bool pairs, int repeat) {
  const double cpu = p.cpu_sort_ms();
  const auto& best = result.best_result();
  const cudalab::RungResult* cub = result.baseline();
  const int e2e_repeat = std::min(repeat, 5);
  cudalab::Table t({{"way", "way"}, {"median_ms", "median ms"}, {"speedup", "x CPU"}});
  const auto row = [&](const std::string& way, double ms) { t.add_row({way, Value(ms, 4), Value(cpu / ms, 2)}); };
  row(pairs ? "CPU std::stable_sort, one core" : "CPU std::sort, one core", cpu);
  row("GPU " + best.name + ", kernels only", best.timing.median_ms);
  row("GPU " + best.name + ", with the copies (pageable)", p.end_to_end(best.name, e2e_repeat).median_ms);
  if (cub && cub->result.correct) {
    row("GPU CUB, kernels only", cub->result.timing.median_ms);
    row("GPU CUB, with the copies (pageable)", p.end_to_end("", e2e_repeat).median_ms);
  }
  report.heading("Does it pay? (the keys start and end in host memory)");
  report.table("pays", t);
}

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
  // keys (and values), their base copy (fresh inputs), two ping-pong buffers (the bitonic one
  // padded to a power of two), CUB's output and scratch, the tiles' counts and the one-sweep
  // look-back's state (a byte per key at most); the CPU: the inputs, two answers, the sort's
  // order, the end-to-end copies out and std::sort's copy
  cudalab::require_device_memory((8.0 * per_key + 1.0) * static_cast<double>(n), fmt::format("a sort of {} keys", n));
  cudalab::require_host_memory(6.0 * per_key * static_cast<double>(n) + 12.0 * static_cast<double>(n),
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
  if (result.best >= 0 && n <= kPaysMax) does_it_pay(run.report(), p, result, o.pairs, o.common.repeat);
  return cudalab::ladder_exit_code(result);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("sort", [&] { return run(argc, argv); });
}
