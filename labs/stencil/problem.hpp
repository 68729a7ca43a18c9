#pragma once
// The stencil lab's problems, each stated once for its variants (common/driver.hpp): the input
// and the CPU's answer, the bytes a launch must move (the input read once, the output written
// once: 8 per cell, however many steps a heat launch takes), the FLOPs, the poison, the check
// of every element, and fresh inputs for every timed launch (the input times ±2^k:
// InputSets::add_scaled; every stencil here is linear, so the answer is the first's times the
// same number), so that a cached or replayed result is caught.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/variants.hpp"
#include "reference.hpp"
#include "stencil.hpp"

namespace stencil {

// What every problem shares: an input of `cells` floats, fresh for every timed launch.
class Field {
 public:
  Field(std::size_t cells, std::uint64_t seed, cudalab::Replays replays) : x_(make_field(cells, seed)), in_(x_) {
    if (replays == cudalab::Replays::kCaught) {
      sets_ = std::make_unique<cudalab::InputSets>();
      sets_->add_scaled(in_);
    }
  }
  Field(const Field&) = delete;
  Field& operator=(const Field&) = delete;

  const std::vector<float>& host() const { return x_; }
  const float* device() const { return in_.data(); }
  std::size_t cells() const { return x_.size(); }
  cudalab::InputSets* replay_sets() { return sets_.get(); }
  // The multiplier of the inputs in the buffers now (1: the field as made).
  double scale() const { return sets_ ? sets_->scale(1.0) : 1.0; }

 private:
  std::vector<float> x_;
  cudalab::DeviceBuffer<float> in_;
  std::unique_ptr<cudalab::InputSets> sets_;
};

class ConvProblem {
 public:
  ConvProblem(int nx, int ny, int radius, std::uint64_t seed, cudalab::Replays replays)
      : nx_(nx), ny_(ny), r_(radius), field_(static_cast<std::size_t>(nx) * ny, seed, replays),
        w_(make_filter(radius, seed + 1)), out_(field_.cells()),
        want_(conv_reference(field_.host(), nx, ny, w_, radius, conv_check_rows(nx, ny, radius, seed + 2))) {
    set_filter(w_, radius);
  }
  ConvProblem(const ConvProblem&) = delete;  // its rungs hold references to it
  ConvProblem& operator=(const ConvProblem&) = delete;

  double bytes() const { return 8.0 * static_cast<double>(field_.cells()); }
  double flops() const { return 2.0 * (2 * r_ + 1) * (2 * r_ + 1) * static_cast<double>(field_.cells()); }
  void poison() { out_.fill_bytes(0xFF); }
  bool check(const std::string& variant) const {
    const std::vector<float> got = out_.download();
    return first_mismatch(want_, got.data(), field_.scale(), variant.c_str()) == want_.value.size();
  }
  cudalab::InputSets* replay_sets() { return field_.replay_sets(); }
  // The elements the check compares (all, or the border rows and 16 drawn ones of a large run).
  std::size_t checked() const { return want_.value.size(); }

  std::vector<cudalab::Rung> rungs(const std::vector<Variant>& chosen) {
    std::vector<cudalab::Rung> rungs;
    for (Variant v : chosen) {
      if (kind_of(v) != Kind::kConv) continue;
      rungs.push_back(cudalab::problem_rung(*this, variant_name(v), [this, v] {
        conv(v, field_.device(), out_.data(), nx_, ny_, r_);
      }));
    }
    return rungs;
  }

 private:
  int nx_, ny_, r_;
  Field field_;
  std::vector<float> w_;
  cudalab::DeviceBuffer<float> out_;
  Answer want_;
};

// The heat equation, 2D (nz == 1 and not three_d) or 3D.
class HeatProblem {
 public:
  HeatProblem(int nx, int ny, int nz, int steps, bool three_d, std::uint64_t seed, cudalab::Replays replays)
      : nx_(nx), ny_(ny), nz_(nz), steps_(steps), three_d_(three_d),
        field_(static_cast<std::size_t>(nx) * ny * nz, seed, replays), a_(field_.cells()), b_(field_.cells()),
        want_(heat_reference(field_.host(), nx, ny, nz, steps, three_d)) {}
  HeatProblem(const HeatProblem&) = delete;
  HeatProblem& operator=(const HeatProblem&) = delete;

  double bytes() const { return 8.0 * static_cast<double>(field_.cells()); }  // the napkin minimum for any steps
  double flops() const { return (three_d_ ? 9.0 : 7.0) * steps_ * static_cast<double>(field_.cells()); }
  void poison() {
    a_.fill_bytes(0xFF);
    b_.fill_bytes(0xFF);
  }
  bool check(const std::string& variant) const {
    std::vector<float> got(field_.cells());
    CUDA_CHECK(cudaMemcpy(got.data(), result_, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return first_mismatch(want_, got.data(), field_.scale(), variant.c_str()) == want_.value.size();
  }
  cudalab::InputSets* replay_sets() { return field_.replay_sets(); }
  int steps() const { return steps_; }

  std::vector<cudalab::Rung> rungs(const std::vector<Variant>& chosen) {
    const Kind kind = three_d_ ? Kind::kHeat3d : Kind::kHeat2d;
    std::vector<cudalab::Rung> rungs;
    for (Variant v : chosen) {
      if (kind_of(v) != kind) continue;
      const auto launches = std::make_shared<int>(0);
      cudalab::Rung r = cudalab::problem_rung(*this, variant_name(v), [this, v, launches] {
        result_ = three_d_ ? heat3d(v, field_.device(), a_.data(), b_.data(), nx_, ny_, nz_, steps_, launches.get())
                           : heat2d(v, field_.device(), a_.data(), b_.data(), nx_, ny_, steps_, launches.get());
      });
      r.cells = [launches] { return std::vector<cudalab::Cell>{{"launches", "launches", *launches}}; };
      rungs.push_back(std::move(r));
    }
    return rungs;
  }

 private:
  int nx_, ny_, nz_, steps_;
  bool three_d_;
  Field field_;
  cudalab::DeviceBuffer<float> a_, b_;
  const float* result_ = nullptr;
  Answer want_;
};

// Each heat variant's time per step against the time the copy ceiling needs to read and write
// the field once: below 1, a step costs less than the memory roof allows one step at a time.
inline std::function<void(cudalab::LadderResult&)> per_step_columns(double cells, int steps, double copy_gbps) {
  return [cells, steps, copy_gbps](cudalab::LadderResult& lr) {
    const double copy_ms = 8.0 * cells / (copy_gbps * 1e6);
    for (auto& r : lr.rungs) {
      const bool ok = r.result.correct && copy_gbps > 0;
      const double step_ms = r.result.timing.median_ms / steps;
      r.cells.push_back({"step_ms", "ms/step", ok ? cudalab::Value(step_ms, 4) : cudalab::Value()});
      r.cells.push_back({"step_over_copy", "step / copy", ok ? cudalab::Value(step_ms / copy_ms, 2) : cudalab::Value()});
    }
  };
}

}  // namespace stencil
