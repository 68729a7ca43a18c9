#pragma once
// The transpose lab's problem, stated once for every variant (common/driver.hpp): the input and
// the CPU's transpose of it, the bytes a transpose must move (read each element, write it once),
// the poison, the exact check, and fresh inputs for every timed launch (the input times ±2^k:
// InputSets::add_scaled; its transpose is exactly the first's times the same number), so that a
// kernel that caches or replays an earlier result is caught.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/report.hpp"
#include "common/variants.hpp"
#include "reference.hpp"
#include "transpose.hpp"

namespace transpose {

class Problem {
 public:
  Problem(int rows, int cols, cudalab::Replays replays)
      : rows_(rows), cols_(cols), in_(make_input(rows_u(), cols_u())), d_in_(in_), d_out_(in_.size()) {
    expected_ = reference(in_, rows_u(), cols_u());
    if (replays == cudalab::Replays::kCaught) {
      sets_ = std::make_unique<cudalab::InputSets>();
      sets_->add_scaled(d_in_);
    }
  }
  Problem(const Problem&) = delete;  // its rungs hold references to it
  Problem& operator=(const Problem&) = delete;

  double bytes() const { return 2.0 * static_cast<double>(in_.size()) * sizeof(float); }
  double flops() const { return 0; }
  void poison() { d_out_.fill_bytes(0xFF); }  // NaN in every element
  bool check(const std::string& variant) const {
    std::vector<float> want = expected_;  // times the inputs' multiplier: exact, a power of two
    if (sets_) {
      const auto m = static_cast<float>(sets_->scale(1.0));
      for (float& v : want) v *= m;
    }
    const auto check = cudalab::check_exact(want, d_out_.download());
    if (!check.ok()) std::fprintf(stderr, "transpose: %s is wrong: %s\n", variant.c_str(), check.summary().c_str());
    return check.ok();
  }
  cudalab::InputSets* replay_sets() { return sets_.get(); }

  // One rung per chosen variant.
  std::vector<cudalab::Rung> rungs(const std::string& chosen) {
    std::vector<cudalab::Rung> rungs;
    for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
      rungs.push_back(cudalab::problem_rung(*this, variant_name(v), [this, v] {
        launch(v, d_in_.data(), d_out_.data(), rows_, cols_);
      }));
    }
    return rungs;
  }

  // The launch of each chosen variant: its block, threads, elements per thread and blocks.
  cudalab::Table launches(const std::string& chosen) const {
    cudalab::Table t({{"variant", "variant"}, {"block_x", "block x"}, {"block_y", "block y"}, {"threads_per_block", "threads/block"},
                      {"elements_per_thread", "elements/thread"}, {"blocks", "blocks"}});
    for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
      const LaunchShape l = launch_shape(v, rows_, cols_);
      const double threads = static_cast<double>(l.blocks()) * l.threads_per_block();
      t.add_row({variant_name(v), static_cast<long long>(l.block_x), static_cast<long long>(l.block_y),
                 static_cast<long long>(l.threads_per_block()),
                 cudalab::Value(static_cast<double>(in_.size()) / threads, 1), l.blocks()});
    }
    return t;
  }

 private:
  std::size_t rows_u() const { return static_cast<std::size_t>(rows_); }
  std::size_t cols_u() const { return static_cast<std::size_t>(cols_); }

  int rows_, cols_;
  std::vector<float> in_;
  std::vector<float> expected_;
  cudalab::DeviceBuffer<float> d_in_, d_out_;
  std::unique_ptr<cudalab::InputSets> sets_;
};

}  // namespace transpose
