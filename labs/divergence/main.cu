// divergence: the cost of threads of one warp taking different branches, measured.
//   ./labs/divergence                         all variants, 20000-step paths, 8 blocks per SM
//   ./labs/divergence --iters 2000            the notes' path length
//   ./labs/divergence --variant divergent --blocks-per-sm 4
#include <string>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/ladder.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "common/variants.hpp"
#include "divergence.hpp"
#include "problem.hpp"

namespace {

using cudalab::Value;
using divergence::Variant;

struct Options {
  cudalab::CommonOptions common;
  std::string variant = "all";  // first, as in every ladder lab
  int iters = 20000;
  int blocks_per_sm = 8;
};

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

  cudalab::LabRun run("divergence", o.common, "float", divergence::kBlock);
  const int grid = run.facts().sm_count * o.blocks_per_sm;
  run.report().field("grid", "launch", fmt::format("{} blocks x {} threads ({} per SM, {} SMs)", grid,
                                                   divergence::kBlock, o.blocks_per_sm, run.facts().sm_count));
  run.report().field("iters", "path length (dependent FMAs)", o.iters);
  divergence::Problem p(grid, o.iters, o.common.seed, o.variant);
  cudalab::LadderResult ladder = cudalab::run_ladder(run.bench(), p.rungs());

  // The cell that needs every row's time comes after the run: each variant over the uniform one.
  const auto time_of = [&](Variant want) {
    for (const auto& r : ladder.rungs) {
      if (r.result.name == divergence::variant_name(want)) return r.result.timing.median_ms;
    }
    return 0.0;
  };
  const double uniform_ms = time_of(Variant::kUniform), divergent_ms = time_of(Variant::kDivergent);
  for (auto& r : ladder.rungs) {
    r.cells.push_back({"time_over_uniform", "x uniform",
                       uniform_ms > 0 ? Value(r.result.timing.median_ms / uniform_ms, 2) : Value()});
  }
  cudalab::MeasurementTable t({run.facts().theoretical_bandwidth_gbps(), 0});  // no copy ceiling: compute-bound
  t.add(ladder);
  run.report().field("total_warps", "warps launched", static_cast<long long>(p.threads() / 32));
  run.report().heading(fmt::format("Time (median of {})", o.common.repeat));
  run.report().table("variants", t.table());
  if (divergent_ms > 0 && uniform_ms > 0) {
    run.report().field("ratio", "divergent / uniform (measured)", Value(divergent_ms / uniform_ms, 3), "x");
    run.report().field("model_ratio", "model: both paths, one after the other", Value(2.0, 1), "x");
  }
  return cudalab::ladder_exit_code(ladder);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("divergence", [&] { return run(argc, argv); });
}
