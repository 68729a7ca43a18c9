// divergence: the cost of threads of one warp taking different branches, measured.
//   ./labs/divergence                         all variants, 20000-step paths, 8 blocks per SM
//   ./labs/divergence --iters 2000            the notes' path length
//   ./labs/divergence --variant divergent --blocks-per-sm 4
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/check.hpp"
#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "common/variants.hpp"
#include "divergence.hpp"

namespace {

using cudalab::Value;
using divergence::Variant;

struct Options {
  cudalab::CommonOptions common;
  int iters = 20000;
  int blocks_per_sm = 8;
  std::string variant = "all";
};

constexpr int kBlock = 256;

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("divergence", "Warp divergence: the notes' divergent/uniform pair and its variants, timed.");
  cli.variant_option(o.variant, divergence::variant_names());
  cli.option("--iters", o.iters, "length of each path (dependent FMAs)", 1, 10000000);
  cli.option("--blocks-per-sm", o.blocks_per_sm, "256-thread blocks launched per SM", 1, 32);
  cli.add_common(o.common);
  cli.footer("Examples:\n  divergence\n  divergence --iters 2000\n  divergence --variant data_random --json");
  if (auto code = cli.parse(argc, argv)) return *code;

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  const int grid = facts.sm_count * o.blocks_per_sm;
  const std::size_t n = static_cast<std::size_t>(grid) * kBlock;

  cudalab::Report report("divergence", o.common.json);
  report.field("device", "device", facts.name);
  report.field("grid", "launch", fmt::format("{} blocks x {} threads ({} per SM, {} SMs)", grid, kBlock,
                                             o.blocks_per_sm, facts.sm_count));
  report.field("iters", "path length (dependent FMAs)", o.iters);

  const std::vector<Variant> chosen =
      cudalab::select_variants(divergence::all_variants(), divergence::variant_name, o.variant);

  // Every output depends only on (threadIdx.x, which path): precompute both paths on the CPU
  // with the same fmaf chain, then check every element exactly.
  std::vector<float> path_a(kBlock), path_b(kBlock);
  // reference(..., global_index, block, ...) starts from x = global_index % block: ask per t.
  for (int t = 0; t < kBlock; ++t) {
    std::vector<float> signs(static_cast<std::size_t>(t) + 1, 1.f);
    path_a[t] = divergence::reference(Variant::kDataPositive, signs, static_cast<std::size_t>(t), kBlock, o.iters);
    for (auto& s : signs) s = -1.f;
    path_b[t] = divergence::reference(Variant::kDataPositive, signs, static_cast<std::size_t>(t), kBlock, o.iters);
  }

  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  cudalab::DeviceBuffer<float> out(n);
  cudalab::Table t({{"variant", "variant"}, {"divergent_warps", "divergent warps"}, {"median_ms", "median ms"},
                    {"min_ms", "min ms"}, {"vs_uniform", "x uniform"}, {"correct", "ok"}});
  struct Row {
    Variant v;
    std::size_t divergent_warps;
    cudalab::Timing timing;
    bool ok;
  };
  std::vector<Row> rows;
  bool all_ok = true;
  for (Variant v : chosen) {
    std::vector<float> data;
    if (divergence::is_data_dependent(v)) data = divergence::make_data(v, n, o.common.seed);
    cudalab::DeviceBuffer<float> d_data(data);
    std::vector<float> expected(n);
    for (std::size_t i = 0; i < n; ++i) {
      const int th = static_cast<int>(i % kBlock);
      bool a;
      switch (v) {
        case Variant::kUniform: a = (th / 32) % 2 == 0; break;
        case Variant::kDivergent:
        case Variant::kBranchFree: a = th % 2 == 0; break;
        default: a = data[i] > 0.f;
      }
      expected[i] = a ? path_a[th] : path_b[th];
    }
    out.fill_bytes(0xFF);
    divergence::launch(v, d_data.data(), out.data(), grid, kBlock, o.iters);
    const auto check = cudalab::check_exact(expected, out.download());
    if (!check.ok()) {
      std::fprintf(stderr, "divergence: %s is wrong: %s\n", divergence::variant_name(v).c_str(), check.summary().c_str());
    }
    all_ok = all_ok && check.ok();
    std::size_t dw = 0;
    if (v == Variant::kDivergent) dw = static_cast<std::size_t>(grid) * divergence::divergent_warps_mod2(kBlock);
    if (divergence::is_data_dependent(v)) dw = divergence::divergent_warps_in_data(data);
    const auto timing = bench.run([&] { divergence::launch(v, d_data.data(), out.data(), grid, kBlock, o.iters); });
    rows.push_back({v, dw, timing, check.ok()});
  }
  double uniform_ms = 0;
  for (const auto& r : rows) {
    if (r.v == Variant::kUniform) uniform_ms = r.timing.median_ms;
  }
  for (const auto& r : rows) {
    t.add_row({divergence::variant_name(r.v), static_cast<long long>(r.divergent_warps), Value(r.timing.median_ms, 4),
               Value(r.timing.min_ms, 4), uniform_ms > 0 ? Value(r.timing.median_ms / uniform_ms, 2) : Value("-"),
               r.ok ? "yes" : "NO"});
  }
  report.field("total_warps", "warps launched", static_cast<long long>(n / 32));
  report.heading(fmt::format("Time (median of {})", o.common.repeat));
  report.table("variants", t);
  double divergent_ms = 0;
  for (const auto& r : rows) {
    if (r.v == Variant::kDivergent) divergent_ms = r.timing.median_ms;
  }
  if (divergent_ms > 0 && uniform_ms > 0) {
    report.field("ratio", "divergent / uniform (measured)", Value(divergent_ms / uniform_ms, 3), "x");
    report.field("model_ratio", "model: both paths, one after the other", Value(2.0, 1), "x");
  }
  return all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("divergence", [&] { return run(argc, argv); });
}
