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
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/ladder.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "common/variants.hpp"
#include "histogram.hpp"
#include "reference.hpp"

namespace {

using histogram::Dist;
using histogram::Variant;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 26;
  int bins = 256;
  std::string variant = "all";
  std::string type = "u8";
  std::string dist = "uniform";
  bool sweep = false;
};

// One problem: the keys (and the rotated second set, when timed launches alternate), the CPU's
// histograms of both sets, the device bins.
template <typename K>
struct Problem {
  std::vector<K> keys;
  std::vector<unsigned> want[2];
  cudalab::DeviceBuffer<K> in;
  cudalab::DeviceBuffer<unsigned> hist;
  cudalab::InputSets sets;
  bool alternate;
  unsigned bins;

  Problem(const Options& o, std::size_t n, unsigned b, bool alt)
      : keys(histogram::make_keys<K>(n, b, histogram::parse_dist(o.dist), o.common.seed)),
        in(keys),
        hist(b),
        alternate(alt),
        bins(b) {
    want[0] = histogram::cpu_histogram(keys.data(), n, b);
    if (alternate) {
      const std::vector<K> second = histogram::rotated(keys, b);
      want[1] = histogram::cpu_histogram(second.data(), n, b);
      sets.add(in, second);
    }
  }
  double bytes() const { return static_cast<double>(keys.size()) * sizeof(K) + 4.0 * bins; }  // read keys, write bins
  bool matches(const std::string& name) const {
    const std::vector<unsigned> got = hist.download();
    const std::vector<unsigned>& w = want[alternate ? sets.current() : 0];
    return histogram::first_wrong_bin(w, got.data(), name.c_str()) == w.size();
  }
};

// One rung per variant: poison the bins (0x7F bytes), count (the launch zeroes them first), check
// every bin.
template <typename K>
cudalab::Rung rung(Variant v, Problem<K>& p) {
  const histogram::Launch plan = histogram::plan(v, p.in.data(), p.keys.size(), p.bins);
  cudalab::Rung r;
  r.name = histogram::variant_name(v);
  r.bytes = p.bytes();
  r.fallback = plan.fallback;
  r.poison = [&p] { p.hist.fill_bytes(0x7F); };
  r.launch = [v, &p] { histogram::count(v, p.in.data(), p.keys.size(), p.bins, p.hist.data()); };
  r.check = [&p, name = r.name] { return p.matches(name); };
  r.cells = [plan] {
    return std::vector<cudalab::Cell>{{"blocks", "blocks", static_cast<long long>(plan.blocks)},
                                      {"smem_kb", "smem KB", static_cast<double>(plan.smem_bytes) / 1024.0},
                                      {"copies", "copies", static_cast<long long>(plan.copies)},
                                      {"cluster", "cluster", static_cast<long long>(plan.cluster)}};
  };
  if (p.alternate) r.refresh = p.sets.refresh();
  return r;
}

template <typename K>
cudalab::Rung cub_rung(histogram::CubHistogram<K>& cub, Problem<K>& p) {
  cudalab::Rung r;
  r.name = "cub::DeviceHistogram::HistogramEven";
  r.baseline = true;
  r.bytes = p.bytes();
  r.poison = [&p] { p.hist.fill_bytes(0x7F); };
  r.launch = [&cub] { cub.run(); };
  r.check = [&p, name = r.name] { return p.matches(name); };
  if (p.alternate) r.refresh = p.sets.refresh();
  return r;
}

// The ladder for one problem: every chosen variant and CUB.
template <typename K>
cudalab::LadderResult run_at(const Options& o, cudalab::Benchmarker& bench, std::size_t n, unsigned bins, bool alternate) {
  Problem<K> p(o, n, bins, alternate);
  histogram::CubHistogram<K> cub(p.in.data(), n, bins, p.hist.data());
  std::vector<cudalab::Rung> rungs;
  for (Variant v : cudalab::select_variants(histogram::all_variants(), histogram::variant_name, o.variant)) {
    rungs.push_back(rung(v, p));
  }
  rungs.push_back(cub_rung(cub, p));
  return cudalab::run_ladder(bench, rungs);
}

// The memory of N keys (the keys and their two sets on the device; two sets on the host), then
// the counters' limit: a bin holds fewer than 2^32 keys.
void require_memory(std::size_t n, std::size_t key_bytes) {
  const std::string what = fmt::format("a histogram of {} keys", n);
  cudalab::require_device_memory(3.1 * static_cast<double>(n) * static_cast<double>(key_bytes), what);
  cudalab::require_host_memory(2.1 * static_cast<double>(n) * static_cast<double>(key_bytes), what);
  if (n > UINT32_MAX) throw cudalab::UsageError(fmt::format("N = {}: the counts are 32-bit, so N < 2^32", n));
}

template <typename K>
int run_single(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  const auto n = static_cast<std::size_t>(o.n);
  require_memory(n, sizeof(K));
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const cudalab::Yardsticks y = cudalab::measure_yardsticks(bench, facts, report);
  const cudalab::LadderResult ladder = run_at<K>(o, bench, n, static_cast<unsigned>(o.bins), true);
  cudalab::report_ladder(report, ladder, y, o.common.repeat, {false, "x CUB"});
  return ladder.all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

// The ladder over the bins, at one N: where a copy per block, or per warp, stops fitting shared
// memory, and what a cluster buys past that point.
template <typename K>
int run_sweep(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  const auto n = static_cast<std::size_t>(o.n);
  require_memory(n, sizeof(K));
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const cudalab::Yardsticks y = cudalab::measure_yardsticks(bench, facts, report);
  std::vector<std::size_t> bins;
  for (std::size_t b : {2u, 16u, 256u, 1024u, 4096u, 16384u, 32768u, 65536u}) {
    if (b <= histogram::key_range<K>(histogram::kMaxBins)) bins.push_back(b);
  }
  return cudalab::sweep_ladders(
      report, "Histogram over the bins", y, {false, "x CUB"}, bins,
      [&](std::size_t b) { return run_at<K>(o, bench, n, static_cast<unsigned>(b), false); }, {"bins", "bins"});
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

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  cudalab::Report report("histogram", o.common.json);
  cudalab::report_setup(report, facts, o.type, 256);
  report.field("dist", "distribution", o.dist);
  report.field("n", "N (keys)", o.n);
  if (o.sweep) return u8 ? run_sweep<unsigned char>(o, facts, report) : run_sweep<unsigned>(o, facts, report);
  report.field("bins", "bins", static_cast<long long>(o.bins));
  return u8 ? run_single<unsigned char>(o, facts, report) : run_single<unsigned>(o, facts, report);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("histogram", [&] { return run(argc, argv); });
}
