// rgba_split: interleaved RGBA -> four planes, every variant verified byte for byte.
//   ./labs/rgba_split                   3840 x 2160 synthetic frame, all variants
//   ./labs/rgba_split 76 62             the notes' small image (see the grid arithmetic)
//   ./labs/rgba_split 16384 16384 --variant x16
//   ./labs/rgba_split --input photo.png --output-dir planes/
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/check.hpp"
#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/ladder.hpp"
#include "common/lab_main.hpp"
#include "common/random.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "common/variants.hpp"
#include "device_planes.hpp"
#include "image_io.hpp"
#include "reference.hpp"
#include "rgba_split.hpp"

namespace {

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t width = 3840, height = 2160;
  std::string variant = "all";
  std::string input, output_dir;
  bool sweep = false;
};

const char* kPlaneNames[4] = {"r", "g", "b", "a"};

std::vector<rgba_split::Variant> chosen_variants(const Options& o) {
  return cudalab::select_variants(rgba_split::all_variants(), rgba_split::variant_name, o.variant);
}

// Compares the four planes; prints the first mismatch of each wrong plane as
// "plane g: pixel (x, y): expected 17, got 0" on stderr. Returns true when all match.
bool verify(const std::string& variant, const rgba_split::HostPlanes& expected, const rgba_split::HostPlanes& actual,
            std::size_t width) {
  bool ok = true;
  for (int c = 0; c < 4; ++c) {
    const auto r = cudalab::check_exact(expected[c], actual[c], 1);
    if (!r.ok()) {
      ok = false;
      const auto& m = r.first.front();
      std::fprintf(stderr, "rgba_split: %s: plane %s: pixel (%zu, %zu): expected %d, got %d (%zu pixels differ)\n",
                   variant.c_str(), kPlaneNames[c], m.index % width, m.index / width,
                   static_cast<int>(m.expected), static_cast<int>(m.actual), r.mismatches);
    }
  }
  return ok;
}

// One image on the device and one rung per variant: poison the planes (an unwritten pixel
// fails the check), split, compare with the CPU byte for byte.
struct OnDevice {
  OnDevice(const std::vector<std::uint8_t>& rgba, std::size_t width_, std::size_t height_)
      : width(width_), pixels(width_ * height_), height(height_),
        expected(rgba_split::reference_planes(rgba.data(), pixels)), d_rgba(rgba), d_planes(pixels) {}
  std::size_t width, pixels, height;
  rgba_split::HostPlanes expected, actual;
  cudalab::DeviceBuffer<std::uint8_t> d_rgba;
  rgba_split::DevicePlanes d_planes;
  // With alternate(): each timed launch gets the other of two images, the image or its negative
  // (every byte 255 - v, whose planes are the negatives of the planes), so a kernel that replays
  // a result is caught.
  std::unique_ptr<cudalab::InputSets> sets;
  rgba_split::HostPlanes negated_expected;

  static std::vector<std::uint8_t> negative(const std::vector<std::uint8_t>& v) {
    std::vector<std::uint8_t> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<std::uint8_t>(255 - v[i]);
    return out;
  }
  void alternate(const std::vector<std::uint8_t>& rgba) {
    for (int c = 0; c < 4; ++c) negated_expected[c] = negative(expected[c]);
    sets = std::make_unique<cudalab::InputSets>();
    sets->add(d_rgba, negative(rgba));
  }
  bool negated() const { return sets && sets->current() == 1; }

  cudalab::Rung rung(rgba_split::Variant v) {
    cudalab::Rung r;
    r.name = rgba_split::variant_name(v);
    r.bytes = 8.0 * static_cast<double>(pixels);
    r.poison = [this] { d_planes.poison(); };
    r.launch = [this, v] { rgba_split::launch(v, d_rgba.data(), d_planes.view(), width, height); };
    r.check = [this, name = r.name] {
      d_planes.download(actual, pixels);
      return verify(name, negated() ? negated_expected : expected, actual, width);
    };
    r.fallback = rgba_split::fallback(v, d_rgba.data(), d_planes.view());
    if (sets) r.refresh = sets->refresh();
    return r;
  }
};

// Bandwidth over image size for the plots: square images 256^2 .. 16384^2 (as far as memory
// allows), every variant verified and timed.
int run_sweep(const Options& o, const cudalab::DeviceFacts& facts, cudalab::Report& report) {
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const cudalab::CopyCeiling ceiling = cudalab::measure_copy_ceiling(bench);
  cudalab::report_copy_ceiling(report, ceiling.gbps);
  cudalab::MeasurementTable t({facts.theoretical_bandwidth_gbps(), ceiling.gbps}, {false});
  bool all_ok = true;
  const auto bytes = [](std::size_t side) { return 8.0 * static_cast<double>(side * side); };
  for (std::size_t side : cudalab::sweep_sizes(256, 16384, 2, bytes)) {
    OnDevice dev(cudalab::random_bytes(4 * side * side, o.common.seed), side, side);
    std::vector<cudalab::Rung> rungs;
    for (auto v : chosen_variants(o)) rungs.push_back(dev.rung(v));
    const cudalab::LadderResult ladder = cudalab::run_ladder(bench, rungs);
    all_ok = all_ok && ladder.all_ok;
    t.add(ladder, {{"width", "width", static_cast<long long>(side)}, {"pixels", "pixels", static_cast<long long>(side * side)}});
  }
  return cudalab::report_sweep(report, "Bandwidth over image size (square images)", t, all_ok);
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
    cudalab::select_device(o.common.device);
    const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
    cudalab::Report report("rgba_split", o.common.json);
    report.field("device", "device", facts.name);
    return run_sweep(o, facts, report);
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
  if (!o.output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.output_dir, ec);
    if (ec || !std::filesystem::is_directory(o.output_dir)) {
      throw cudalab::UsageError(fmt::format("cannot create output directory '{}': {}", o.output_dir, ec.message()));
    }
  }
  const std::size_t width = image.width, height = image.height, pixels = width * height;
  const double bytes = 8.0 * static_cast<double>(pixels);

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  // the image and its planes, and two more contents of the image for the timed launches
  cudalab::require_device_memory(bytes + 8.0 * static_cast<double>(pixels), fmt::format("a {} x {} image", width, height));

  cudalab::Report report("rgba_split", o.common.json);
  report.field("device", "device", facts.name);
  report.field("width", "width", static_cast<long long>(width));
  report.field("height", "height", static_cast<long long>(height));
  report.field("pixels", "pixels", static_cast<long long>(pixels));
  report.field("source", "image", o.input.empty() ? fmt::format("synthetic (seed {})", o.common.seed) : o.input);
  report.field("bytes_moved", "bytes moved per launch (8 per pixel)", cudalab::bytes_cell(bytes));
  report.field("peak_gbps", "theoretical DRAM bandwidth", Value(facts.theoretical_bandwidth_gbps(), 0), "GB/s");

  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const cudalab::CopyCeiling ceiling = cudalab::measure_copy_ceiling(bench);
  cudalab::report_copy_ceiling(report, ceiling.gbps);

  if (o.input.empty()) image.rgba = cudalab::random_bytes(4 * pixels, o.common.seed);
  OnDevice dev(image.rgba, width, height);
  dev.alternate(image.rgba);

  report.heading("Launch configuration");
  const auto geometry_2d = rgba_split::plan_launch(rgba_split::Variant::kNaive, width, height);
  report.field("grid_2d", "2D variants (naive, uchar4)", geometry_2d.geometry.describe("pixels"));
  if (geometry_2d.rows_looped) {
    report.note(fmt::format("  {} block rows exceed gridDim.y <= 65535: the grid has 65535 and each thread loops over rows",
                            geometry_2d.geometry.grid_y));
  }
  cudalab::Table launch_table({{"variant", "variant"}, {"what", "what changes"}, {"blocks", "blocks"},
                               {"threads", "threads"}, {"idle", "idle slots"}});
  std::vector<cudalab::Rung> rungs;
  for (auto v : chosen_variants(o)) {
    const auto l = rgba_split::plan_launch(v, width, height);
    launch_table.add_row({rgba_split::variant_name(v), rgba_split::variant_summary(v), l.geometry.blocks(),
                          l.geometry.threads(), l.geometry.idle_slots()});
    rungs.push_back(dev.rung(v));
  }
  report.table("launch", launch_table);
  // The notes' program 2 times its version A once, as the process's first kernel launch: the
  // lab times that launch too, beside the warm median (errata row 41).
  rungs.front().time_first_launch = true;
  const cudalab::LadderResult ladder = cudalab::run_ladder(bench, rungs);
  cudalab::report_ladder(report, ladder, {facts.theoretical_bandwidth_gbps(), ceiling.gbps}, o.common.repeat);
  const bool all_ok = ladder.all_ok;
  report.field("verified", "every plane matches the CPU byte for byte", all_ok);

  if (!o.output_dir.empty() && all_ok) {
    // The planes of the last variant run are still in `actual` (of the negative image, if that
    // was the last one timed: turned back).
    if (dev.negated()) {
      for (auto& plane : dev.actual) plane = OnDevice::negative(plane);
    }
    for (int c = 0; c < 4; ++c) {
      const std::string path = (std::filesystem::path(o.output_dir) / (std::string(kPlaneNames[c]) + ".png")).string();
      rgba_split::write_gray_png(path, dev.actual[c].data(), width, height);
    }
    report.field("output_dir", "planes written to", o.output_dir);
  }
  return all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("rgba_split", [&] { return run(argc, argv); });
}
