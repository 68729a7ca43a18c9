// reduction: sum an array with every step of the ladder, check each against the CPU, time
// each against cub::DeviceReduce::Sum in the same process.
//   ./labs/reduction                      all variants, N = 2^26 floats
//   ./labs/reduction 2^28 --type int
//   ./labs/reduction 2^20 --variant single_pass
//   ./labs/reduction --sweep --json       N = 2^10 .. 2^28
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/lab_main.hpp"
#include "common/random.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "common/variants.hpp"
#include "reduction.hpp"

namespace {

using cudalab::Value;
using reduction::Variant;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 26;
  std::string variant = "all";
  std::string type = "float";
  int block = 256;
  bool sweep = false;
};

template <typename T>
std::vector<T> make_input(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_floating_point_v<T>) return cudalab::random_vector<T>(n, seed, T(-1), T(1));
  else return cudalab::random_vector<T>(n, seed, T(-100), T(100));
}

// The exact answer and what counts as correct.
//  int: the sum modulo 2^32. Two's-complement addition is associative, so every order of
//       additions gives exactly this value, even where partial sums wrap.
//  float: the sum in double precision. A float result that went through at most k roundings
//       per element is within k * 2^-24 * sum|x| of it. Here k <= max(ceil(n / R), 16) + 128:
//       each thread adds at most max(n / R, 16) elements in sequence (R = the GPU's resident
//       threads, the smallest grid any variant uses at large n), and the trees of all passes
//       add at most 128 more levels.
template <typename T>
struct Expected {
  T exact{};
  double value = 0, tolerance = 0;
};

template <typename T>
Expected<T> expected_sum(const std::vector<T>& x, long long resident_threads) {
  Expected<T> e;
  if constexpr (std::is_integral_v<T>) {
    std::uint32_t s = 0;
    for (T v : x) s += static_cast<std::uint32_t>(v);
    std::int32_t wrapped;
    std::memcpy(&wrapped, &s, sizeof s);
    e.exact = wrapped;
    e.value = wrapped;
  } else {
    double s = 0, abs = 0;
    for (T v : x) {
      s += v;
      abs += std::fabs(v);
    }
    const double n = static_cast<double>(x.size());
    const double k = std::max(std::ceil(n / static_cast<double>(resident_threads)), 16.0) + 128.0;
    e.value = s;
    e.tolerance = k * std::ldexp(1.0, -24) * abs;
  }
  return e;
}

template <typename T>
bool matches(const Expected<T>& e, T got) {
  if constexpr (std::is_integral_v<T>) return got == e.exact;
  else return std::isfinite(got) && std::fabs(static_cast<double>(got) - e.value) <= e.tolerance;
}

template <typename T>
T read_result(const T* device) {
  T v{};
  CUDA_CHECK(cudaMemcpy(&v, device, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

std::vector<Variant> chosen(const Options& o) {
  return cudalab::select_variants(reduction::all_variants(), reduction::variant_name, o.variant);
}

template <typename T>
int run_single(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  const auto n = static_cast<std::size_t>(o.n);
  cudalab::require_device_memory(2.2 * static_cast<double>(n) * sizeof(T), fmt::format("a reduction of {} elements", n));
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const auto ceiling = cudalab::measure_copy_ceiling(bench);
  report.field("copy_gbps", "copy ceiling (cudaMemcpy D2D, measured)", Value(ceiling.gbps, 0), "GB/s");

  const std::vector<T> x = make_input<T>(n, o.common.seed);
  const Expected<T> want = expected_sum(x, facts.max_resident_threads());
  report.field("expected", "exact sum (CPU)", std::is_integral_v<T> ? Value(static_cast<long long>(want.exact)) : Value(want.value, 4));
  if constexpr (std::is_floating_point_v<T>) {
    report.field("tolerance", "accepted |error| (rounding bound)", Value(want.tolerance, 4));
  }
  cudalab::DeviceBuffer<T> d_x(x);
  reduction::Workspace<T> ws(n);

  // CUB in the same process: the baseline.
  cudalab::DeviceBuffer<T> cub_out(1);
  reduction::CubSum<T> cub(d_x.data(), n, cub_out.data());
  cub.run();
  const T cub_value = read_result(cub_out.data());
  const cudalab::Timing cub_time = bench.run([&] { cub.run(); });

  bool all_ok = matches(want, cub_value);
  cudalab::Table t({{"variant", "variant"}, {"passes", "launches"}, {"median_ms", "median ms"}, {"gbps", "GB/s"},
                    {"percent_of_peak", "% peak"}, {"percent_of_copy", "% copy"}, {"speedup", "x first"},
                    {"vs_cub", "x CUB"}, {"reproducible", "reproducible"}, {"correct", "ok"}});
  const double bytes = static_cast<double>(n) * sizeof(T);
  double first_ms = 0, best_gbps = 0;
  std::string best;
  std::vector<std::string> cold;
  for (Variant v : chosen(o)) {
    // The notes compared a cold first launch (module loading included) with a warm one; show
    // the first launch of each of the notes' kernels separately, then time warm launches.
    double first_launch_ms = -1;
    if (v == Variant::kGmemNotes || v == Variant::kSmemNotes) {
      cudalab::EventTimer cold_timer;
      cold_timer.start();
      reduction::reduce(v, d_x.data(), n, o.block, ws);
      cold_timer.stop();
      first_launch_ms = cold_timer.elapsed_ms();
    }
    CUDA_CHECK(cudaMemset(ws.result(), 0xFF, sizeof(T)));
    const int passes = reduction::reduce(v, d_x.data(), n, o.block, ws);
    const T got = read_result(ws.result());
    const bool ok = matches(want, got);
    if (!ok) {
      std::fprintf(stderr, "reduction: %s gave %s, expected %s\n", reduction::variant_name(v).c_str(),
                   fmt::format("{}", got).c_str(), fmt::format("{}", want.value).c_str());
    }
    all_ok = all_ok && ok;
    bool same = true;
    for (int r = 0; r < 3; ++r) {
      reduction::reduce(v, d_x.data(), n, o.block, ws);
      const T again = read_result(ws.result());
      same = same && std::memcmp(&again, &got, sizeof(T)) == 0;
    }
    const cudalab::Timing timing = bench.run([&] { reduction::reduce(v, d_x.data(), n, o.block, ws); });
    if (first_ms == 0) first_ms = timing.median_ms;
    if (first_launch_ms >= 0) {
      cold.push_back(fmt::format("{}: first launch {:.3f} ms, warm median {:.4f} ms", reduction::variant_name(v),
                                 first_launch_ms, timing.median_ms));
    }
    const double g = cudalab::gbps(bytes, timing.median_ms);
    if (ok && g > best_gbps) {
      best_gbps = g;
      best = reduction::variant_name(v);
    }
    t.add_row({reduction::variant_name(v), passes, Value(timing.median_ms, 4), Value(g, 0),
               Value(cudalab::percent(g, facts.theoretical_bandwidth_gbps()), 1), Value(cudalab::percent(g, ceiling.gbps), 1),
               Value(first_ms / timing.median_ms, 2), Value(cub_time.median_ms / timing.median_ms, 3),
               fmt::format("{} ({})", reduction::reproducible(v) ? "claimed" : "no claim", same ? "same x4" : "DIFFERED"),
               ok ? "yes" : "NO"});
    if (reduction::reproducible(v) && !same) {
      all_ok = false;
      std::fprintf(stderr, "reduction: %s claims bitwise reproducibility but its results differed\n",
                   reduction::variant_name(v).c_str());
    }
  }
  const double cub_gbps = cudalab::gbps(bytes, cub_time.median_ms);
  t.add_row({"cub::DeviceReduce::Sum", "-", Value(cub_time.median_ms, 4), Value(cub_gbps, 0),
             Value(cudalab::percent(cub_gbps, facts.theoretical_bandwidth_gbps()), 1),
             Value(cudalab::percent(cub_gbps, ceiling.gbps), 1), Value(first_ms / cub_time.median_ms, 2), Value(1.0, 3), "-",
             matches(want, cub_value) ? "yes" : "NO"});
  report.heading(fmt::format("Sum of {} {}s: median of {} launches (4 bytes read per element)", n, o.type, o.common.repeat));
  report.table("variants", t);
  for (const auto& line : cold) report.note("  " + line);
  if (!best.empty()) {
    report.field("best_variant", "best variant", best);
    report.field("best_vs_cub", "best throughput / CUB's", Value(best_gbps / cub_gbps, 3), "x");
  }
  return all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

template <typename T>
int run_sweep(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  cudalab::Table t({{"n", "N"}, {"variant", "variant"}, {"median_us", "median us"}, {"gbps", "GB/s"}, {"vs_cub", "x CUB"},
                    {"correct", "ok"}});
  bool all_ok = true;
  for (std::size_t n = 1024; n <= (std::size_t{1} << 28); n *= 4) {
    if (2.5 * static_cast<double>(n) * sizeof(T) > 0.8 * static_cast<double>(free_bytes)) break;
    const std::vector<T> x = make_input<T>(n, o.common.seed);
    const Expected<T> want = expected_sum(x, facts.max_resident_threads());
    cudalab::DeviceBuffer<T> d_x(x), cub_out(1);
    reduction::Workspace<T> ws(n);
    reduction::CubSum<T> cub(d_x.data(), n, cub_out.data());
    const auto cub_time = bench.run([&] { cub.run(); });
    const bool cub_ok = matches(want, read_result(cub_out.data()));
    all_ok = all_ok && cub_ok;
    const double bytes = static_cast<double>(n) * sizeof(T);
    t.add_row({static_cast<long long>(n), "cub::DeviceReduce::Sum", Value(cub_time.median_ms * 1e3, 2),
               Value(cudalab::gbps(bytes, cub_time.median_ms), 0), Value(1.0, 3), cub_ok ? "yes" : "NO"});
    for (Variant v : chosen(o)) {
      reduction::reduce(v, d_x.data(), n, o.block, ws);
      const bool ok = matches(want, read_result(ws.result()));
      all_ok = all_ok && ok;
      const auto timing = bench.run([&] { reduction::reduce(v, d_x.data(), n, o.block, ws); });
      t.add_row({static_cast<long long>(n), reduction::variant_name(v), Value(timing.median_ms * 1e3, 2),
                 Value(cudalab::gbps(bytes, timing.median_ms), 0), Value(cub_time.median_ms / timing.median_ms, 3),
                 ok ? "yes" : "NO"});
    }
  }
  report.heading("Sum over N");
  report.table("sweep", t);
  return all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("reduction", "Parallel sum: the classic optimisation ladder, checked and timed against CUB.");
  cli.positional("N", o.n, "number of elements (e.g. 1000000, 64M, 2^28)", 1, std::int64_t{1} << 34);
  cli.variant_option(o.variant, reduction::variant_names());
  cli.option("--type", o.type, "element type", {"float", "int"});
  cli.option("--block", o.block, "threads per block: 64, 128, 256, 512 or 1024", 64, 1024);
  cli.flag("--sweep", o.sweep, "time the variants and CUB over N = 2^10 .. 2^28");
  cli.add_common(o.common);
  cli.footer("Examples:\n  reduction 2^28\n  reduction 2^20 --variant single_pass --type int\n  reduction --sweep --json");
  if (auto code = cli.parse(argc, argv)) return *code;
  if ((o.block & (o.block - 1)) != 0) throw cudalab::UsageError(fmt::format("--block {} is not a power of two", o.block));

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  cudalab::Report report("reduction", o.common.json);
  report.field("device", "device", facts.name);
  report.field("type", "element type", o.type);
  report.field("block", "threads per block", o.block);
  report.field("peak_gbps", "theoretical DRAM bandwidth", Value(facts.theoretical_bandwidth_gbps(), 0), "GB/s");
  if (o.sweep) return o.type == "int" ? run_sweep<int>(o, facts, report) : run_sweep<float>(o, facts, report);
  report.field("n", "N (elements)", o.n);
  return o.type == "int" ? run_single<int>(o, facts, report) : run_single<float>(o, facts, report);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("reduction", [&] { return run(argc, argv); });
}
