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
#include "common/ladder.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "common/variants.hpp"
#include "divergence.hpp"
#include "reference.hpp"

namespace {

using cudalab::Value;
using divergence::Variant;

struct Options {
  cudalab::CommonOptions common;
  std::string variant = "all";  // first, as in every ladder lab
  int iters = 20000;
  int blocks_per_sm = 8;
};

constexpr int kBlock = 256;

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("divergence", "Warp divergence: the notes' divergent/uniform pair and its variants, timed.");
  cli.variant_option(o.variant, divergence::variant_names(),
                     cudalab::names_of(divergence::all_variants(), divergence::variant_summary));
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

  // Per variant: its branch data (data-dependent variants), the expected output, and a rung.
  struct Case {
    std::vector<float> data, expected;
    cudalab::DeviceBuffer<float> d_data;
    std::size_t divergent_warps = 0;
  };
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  cudalab::DeviceBuffer<float> out(n);
  std::vector<Case> cases(chosen.size());
  std::vector<cudalab::Rung> rungs;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    const Variant v = chosen[k];
    Case& c = cases[k];
    if (divergence::is_data_dependent(v)) c.data = divergence::make_data(v, n, o.common.seed);
    c.d_data = cudalab::DeviceBuffer<float>(c.data);
    c.expected = divergence::reference_output(v, c.data, n, kBlock, o.iters);
    if (v == Variant::kDivergent) c.divergent_warps = static_cast<std::size_t>(grid) * divergence::divergent_warps_mod2(kBlock);
    if (divergence::is_data_dependent(v)) c.divergent_warps = divergence::divergent_warps_in_data(c.data);
    cudalab::Rung r;
    r.name = divergence::variant_name(v);
    // the useful work: each thread runs one path of `iters` FMAs and writes 4 bytes (and reads
    // its 4 bytes of branch data in the data-dependent variants)
    r.flops = 2.0 * o.iters * static_cast<double>(n);
    r.bytes = (divergence::is_data_dependent(v) ? 8.0 : 4.0) * static_cast<double>(n);
    r.poison = [&out] { out.fill_bytes(0xFF); };
    r.launch = [&, v, k] { divergence::launch(v, cases[k].d_data.data(), out.data(), grid, kBlock, o.iters); };
    r.check = [&, v, k] {
      const auto check = cudalab::check_exact(cases[k].expected, out.download());
      if (!check.ok()) {
        std::fprintf(stderr, "divergence: %s is wrong: %s\n", divergence::variant_name(v).c_str(), check.summary().c_str());
      }
      return check.ok();
    };
    r.cells = [&cases, k] {
      return std::vector<cudalab::Cell>{{"divergent_warps", "divergent warps", static_cast<long long>(cases[k].divergent_warps)}};
    };
    rungs.push_back(std::move(r));
  }
  cudalab::LadderResult ladder = cudalab::run_ladder(bench, rungs);
  const auto time_of = [&](Variant want) {
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      if (chosen[k] == want) return ladder.rungs[k].result.timing.median_ms;
    }
    return 0.0;
  };
  const double uniform_ms = time_of(Variant::kUniform), divergent_ms = time_of(Variant::kDivergent);
  for (auto& r : ladder.rungs) {  // the rows are open: a cell that needs every row's time comes after the run
    r.cells.push_back({"time_over_uniform", "x uniform",
                       uniform_ms > 0 ? Value(r.result.timing.median_ms / uniform_ms, 2) : Value()});
  }
  cudalab::MeasurementTable t({facts.theoretical_bandwidth_gbps(), 0});
  t.add(ladder);
  report.field("total_warps", "warps launched", static_cast<long long>(n / 32));
  report.heading(fmt::format("Time (median of {})", o.common.repeat));
  report.table("variants", t.table());
  if (divergent_ms > 0 && uniform_ms > 0) {
    report.field("ratio", "divergent / uniform (measured)", Value(divergent_ms / uniform_ms, 3), "x");
    report.field("model_ratio", "model: both paths, one after the other", Value(2.0, 1), "x");
  }
  return ladder.all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("divergence", [&] { return run(argc, argv); });
}
