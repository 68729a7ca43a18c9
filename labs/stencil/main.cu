// stencil: convolution and the heat equation, every variant checked against the CPU and timed
// against the copy ceiling of the same run: when does a shared tile pay?
//   ./labs/stencil                          conv (8192^2, R = 3), heat2d (8192^2), heat3d (256^3), 8 steps
//   ./labs/stencil --section conv --radius 8 --nx 4096 --ny 4096
//   ./labs/stencil --radius-sweep           conv over R = 1 .. 8: where the shared tile starts to win
//   ./labs/stencil --variant heat2d_temporal --steps 16
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "common/variants.hpp"
#include "problem.hpp"
#include "stencil.hpp"

namespace {

using stencil::Variant;

struct Options {
  cudalab::CommonOptions common;
  std::string variant = "all";
  std::string section = "all";
  std::int64_t nx = 8192, ny = 8192, n3 = 256;
  int radius = 3, steps = 8;
  bool radius_sweep = false;
};

bool wants(const Options& o, stencil::Kind k) { return o.section == "all" || o.section == stencil::kind_name(k); }

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("stencil", "Convolution and the heat equation: global loads, the read-only path, shared tiles, "
                              "coarsening, temporal and 2.5D blocking, checked and timed against the copy ceiling.");
  cli.variant_option(o.variant, stencil::variant_names(), cudalab::names_of(stencil::all_variants(), stencil::variant_summary));
  cli.option("--section", o.section, "run one problem only", {"all", "conv", "heat2d", "heat3d"});
  cli.option("--nx", o.nx, "image / field width (conv, heat2d)", 1, 1 << 20);
  cli.option("--ny", o.ny, "image / field height (conv, heat2d)", 1, 1 << 20);
  cli.option("--n3", o.n3, "edge of the heat3d cube", 1, 2048);
  cli.option("--radius", o.radius, "filter radius R of conv: a (2R + 1)^2 filter", 1, stencil::kMaxRadius);
  cli.option("--steps", o.steps, "heat steps per timed run", 1, 1024);
  cli.flag("--radius-sweep", o.radius_sweep, "conv at R = 1 .. 8 instead of the three problems");
  cli.add_common(o.common);
  cli.footer("Examples:\n  stencil\n  stencil --section conv --radius 8 --nx 4096 --ny 4096\n  stencil --radius-sweep\n"
             "  stencil --variant heat2d_temporal --steps 16");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.radius_sweep && (cli.given("--section") || cli.given("--radius"))) {
    throw cudalab::UsageError("--radius-sweep runs conv at every radius: give no --section or --radius");
  }
  if (o.nx * o.ny > (std::int64_t{1} << 31)) {
    throw cudalab::UsageError(fmt::format("{} x {} is more than 2^31 cells", o.nx, o.ny));
  }
  if (o.ny > 65535 * 8) throw cudalab::UsageError(fmt::format("--ny {} needs more than 65535 blocks of 8 rows", o.ny));
  const std::vector<Variant> chosen =
      cudalab::select_variants(stencil::all_variants(), stencil::variant_name, o.variant);
  cli.narrow_section(o.section, o.variant, stencil::kind_name(stencil::kind_of(chosen.front())));

  cudalab::LabRun run("stencil", o.common, "float", 256);
  const double cells2 = static_cast<double>(o.nx * o.ny), cells3 = static_cast<double>(o.n3 * o.n3 * o.n3);
  const double cells = std::max(wants(o, stencil::Kind::kHeat3d) ? cells3 : 0.0,
                                wants(o, stencil::Kind::kConv) || wants(o, stencil::Kind::kHeat2d) ? cells2 : 0.0);
  cudalab::require_device_memory(4.0 * cells * sizeof(float), "the stencil fields");  // input, its base, 2 outputs
  cudalab::require_host_memory(6.0 * cells * sizeof(double), "the CPU's answers");
  const int nx = static_cast<int>(o.nx), ny = static_cast<int>(o.ny), n3 = static_cast<int>(o.n3);
  run.report().dims("shape_2d", "conv and heat2d", {{"nx", nx}, {"ny", ny}});
  const double fp32_peak = run.facts().theoretical_fp32_gflops();
  const cudalab::Yardsticks& y = run.yardsticks();

  if (o.radius_sweep) {
    std::vector<std::size_t> radii;
    for (int r = 1; r <= stencil::kMaxRadius; ++r) radii.push_back(static_cast<std::size_t>(r));
    return run.sweep("conv over the radius: (2R + 1)^2 taps per output", radii, [&](std::size_t r) {
      stencil::ConvProblem p(nx, ny, static_cast<int>(r), o.common.seed, cudalab::Replays::kNotChecked);
      return cudalab::run_ladder(run.bench(), p.rungs(chosen));
    }, {false}, {"radius", "R"});
  }

  if (wants(o, stencil::Kind::kConv)) {
    stencil::ConvProblem p(nx, ny, o.radius, o.common.seed, cudalab::Replays::kCaught);
    run.report().field("radius", "conv filter radius", o.radius, fmt::format("({0} x {0} taps, constant memory)", 2 * o.radius + 1));
    run.report().field("conv_checked", "conv elements checked", static_cast<long long>(p.checked()),
                       fmt::format("of {}", nx * static_cast<long long>(ny)));
    cudalab::Section s = cudalab::Section::titled(
        "conv", fmt::format("conv: {} x {}, R = {} (GB/s: the image read and written once; % FP32: the FMAs)", nx, ny,
                            o.radius));
    s.peak_gflops = fp32_peak;
    run.section(s, p.rungs(chosen));
  }
  for (const bool three_d : {false, true}) {
    if (!wants(o, three_d ? stencil::Kind::kHeat3d : stencil::Kind::kHeat2d)) continue;
    stencil::HeatProblem p(three_d ? n3 : nx, three_d ? n3 : ny, three_d ? n3 : 1, o.steps, three_d,
                           o.common.seed + (three_d ? 20 : 10), cudalab::Replays::kCaught);
    cudalab::Section s = cudalab::Section::titled(
        three_d ? "heat3d" : "heat2d",
        three_d ? fmt::format("heat3d: {0} x {0} x {0}, {1} steps per run", n3, o.steps)
                : fmt::format("heat2d: {} x {}, {} steps per run (GB/s: the field read and written once per run, the "
                              "least any number of steps needs)", nx, ny, o.steps));
    s.after = stencil::per_step_columns(three_d ? cells3 : cells2, o.steps, y.copy_gbps);
    run.section(s, p.rungs(chosen));
  }
  return run.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("stencil", [&] { return run(argc, argv); });
}
