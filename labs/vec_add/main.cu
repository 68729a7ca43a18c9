// vec_add: c = a + b on the GPU, every variant checked against the CPU and timed.
//   ./labs/vec_add                      all variants, N = 2^26 floats
//   ./labs/vec_add 2^28 --type int      one size, int data
//   ./labs/vec_add --variant vectorized --block 512
//   ./labs/vec_add --sweep --json       bandwidth over N = 2^10 .. 2^28 for plotting
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "common/bandwidth.hpp"
#include "common/check.hpp"
#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/lab_main.hpp"
#include "common/random.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "common/variants.hpp"
#include "reference.hpp"
#include "vec_add.hpp"

namespace {

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 26;  // 768 MiB for three float arrays: past L2, fits 4 GB
  std::string variant = "all";
  std::string type = "float";
  int block = 256;
  bool sweep = false;
};

template <typename T>
std::vector<T> make_input(std::size_t n, std::uint64_t seed) {
  // Values small enough that int sums cannot overflow; floats in [-1, 1).
  if constexpr (std::is_floating_point_v<T>) {
    return cudalab::random_vector<T>(n, seed, T(-1), T(1));
  } else {
    return cudalab::random_vector<T>(n, seed, T(-(1 << 20)), T(1 << 20));
  }
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// One problem of size n: the inputs, the CPU's answer and how long the CPU took for it.
template <typename T>
struct Problem {
  std::vector<T> a, b, expected;
  double cpu_ms = 0;
};

template <typename T>
Problem<T> make_problem(std::size_t n, std::uint64_t seed) {
  Problem<T> p{make_input<T>(n, seed), make_input<T>(n, seed + 1), std::vector<T>(n)};
  const auto t0 = std::chrono::steady_clock::now();
  vec_add::reference(p.a.data(), p.b.data(), p.expected.data(), n);
  p.cpu_ms = ms_since(t0);
  return p;
}

// One launch of the plan on a poisoned c (an element the kernel skips cannot match), checked
// against the CPU; a wrong result is reported on stderr.
template <typename T>
bool launch_and_check(const vec_add::Plan& plan, const Problem<T>& p, const cudalab::DeviceBuffer<T>& da,
                      const cudalab::DeviceBuffer<T>& db, cudalab::DeviceBuffer<T>& dc, std::vector<T>& actual) {
  dc.fill_bytes(0xFF);
  vec_add::launch(plan, da.data(), db.data(), dc.data());
  dc.download(actual.data(), actual.size());
  const cudalab::CheckResult check = cudalab::check_exact(p.expected, actual);
  if (!check.ok()) {
    std::fprintf(stderr, "vec_add: variant %s is wrong at N = %zu: %s\n", vec_add::variant_name(plan.variant).c_str(),
                 actual.size(), check.summary().c_str());
  }
  return check.ok();
}

std::vector<vec_add::Variant> chosen_variants(const Options& o) {
  return cudalab::select_variants(vec_add::all_variants(), vec_add::variant_name, o.variant);
}

// Host->device copies of a and b, the kernel, and the copy of c back: what a program that
// starts and ends with data in host memory pays. Pageable host memory, as in the notes.
template <typename T>
cudalab::Timing end_to_end(const vec_add::Plan& plan, const std::vector<T>& a, const std::vector<T>& b,
                           std::vector<T>& c, cudalab::DeviceBuffer<T>& da, cudalab::DeviceBuffer<T>& db,
                           cudalab::DeviceBuffer<T>& dc, int repeat) {
  cudalab::Benchmarker bench({1, repeat, false});
  return bench.run([&] {
    da.upload(a);
    db.upload(b);
    vec_add::launch(plan, da.data(), db.data(), dc.data());
    dc.download(c.data(), c.size());
  });
}

template <typename T>
int run_single(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  const auto n = static_cast<std::size_t>(o.n);
  const double bytes = 3.0 * static_cast<double>(n) * sizeof(T);
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});

  cudalab::require_device_memory(bytes, "vec_add with N = " + std::to_string(n));
  const cudalab::CopyCeiling ceiling = cudalab::measure_copy_ceiling(bench);
  report.field("copy_gbps", "copy ceiling (cudaMemcpy D2D, measured)", Value(ceiling.gbps, 0), "GB/s");

  const Problem<T> p = make_problem<T>(n, o.common.seed);
  std::vector<T> actual(n);
  cudalab::DeviceBuffer<T> da(p.a), db(p.b), dc(n);

  report.heading("Launch configuration");
  cudalab::Table launch_table({{"variant", "variant"}, {"blocks", "blocks"}, {"threads", "threads"},
                               {"per_thread", "per thread"}, {"idle", "idle slots"}, {"idle_percent", "idle %"}});
  std::vector<cudalab::VariantResult> results;
  bool all_ok = true;
  std::vector<vec_add::Plan> plans;
  for (vec_add::Variant v : chosen_variants(o)) {
    const vec_add::Plan plan = vec_add::make_plan(v, n, o.block);
    plans.push_back(plan);
    const auto& g = plan.geometry;
    launch_table.add_row({vec_add::variant_name(v), g.blocks(), g.threads(), g.items_per_thread, g.idle_slots(),
                          Value(g.idle_percent(), 2)});

    cudalab::VariantResult r;
    r.name = vec_add::variant_name(v);
    r.bytes = bytes;
    r.correct = launch_and_check(plan, p, da, db, dc, actual);
    all_ok = all_ok && r.correct;
    r.timing = bench.run([&] { vec_add::launch(plan, da.data(), db.data(), dc.data()); });
    results.push_back(r);
  }
  report.table("launch", launch_table);

  report.heading("Kernel time (median of " + std::to_string(o.common.repeat) + ", L2 flushed before each)");
  report.table("variants", cudalab::bandwidth_table(results, facts.theoretical_bandwidth_gbps(), ceiling.gbps));
  std::size_t best = 0;
  for (std::size_t i = 1; i < results.size(); ++i) {
    if (results[i].gbps() > results[best].gbps()) best = i;
  }
  report.field("best_variant", "best variant", results[best].name);
  report.field("best_gbps", "best bandwidth", Value(results[best].gbps(), 0), "GB/s");
  report.field("best_over_copy", "best / copy ceiling", Value(results[best].gbps() / ceiling.gbps, 3));

  const cudalab::Timing e2e = end_to_end(plans[best], p.a, p.b, actual, da, db, dc, std::min(o.common.repeat, 5));
  report.heading("Does it pay? (same N, data starting and ending in host memory)");
  report.field("cpu_ms", "CPU, one core (-O3)", Value(p.cpu_ms, 3), "ms");
  report.field("gpu_kernel_ms", "GPU kernel only (" + results[best].name + ")",
               Value(results[best].timing.median_ms, 3), "ms");
  report.field("gpu_end_to_end_ms", "GPU incl. copies (pageable memory)", Value(e2e.median_ms, 3), "ms");
  report.field("speedup_end_to_end", "CPU time / GPU end-to-end time", Value(p.cpu_ms / e2e.median_ms, 3), "x");
  return all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

// Bandwidth over N for the plots: every variant at N = 2^10 .. 2^28 (or as far as memory
// allows), plus CPU and end-to-end times of the best variant.
template <typename T>
int run_sweep(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const cudalab::CopyCeiling ceiling = cudalab::measure_copy_ceiling(bench);
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t max_n = std::size_t{1} << 28;
  while (max_n > 1024 && 3.0 * static_cast<double>(max_n) * sizeof(T) > 0.8 * static_cast<double>(free_bytes)) {
    max_n /= 2;
  }
  cudalab::Table curve({{"n", "N"}, {"variant", "variant"}, {"median_us", "median us"}, {"gbps", "GB/s"},
                        {"percent_of_copy", "% copy"}});
  cudalab::Table crossover({{"n", "N"}, {"cpu_ms", "CPU ms"}, {"gpu_kernel_ms", "GPU kernel ms"},
                            {"gpu_end_to_end_ms", "GPU end-to-end ms"}});
  bool all_ok = true;
  for (std::size_t n = 1024; n <= max_n; n *= 2) {
    const Problem<T> p = make_problem<T>(n, o.common.seed);
    std::vector<T> actual(n);
    cudalab::DeviceBuffer<T> da(p.a), db(p.b), dc(n);
    double best_ms = 0;
    vec_add::Plan best_plan;
    for (vec_add::Variant v : chosen_variants(o)) {
      const vec_add::Plan plan = vec_add::make_plan(v, n, o.block);
      all_ok = launch_and_check(plan, p, da, db, dc, actual) && all_ok;
      const auto t = bench.run([&] { vec_add::launch(plan, da.data(), db.data(), dc.data()); });
      const double g = cudalab::gbps(3.0 * static_cast<double>(n) * sizeof(T), t.median_ms);
      curve.add_row({static_cast<long long>(n), vec_add::variant_name(v), Value(t.median_ms * 1e3, 2), Value(g, 0),
                     Value(cudalab::percent(g, ceiling.gbps), 1)});
      if (best_ms == 0 || t.median_ms < best_ms) {
        best_ms = t.median_ms;
        best_plan = plan;
      }
    }
    const auto e2e = end_to_end(best_plan, p.a, p.b, actual, da, db, dc, 3);
    crossover.add_row({static_cast<long long>(n), Value(p.cpu_ms, 4), Value(best_ms, 4), Value(e2e.median_ms, 4)});
  }
  report.field("copy_ceiling_gbps", "copy ceiling (measured)", Value(ceiling.gbps, 0), "GB/s");
  report.field("peak_gbps", "theoretical peak", Value(facts.theoretical_bandwidth_gbps(), 0), "GB/s");
  report.heading("Bandwidth over N");
  report.table("sweep", curve);
  report.heading("CPU vs GPU over N (best variant; end-to-end includes host<->device copies)");
  report.table("crossover", crossover);
  return all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("vec_add", "c = a + b on the GPU: every variant checked against the CPU and timed.");
  cli.positional("N", o.n, "number of elements (e.g. 1000000, 64M, 2^28)", 1, std::int64_t{1} << 34);
  cli.variant_option(o.variant, vec_add::variant_names());
  cli.option("--block", o.block, "threads per block (a multiple of 32)", 32, 1024);
  cli.option("--type", o.type, "element type", {"float", "int"});
  cli.flag("--sweep", o.sweep, "time every variant over N = 2^10 .. 2^28 instead of one N");
  cli.add_common(o.common);
  cli.footer("Examples:\n  vec_add 2^28\n  vec_add 1000 --variant naive --block 128\n  vec_add --sweep --json");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.block % 32 != 0) {
    throw cudalab::UsageError("--block " + std::to_string(o.block) + " is not a multiple of the warp size (32)");
  }

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  cudalab::Report report("vec_add", o.common.json);
  report.field("device", "device", facts.name);
  report.field("type", "element type", o.type);
  report.field("block", "threads per block", o.block);
  report.field("peak_gbps", "theoretical DRAM bandwidth", Value(facts.theoretical_bandwidth_gbps(), 0), "GB/s");
  if (o.sweep) {
    return o.type == "int" ? run_sweep<int>(o, facts, report) : run_sweep<float>(o, facts, report);
  }
  report.field("n", "N (elements)", o.n);
  report.field("bytes_moved", "bytes moved per launch (12 per element)",
               cudalab::human_bytes(3.0 * static_cast<double>(o.n) * 4));
  return o.type == "int" ? run_single<int>(o, facts, report) : run_single<float>(o, facts, report);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("vec_add", [&] { return run(argc, argv); });
}
