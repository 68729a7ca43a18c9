// reduction: sum an array with every step of the ladder, check each against the CPU, time
// each against cub::DeviceReduce::Sum in the same process.
//   ./labs/reduction                      all variants, N = 2^26 floats
//   ./labs/reduction 2^28 --type int
//   ./labs/reduction 2^20 --variant single_pass
//   ./labs/reduction --sweep --json       N = 2^10 .. 2^28
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
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
#include "reduction.hpp"
#include "reference.hpp"

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
T read_result(const T* device) {
  T v{};
  CUDA_CHECK(cudaMemcpy(&v, device, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

std::vector<Variant> chosen(const Options& o) {
  return cudalab::select_variants(reduction::all_variants(), reduction::variant_name, o.variant);
}

// One rung per variant: poison the result, reduce, compare with the CPU and run three more
// times (a variant that claims bitwise reproducibility must give the same bits every time).
// Its cells: the launches it took and whether its four results were bitwise the same.
template <typename T>
cudalab::Rung rung(Variant v, const cudalab::DeviceBuffer<T>& x, int block, reduction::Workspace<T>& ws,
                   const reduction::Expected<T>& want_first, const reduction::Expected<T>* want_second = nullptr,
                   cudalab::InputSets* sets = nullptr) {
  struct Seen {
    int passes = 0;
    bool same_bits = true;
  };
  const auto seen = std::make_shared<Seen>();
  const reduction::Traits& traits = reduction::traits(v);
  cudalab::Rung r;
  r.name = reduction::variant_name(v);
  r.bytes = static_cast<double>(x.size()) * sizeof(T);
  r.flops = std::is_floating_point_v<T> ? static_cast<double>(x.size()) : 0.0;  // one add per element
  r.time_first_launch = traits.cold_launch_timed;
  r.poison = [&ws] { CUDA_CHECK(cudaMemset(ws.result(), 0xFF, sizeof(T))); };
  r.launch = [v, &x, block, &ws, seen] { seen->passes = reduction::reduce(v, x.data(), x.size(), block, ws); };
  r.check = [v, &x, block, &ws, &want_first, want_second, sets, seen, &traits] {
    const reduction::Expected<T>& want = sets && sets->current() == 1 ? *want_second : want_first;
    const T got = read_result(ws.result());
    const bool ok = reduction::matches(want, got);
    if (!ok) {
      std::fprintf(stderr, "reduction: %s gave %s, expected %s\n", reduction::variant_name(v).c_str(),
                   fmt::format("{}", got).c_str(), fmt::format("{}", want.value).c_str());
    }
    bool same = true;
    for (int k = 0; k < 3; ++k) {
      reduction::reduce(v, x.data(), x.size(), block, ws);
      const T again = read_result(ws.result());
      same = same && std::memcmp(&again, &got, sizeof(T)) == 0;
    }
    seen->same_bits = same;
    if (traits.reproducible && !same) {
      std::fprintf(stderr, "reduction: %s claims bitwise reproducibility but its results differed\n",
                   reduction::variant_name(v).c_str());
    }
    return ok && (same || !traits.reproducible);
  };
  r.cells = [seen, &traits] {
    return std::vector<cudalab::Cell>{
        {"launches", "launches", seen->passes},
        {"reproducible_claimed", "claims", Value::shown(traits.reproducible, traits.reproducible ? "same bits" : "none")},
        {"same_bits_x4", "same x4", Value::shown(seen->same_bits, seen->same_bits ? "yes" : "DIFFERED")}};
  };
  r.fallback = reduction::fallback(v, x.data());
  if (sets) r.refresh = sets->refresh();
  return r;
}

// cub::DeviceReduce::Sum on the same input: the baseline, checked and timed as a rung (with the
// same two inputs as the variants, when they alternate).
template <typename T>
cudalab::Rung cub_rung(reduction::CubSum<T>& cub, cudalab::DeviceBuffer<T>& out, std::size_t n,
                       const reduction::Expected<T>& want_first, const reduction::Expected<T>* want_second = nullptr,
                       cudalab::InputSets* sets = nullptr) {
  cudalab::Rung r;
  r.name = "cub::DeviceReduce::Sum";
  r.baseline = true;
  r.bytes = static_cast<double>(n) * sizeof(T);
  r.flops = std::is_floating_point_v<T> ? static_cast<double>(n) : 0.0;
  r.poison = [&out] { CUDA_CHECK(cudaMemset(out.data(), 0xFF, sizeof(T))); };
  r.launch = [&cub] { cub.run(); };
  r.check = [&out, &want_first, want_second, sets] {
    const reduction::Expected<T>& want = sets && sets->current() == 1 ? *want_second : want_first;
    return reduction::matches(want, read_result(out.data()));
  };
  if (sets) r.refresh = sets->refresh();
  return r;
}

template <typename T>
std::vector<cudalab::Rung> rungs_of(const std::vector<Variant>& variants, const cudalab::DeviceBuffer<T>& x, int block,
                                    reduction::Workspace<T>& ws, const reduction::Expected<T>& want,
                                    const reduction::Expected<T>* want_second = nullptr,
                                    cudalab::InputSets* sets = nullptr) {
  std::vector<cudalab::Rung> rungs;
  for (Variant v : variants) rungs.push_back(rung(v, x, block, ws, want, want_second, sets));
  return rungs;
}

template <typename T>
int run_single(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  const auto n = static_cast<std::size_t>(o.n);
  // the input, the workspace, and two more contents of the input for the timed launches
  cudalab::require_device_memory(4.2 * static_cast<double>(n) * sizeof(T), fmt::format("a reduction of {} elements", n));
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const auto ceiling = cudalab::measure_copy_ceiling(bench);
  cudalab::report_copy_ceiling(report, ceiling.gbps);

  const std::vector<T> x = reduction::make_input<T>(n, o.common.seed);
  const reduction::Expected<T> want = reduction::expected_sum(x, facts.max_resident_threads());
  report.field("expected", "exact sum (CPU)", std::is_integral_v<T> ? Value(static_cast<long long>(want.exact)) : Value(want.value, 4));
  if constexpr (std::is_floating_point_v<T>) {
    report.field("tolerance", "accepted |error| (rounding bound)", Value(want.tolerance, 4));
  }
  cudalab::DeviceBuffer<T> d_x(x);
  reduction::Workspace<T> ws(n);
  cudalab::DeviceBuffer<T> cub_out(1);
  reduction::CubSum<T> cub(d_x.data(), n, cub_out.data());

  // Each timed launch gets the other of two inputs, x or -x (whose sum is exactly minus x's in
  // any order of additions), so a kernel that replays a result is caught.
  std::vector<T> negated(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) negated[i] = -x[i];
  const reduction::Expected<T> want_negated = reduction::negated(want);
  cudalab::InputSets sets;
  sets.add(d_x, negated);
  std::vector<cudalab::Rung> rungs = rungs_of(chosen(o), d_x, o.block, ws, want, &want_negated, &sets);
  rungs.push_back(cub_rung(cub, cub_out, n, want, &want_negated, &sets));
  const cudalab::LadderResult ladder = cudalab::run_ladder(bench, rungs);
  cudalab::report_ladder(report, ladder, {facts.theoretical_bandwidth_gbps(), ceiling.gbps}, o.common.repeat,
                         {false, "x CUB"});
  return ladder.all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

template <typename T>
int run_sweep(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const auto ceiling = cudalab::measure_copy_ceiling(bench);
  cudalab::report_copy_ceiling(report, ceiling.gbps);
  const auto needed = [](std::size_t n) { return 2.2 * static_cast<double>(n) * sizeof(T); };
  const auto ladder_at = [&](std::size_t n) {
    const std::vector<T> x = reduction::make_input<T>(n, o.common.seed);
    const reduction::Expected<T> want = reduction::expected_sum(x, facts.max_resident_threads());
    cudalab::DeviceBuffer<T> d_x(x), cub_out(1);
    reduction::Workspace<T> ws(n);
    reduction::CubSum<T> cub(d_x.data(), n, cub_out.data());
    std::vector<cudalab::Rung> rungs = rungs_of(chosen(o), d_x, o.block, ws, want);
    for (auto& r : rungs) r.time_first_launch = false;
    rungs.push_back(cub_rung(cub, cub_out, n, want));
    return cudalab::run_ladder(bench, rungs);
  };
  return cudalab::sweep_ladders(report, "Sum over N", {facts.theoretical_bandwidth_gbps(), ceiling.gbps},
                                {false, "x CUB"}, cudalab::sweep_sizes(1024, std::size_t{1} << 28, 4, needed), ladder_at);
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

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  cudalab::Report report("reduction", o.common.json);
  cudalab::report_setup(report, facts, o.type, o.block);
  if (o.sweep) return o.type == "int" ? run_sweep<int>(o, facts, report) : run_sweep<float>(o, facts, report);
  report.field("n", "N (elements)", o.n);
  return o.type == "int" ? run_single<int>(o, facts, report) : run_single<float>(o, facts, report);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("reduction", [&] { return run(argc, argv); });
}
