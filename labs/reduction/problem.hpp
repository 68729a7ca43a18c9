#pragma once
// The reduction lab's problem, stated once for every variant and for CUB (common/driver.hpp): x,
// the CPU's exact sum and the accepted rounding error, the device buffers, the bytes and FLOPs of
// one sum, the poison, the check, and fresh inputs for every timed launch (x times ±2^k, or an odd
// int: InputSets::add_scaled), whose sums are x's times the same number in any order of
// additions, each checked after its launch: a kernel that caches or replays a result is caught.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/report.hpp"
#include "common/variants.hpp"
#include "reduction.hpp"
#include "reference.hpp"

namespace reduction {

template <typename T>
class Problem {
 public:
  // `resident_threads`: the GPU's, which bound the float sum's rounding (expected_sum).
  Problem(std::size_t n, std::uint64_t seed, long long resident_threads, int block, cudalab::Replays replays)
      : block_(block),
        x_(make_input<T>(n, seed)),
        want_(expected_sum(x_, resident_threads)),
        d_x_(x_),
        ws_(n),
        cub_out_(1),
        cub_(d_x_.data(), n, cub_out_.data()) {
    if (replays == cudalab::Replays::kCaught) {  // fresh inputs for every timed launch: x times ±2^k
      sets_ = std::make_unique<cudalab::InputSets>();
      sets_->add_scaled(d_x_);
    }
  }
  Problem(const Problem&) = delete;  // its rungs hold references to it
  Problem& operator=(const Problem&) = delete;

  const Expected<T>& expected() const { return want_; }
  double bytes() const { return static_cast<double>(x_.size()) * sizeof(T); }
  double flops() const { return std::is_floating_point_v<T> ? static_cast<double>(x_.size()) : 0.0; }  // one add per element
  // Both results all 0xFF bytes (a NaN, or -1 for int: not the sum of these inputs).
  void poison() {
    CUDA_CHECK(cudaMemset(ws_.result(), 0xFF, sizeof(T)));
    CUDA_CHECK(cudaMemset(cub_out_.data(), 0xFF, sizeof(T)));
  }
  // The sum a variant left in its workspace.
  bool check(const std::string& variant) { return check_value(variant, read(ws_.result())); }
  cudalab::InputSets* replay_sets() { return sets_.get(); }

  // One rung per chosen variant, then CUB's. A variant's check also runs it three more times: one
  // that claims bitwise reproducibility must give the same bits every time. Its cells: the
  // launches it took, its claim, and whether its four results were bitwise the same. With
  // `first_launches`, the variants the notes timed cold have their first launch timed too.
  std::vector<cudalab::Rung> rungs(const std::string& chosen, bool first_launches) {
    std::vector<cudalab::Rung> rungs;
    for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
      struct Seen {
        int passes = 0;
        bool same_bits = true;
      };
      const auto seen = std::make_shared<Seen>();
      const Traits& t = traits(v);
      cudalab::Rung r = cudalab::problem_rung(*this, variant_name(v), [this, v, seen] {
        seen->passes = reduce(v, d_x_.data(), d_x_.size(), block_, ws_);
      });
      r.time_first_launch = first_launches && t.cold_launch_timed;
      r.check = [this, v, seen, &t] {
        const T got = read(ws_.result());
        const bool ok = check_value(variant_name(v), got);
        bool same = true;
        for (int k = 0; k < 3; ++k) {
          reduce(v, d_x_.data(), d_x_.size(), block_, ws_);
          const T again = read(ws_.result());
          same = same && std::memcmp(&again, &got, sizeof(T)) == 0;
        }
        seen->same_bits = same;
        if (t.reproducible && !same) {
          std::fprintf(stderr, "reduction: %s claims bitwise reproducibility but its results differed\n",
                       variant_name(v).c_str());
        }
        return ok && (same || !t.reproducible);
      };
      // after every timed launch, the one value it wrote (without the reruns)
      r.check_each = [this, v](int) { return check_value(variant_name(v), read(ws_.result())); };
      r.cells = [seen, &t] {
        using cudalab::Value;
        return std::vector<cudalab::Cell>{
            {"launches", "launches", seen->passes},
            {"reproducible_claimed", "claims", Value::shown(t.reproducible, t.reproducible ? "same bits" : "none")},
            {"same_bits_x4", "same x4", Value::shown(seen->same_bits, seen->same_bits ? "yes" : "DIFFERED")}};
      };
      r.fallback = fallback(v, d_x_.data());
      rungs.push_back(std::move(r));
    }
    cudalab::Rung cub = cudalab::baseline_rung(*this, "cub::DeviceReduce::Sum", [this] { cub_.run(); });
    cub.check = [this, name = cub.name] { return check_value(name, read(cub_out_.data())); };
    cub.check_each = [this, name = cub.name](int) { return check_value(name, read(cub_out_.data())); };
    rungs.push_back(std::move(cub));
    return rungs;
  }

 private:
  static T read(const T* device) {
    T v{};
    CUDA_CHECK(cudaMemcpy(&v, device, sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
  // The answer to the inputs in the buffers now: x's, scaled by the repetition's multiplier
  // (exactly: ints modulo 2^32; floats and the rounding bound by a power of two).
  Expected<T> current_expected() const {
    if (!sets_) return want_;
    Expected<T> e = want_;
    if constexpr (std::is_integral_v<T>) {
      e.exact = static_cast<T>(sets_->scale(static_cast<std::int32_t>(want_.exact)));
      e.value = static_cast<double>(e.exact);
    } else {
      e.value = sets_->scale(want_.value);
      e.tolerance = want_.tolerance * std::fabs(sets_->scale(1.0));
    }
    return e;
  }

  bool check_value(const std::string& variant, T got) const {
    const Expected<T> want = current_expected();
    const bool ok = matches(want, got);
    if (!ok) {
      std::fprintf(stderr, "reduction: %s gave %s, expected %s\n", variant.c_str(), fmt::format("{}", got).c_str(),
                   fmt::format("{}", want.value).c_str());
    }
    return ok;
  }

  int block_;
  std::vector<T> x_;
  Expected<T> want_;
  cudalab::DeviceBuffer<T> d_x_;
  Workspace<T> ws_;
  cudalab::DeviceBuffer<T> cub_out_;
  CubSum<T> cub_;
  std::unique_ptr<cudalab::InputSets> sets_;
};

}  // namespace reduction
