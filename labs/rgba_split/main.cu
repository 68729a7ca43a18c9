// rgba_split: interleaved RGBA -> four planes, every variant verified byte for byte.
//   ./labs/rgba_split                   3840 x 2160 synthetic frame, all variants
//   ./labs/rgba_split 76 62             the notes' small image (see the grid arithmetic)
//   ./labs/rgba_split 16384 16384 --variant x16
//   ./labs/rgba_split --input photo.png --output-dir planes/
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "common/random.hpp"
#include "common/report.hpp"
#include "common/variants.hpp"
#include "image_io.hpp"
#include "problem.hpp"
#include "rgba_split.hpp"

namespace {

struct Options {
  cudalab::CommonOptions common;
  std::int64_t width = 3840, height = 2160;
  std::string variant = "all";
  std::string input, output_dir;
  bool sweep = false;
};

// Bandwidth over image size for the plots: square images 256^2 .. 16384^2 (as far as memory
// allows), every variant verified and timed.
int run_sweep(const Options& o, cudalab::LabRun& run) {
  const auto bytes = [](std::size_t side) { return 8.0 * static_cast<double>(side * side); };
  cudalab::SweepAxis axis{"width", "width", "pixels", "pixels", [](std::size_t side) {
                            return static_cast<long long>(side * side);
                          }};
  return run.sweep("Bandwidth over image size (square images)", run.sweep_sizes(256, 16384, 2, bytes),
                   [&](std::size_t side) {
                     rgba_split::Problem p(cudalab::random_bytes(4 * side * side, o.common.seed), side, side,
                                           cudalab::Replays::kNotChecked);
                     return cudalab::run_ladder(run.bench(), p.rungs(o.variant));
                   },
                   {false}, axis);
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("rgba_split", "Splits interleaved RGBA pixels into four planes; every variant verified and timed.");
  cli.positional("WIDTH", o.width, "image width in pixels", 1, 1 << 30);
  cli.positional("HEIGHT", o.height, "image height in pixels", 1, 1 << 30);
  cli.variant_option(o.variant, rgba_split::variant_names(),
                     cudalab::names_of(rgba_split::all_variants(), rgba_split::variant_summary));
  cli.option("--input", o.input, "read this PNG or JPEG instead of a synthetic image");
  cli.option("--output-dir", o.output_dir, "write the four planes there as r.png g.png b.png a.png");
  cli.flag("--sweep", o.sweep, "time every variant over square images 256^2 .. 16384^2 instead of one image");
  cli.add_common(o.common);
  cli.footer("Examples:\n  rgba_split 3840 2160\n  rgba_split 76 62 --variant naive\n"
             "  rgba_split --input photo.jpg --output-dir planes");
  if (auto code = cli.parse(argc, argv)) return *code;

  if (o.sweep) {
    if (cli.given("WIDTH") || !o.input.empty() || !o.output_dir.empty()) {
      throw cudalab::UsageError("--sweep chooses its own image sizes: give no WIDTH HEIGHT, --input or --output-dir");
    }
    cudalab::LabRun run("rgba_split", o.common, "uint8");
    return run_sweep(o, run);
  }
  // Input first: a bad file is a usage error on any machine, GPU or not.
  if (cli.given("WIDTH") != cli.given("HEIGHT")) throw cudalab::UsageError("give both WIDTH and HEIGHT");
  rgba_split::RgbaImage image;
  if (!o.input.empty()) {
    if (cli.given("WIDTH")) throw cudalab::UsageError("give either WIDTH HEIGHT or --input, not both");
    image = rgba_split::read_image(o.input);
  } else {
    image.width = static_cast<std::size_t>(o.width);
    image.height = static_cast<std::size_t>(o.height);
  }
  if (!o.output_dir.empty()) rgba_split::make_output_dir(o.output_dir);
  const std::size_t width = image.width, height = image.height, pixels = width * height;
  const double bytes = 8.0 * static_cast<double>(pixels);

  cudalab::LabRun run("rgba_split", o.common, "uint8");
  // the image and its planes, and the base image the timed launches' fresh bytes come from
  cudalab::require_device_memory(1.5 * bytes, fmt::format("a {} x {} image", width, height));
  cudalab::Report& report = run.report();
  report.field("width", "width", static_cast<long long>(width));
  report.field("height", "height", static_cast<long long>(height));
  report.field("pixels", "pixels", static_cast<long long>(pixels));
  report.field("source", "image", o.input.empty() ? fmt::format("synthetic (seed {})", o.common.seed) : o.input);
  report.field("bytes_moved", "bytes moved per launch (8 per pixel)", cudalab::bytes_cell(bytes));
  run.yardsticks();

  if (o.input.empty()) image.rgba = cudalab::random_bytes(4 * pixels, o.common.seed);
  rgba_split::Problem p(image.rgba, width, height, cudalab::Replays::kCaught);

  p.report_launches(report, o.variant);
  std::vector<cudalab::Rung> rungs = p.rungs(o.variant);
  // The notes' program 2 times its version A once, as the process's first kernel launch: the
  // lab times that launch too, beside the warm median (errata row 41).
  rungs.front().time_first_launch = true;
  const bool all_ok = run.measure(rungs).all_ok;
  report.field("verified", "every plane matches the CPU byte for byte", all_ok);

  if (!o.output_dir.empty() && all_ok) {
    p.write_planes(o.output_dir);  // the last variant's, of the image as given
    report.field("output_dir", "planes written to", o.output_dir);
  }
  return all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("rgba_split", [&] { return run(argc, argv); });
}
