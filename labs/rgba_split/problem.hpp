#pragma once
// The rgba_split lab's problem, stated once for every variant (common/driver.hpp): one image on
// the device and the CPU's four planes of it, 8 bytes moved per pixel, the poisoned planes (an
// unwritten pixel fails the check), the byte-for-byte check, and the image's negative (every
// byte 255 - v, whose planes are the negatives of the planes) as the second input set that
// catches a replayed result.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/report.hpp"
#include "common/variants.hpp"
#include "device_planes.hpp"
#include "image_io.hpp"
#include "reference.hpp"
#include "rgba_split.hpp"

namespace rgba_split {

inline const char* const kPlaneNames[4] = {"r", "g", "b", "a"};

// Compares the four planes; prints the first mismatch of each wrong plane as
// "plane g: pixel (x, y): expected 17, got 0" on stderr. Returns true when all match.
inline bool verify(const std::string& variant, const HostPlanes& expected, const HostPlanes& actual, std::size_t width) {
  bool ok = true;
  for (int c = 0; c < 4; ++c) {
    const auto r = cudalab::check_exact(expected[c], actual[c], 1);
    if (!r.ok()) {
      ok = false;
      const auto& m = r.first.front();
      std::fprintf(stderr, "rgba_split: %s: plane %s: pixel (%zu, %zu): expected %d, got %d (%zu pixels differ)\n",
                   variant.c_str(), kPlaneNames[c], m.index % width, m.index / width, static_cast<int>(m.expected),
                   static_cast<int>(m.actual), r.mismatches);
    }
  }
  return ok;
}

class Problem {
 public:
  Problem(const std::vector<std::uint8_t>& rgba, std::size_t width, std::size_t height, cudalab::Replays replays)
      : width_(width), height_(height), pixels_(width * height), d_rgba_(rgba), d_planes_(pixels_) {
    expected_ = reference_planes(rgba.data(), pixels_);
    if (replays == cudalab::Replays::kCaught) {  // fresh bytes for every timed launch
      sets_ = std::make_unique<cudalab::InputSets>();
      sets_->add_rotated(d_rgba_, 256);
    }
  }
  Problem(const Problem&) = delete;  // its rungs hold references to it
  Problem& operator=(const Problem&) = delete;

  double bytes() const { return 8.0 * static_cast<double>(pixels_); }
  double flops() const { return 0; }
  void poison() { d_planes_.poison(); }
  bool check(const std::string& variant) {
    d_planes_.download(actual_, pixels_);
    if (shift() == 0) return verify(variant, expected_, actual_, width_);
    HostPlanes want;
    for (int c = 0; c < 4; ++c) want[c] = rotated(expected_[c], shift());
    return verify(variant, want, actual_, width_);
  }
  cudalab::InputSets* replay_sets() { return sets_.get(); }

  // One rung per chosen variant, with its fallback (the bytes a wide load could not cover).
  std::vector<cudalab::Rung> rungs(const std::string& chosen) {
    std::vector<cudalab::Rung> rungs;
    for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
      cudalab::Rung r = cudalab::problem_rung(*this, variant_name(v), [this, v] {
        launch(v, d_rgba_.data(), d_planes_.view(), width_, height_);
      });
      r.fallback = fallback(v, d_rgba_.data(), d_planes_.view());
      rungs.push_back(std::move(r));
    }
    return rungs;
  }

  // The "Launch configuration" section: the 2D variants' grid (and whether its threads loop over
  // rows past gridDim.y's limit), then launches(chosen).
  void report_launches(cudalab::Report& report, const std::string& chosen) const {
    report.heading("Launch configuration");
    const auto geometry_2d = plan_launch(Variant::kNaive, width_, height_);
    report.field("grid_2d", "2D variants (naive, uchar4, smem_staged)", geometry_2d.geometry.describe("pixels"));
    if (geometry_2d.rows_looped) {
      report.note(fmt::format("  {} block rows exceed gridDim.y <= 65535: the grid has 65535 and each thread loops "
                              "over rows", geometry_2d.geometry.grid_y));
    }
    report.table("launch", launches(chosen));
  }

  // The launch of each chosen variant: what it changes, its blocks, threads and idle slots.
  cudalab::Table launches(const std::string& chosen) const {
    cudalab::Table t({{"variant", "variant"}, {"what", "what changes"}, {"blocks", "blocks"}, {"threads", "threads"},
                      {"idle", "idle slots"}});
    for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
      const auto l = plan_launch(v, width_, height_);
      t.add_row({variant_name(v), variant_summary(v), l.geometry.blocks(), l.geometry.threads(), l.geometry.idle_slots()});
    }
    return t;
  }

  // The planes of the last check, of the image as given (the last launch's rotation undone).
  HostPlanes planes() const {
    HostPlanes out;
    for (int c = 0; c < 4; ++c) out[c] = rotated(actual_[c], (256 - shift()) % 256);
    return out;
  }

  // planes() as dir/r.png, g.png, b.png and a.png (grayscale).
  void write_planes(const std::string& dir) const {
    const HostPlanes p = planes();
    for (int c = 0; c < 4; ++c) {
      const std::string path = (std::filesystem::path(dir) / (std::string(kPlaneNames[c]) + ".png")).string();
      write_gray_png(path, p[c].data(), width_, height_);
    }
  }

 private:
  std::size_t width_, height_, pixels_;
  // The rotation of the bytes in the device image now (0: the image as given).
  std::uint64_t shift() const { return sets_ ? sets_->rotation(256) : 0; }

  HostPlanes expected_, actual_;
  cudalab::DeviceBuffer<std::uint8_t> d_rgba_;
  DevicePlanes d_planes_;
  std::unique_ptr<cudalab::InputSets> sets_;
};

}  // namespace rgba_split
