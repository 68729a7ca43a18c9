// histogram: counts of keys in even bins with every step of the ladder, each result checked bin
// by bin against the CPU and timed against cub::DeviceHistogram in the same process.
//   ./labs/histogram                               all variants, N = 2^26 uint8 keys, 256 bins, uniform
//   ./labs/histogram 2^28 --dist one
//   ./labs/histogram 2^28 --type u32 --bins 65536
//   ./labs/histogram 2^26 --type u32 --sweep       bins = 2 .. 65,536
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "common/variants.hpp"
#include "histogram.hpp"
#include "problem.hpp"

namespace {

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 26;
  int bins = 256;
  std::string variant = "all";
  std::string type = "u8";
  std::string dist = "uniform";
  bool sweep = false;
};

// The memory of N keys (the keys and their two sets on the device; two sets on the host), then
// the counters' limit: a bin holds fewer than 2^32 keys.
void require_memory(std::size_t n, std::size_t key_bytes) {
  const std::string what = fmt::format("a histogram of {} keys", n);
  cudalab::require_device_memory(3.1 * static_cast<double>(n) * static_cast<double>(key_bytes), what);
  cudalab::require_host_memory(2.1 * static_cast<double>(n) * static_cast<double>(key_bytes), what);
  if (n > UINT32_MAX) throw cudalab::UsageError(fmt::format("N = {}: the counts are 32-bit, so N < 2^32", n));
}

// One ladder at --bins, or (--sweep) the ladder over the bins at one N: where a copy per block,
// or per warp, stops fitting shared memory, and what a cluster buys past that point.
template <typename K>
int run_as(const Options& o, cudalab::LabRun& run) {
  const auto n = static_cast<std::size_t>(o.n);
  const histogram::Dist dist = histogram::parse_dist(o.dist);
  require_memory(n, sizeof(K));
  run.yardsticks();
  if (!o.sweep) {
    histogram::Problem<K> p(n, static_cast<unsigned>(o.bins), dist, o.common.seed, cudalab::Replays::kCaught);
    return run.ladder(p.rungs(o.variant), {false, "x CUB"});
  }
  std::vector<std::size_t> bins;
  for (std::size_t b : {2u, 16u, 256u, 1024u, 4096u, 16384u, 32768u, 65536u}) {
    if (b <= histogram::key_range<K>(histogram::kMaxBins)) bins.push_back(b);
  }
  return run.sweep("Histogram over the bins", bins, [&](std::size_t b) {
    histogram::Problem<K> p(n, static_cast<unsigned>(b), dist, o.common.seed, cudalab::Replays::kNotChecked);
    return cudalab::run_ladder(run.bench(), p.rungs(o.variant));
  }, {false, "x CUB"}, {"bins", "bins"});
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("histogram", "Histograms: global atomics, privatized copies per block and per warp, warp-aggregated "
                                "atomics, runs in registers and a cluster's shared memory, checked and timed against "
                                "CUB.");
  cli.positional("N", o.n, "number of keys (e.g. 1000000, 64M, 2^28; below 2^32: the counts are 32-bit)", 1,
                 std::int64_t{1} << 36);
  cli.variant_option(o.variant, histogram::variant_names(),
                     cudalab::names_of(histogram::all_variants(), histogram::variant_summary));
  cli.option("--bins", o.bins, "number of bins (2 .. 256 for u8 keys, 2 .. 65536 for u32)", 2, 65536);
  cli.option("--type", o.type, "key type: u8 (bins over 0..255) or u32 (the key is its bin)", {"u8", "u32"});
  cli.option("--dist", o.dist, "key distribution: uniform, skewed (Zipf-like) or one (every key the same)",
             histogram::dist_names());
  cli.flag("--sweep", o.sweep, "time the variants and CUB over bins = 2 .. 65536 (u32; up to 256 for u8)");
  cli.add_common(o.common);
  cli.footer("Examples:\n  histogram 2^28\n  histogram 2^28 --dist one\n  histogram 2^28 --type u32 --bins 65536\n"
             "  histogram 2^26 --type u32 --sweep --json");
  if (auto code = cli.parse(argc, argv)) return *code;
  const bool u8 = o.type == "u8";
  if (u8 && o.bins > 256) {
    throw cudalab::UsageError(fmt::format("--bins {}: u8 keys have 256 values, so at most 256 bins", o.bins));
  }
  if (o.sweep && o.bins != 256) throw cudalab::UsageError("--sweep chooses the bins itself: leave out --bins");

  cudalab::LabRun run("histogram", o.common, o.type, 256);
  run.report().field("dist", "distribution", o.dist);
  run.report().field("n", "N (keys)", o.n);
  if (!o.sweep) run.report().field("bins", "bins", static_cast<long long>(o.bins));
  return u8 ? run_as<unsigned char>(o, run) : run_as<unsigned>(o, run);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("histogram", [&] { return run(argc, argv); });
}
