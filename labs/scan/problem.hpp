#pragma once
// The scan lab's problem, stated once for every variant and for CUB (common/driver.hpp): x and
// the device buffers, the bytes a scan must move, the poison, the check of every element, and
// fresh inputs for every timed launch (x times ±2^k, or an odd int: InputSets::add_scaled), whose
// prefix sums are exactly x's times the same number, in any order of additions.
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/variants.hpp"
#include "reference.hpp"
#include "scan.hpp"

namespace scan {

// The number the inputs in the buffers now are the base inputs times (1: no fresh inputs, or the
// base): ±2^k for float, an odd int32 for int (InputSets::add_scaled).
template <typename T>
double multiplier_of(const cudalab::InputSets* sets) {
  if (!sets) return 1.0;
  if constexpr (std::is_integral_v<T>) return static_cast<double>(sets->scale(std::int32_t{1}));
  else return sets->scale(1.0);
}

// x times that number as the device's scaling kernel computes it: exactly for a power of two;
// modulo 2^32 for int.
template <typename T>
T scaled(T x, double m) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<std::uint32_t>(x) * static_cast<std::uint32_t>(static_cast<std::int64_t>(m)));
  } else {
    return static_cast<T>(x * static_cast<T>(m));
  }
}

template <typename T>
class Problem {
 public:
  Problem(std::size_t n, Kind kind, std::uint64_t seed, cudalab::Replays replays)
      : kind_(kind), x_(make_input<T>(n, seed)), in_(x_), out_(n), ws_(n), cub_(in_.data(), out_.data(), n, kind) {
    if (replays == cudalab::Replays::kCaught) {
      sets_ = std::make_unique<cudalab::InputSets>();
      sets_->add_scaled(in_);
    }
  }
  Problem(const Problem&) = delete;  // its rungs hold references to it
  Problem& operator=(const Problem&) = delete;

  double bytes() const { return 2.0 * static_cast<double>(x_.size()) * sizeof(T); }  // read each element, write each once
  double flops() const { return 0; }
  // 0x7F bytes: no int prefix of these inputs and no finite float sum near them.
  void poison() { out_.fill_bytes(0x7F); }
  bool check(const std::string& variant) const {
    const std::vector<T> got = out_.download();
    return first_mismatch(x_, got.data(), kind_, multiplier(), variant.c_str()) == x_.size();
  }
  cudalab::InputSets* replay_sets() { return sets_.get(); }
  // The number the inputs in the buffers now are x times.
  double multiplier() const { return multiplier_of<T>(sets_.get()); }

  // One rung per chosen variant (its cells: the launches it took and its tile), then CUB's.
  std::vector<cudalab::Rung> rungs(const std::string& chosen) {
    std::vector<cudalab::Rung> rungs;
    for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
      const auto launches = std::make_shared<int>(0);
      cudalab::Rung r = cudalab::problem_rung(*this, variant_name(v), [this, v, launches] {
        *launches = scan(v, kind_, in_.data(), out_.data(), in_.size(), ws_);
      });
      r.cells = [launches, v] {
        return std::vector<cudalab::Cell>{{"launches", "launches", *launches},
                                          {"tile", "tile", static_cast<long long>(tile_elements(v))}};
      };
      rungs.push_back(std::move(r));
    }
    rungs.push_back(cudalab::baseline_rung(
        *this, kind_ == Kind::kInclusive ? "cub::DeviceScan::InclusiveSum" : "cub::DeviceScan::ExclusiveSum",
        [this] { cub_.run(); }));
    return rungs;
  }

 private:
  Kind kind_;
  std::vector<T> x_;
  cudalab::DeviceBuffer<T> in_, out_;
  Workspace<T> ws_;
  CubScan<T> cub_;
  std::unique_ptr<cudalab::InputSets> sets_;
};

// Stream compaction's problem (the x > 0 of x, in order): the bytes it must move (read every
// element, write the kept ones: those of x itself), the poisoned output and count, the check of
// the count and of every kept element, and fresh inputs for every timed launch (x times ±2^k or
// an odd int, as the scan's): which elements are kept changes with the sign of the number (for
// int, with the wrapped product), so the CPU selects again from the scaled x when it checks.
template <typename T>
class CompactionProblem {
 public:
  CompactionProblem(std::size_t n, std::uint64_t seed, cudalab::Replays replays)
      : x_(make_input<T>(n, seed)), in_(x_), out_(n), count_(1), ws_(n), cub_(in_.data(), out_.data(), count_.data(), n) {
    want_ = compaction_reference(x_);
    if (replays == cudalab::Replays::kCaught) {
      sets_ = std::make_unique<cudalab::InputSets>();
      sets_->add_scaled(in_);
    }
  }
  CompactionProblem(const CompactionProblem&) = delete;  // its rungs hold references to it
  CompactionProblem& operator=(const CompactionProblem&) = delete;

  double bytes() const { return static_cast<double>(x_.size() + want_.size()) * sizeof(T); }
  double flops() const { return 0; }
  void poison() {
    out_.fill_bytes(0x7F);
    count_.fill_bytes(0xFF);
  }
  bool check(const std::string& variant) const {
    const std::vector<T> got = out_.download();
    return compaction_matches(current_answer(), count_.download()[0], got.data(), variant.c_str());
  }
  cudalab::InputSets* replay_sets() { return sets_.get(); }
  std::size_t kept() const { return want_.size(); }

  // One rung per chosen variant (its launches as a cell), then CUB's DeviceSelect::If.
  std::vector<cudalab::Rung> rungs(const std::string& chosen) {
    std::vector<cudalab::Rung> rungs;
    for (compaction::Variant v :
         cudalab::select_variants(compaction::all_variants(), compaction::variant_name, chosen)) {
      const auto launches = std::make_shared<int>(0);
      cudalab::Rung r = cudalab::problem_rung(*this, compaction::variant_name(v), [this, v, launches] {
        *launches = compaction::compact(v, in_.data(), out_.data(), in_.size(), count_.data(), ws_);
      });
      r.cells = [launches] { return std::vector<cudalab::Cell>{{"launches", "launches", *launches}}; };
      rungs.push_back(std::move(r));
    }
    rungs.push_back(cudalab::baseline_rung(*this, "cub::DeviceSelect::If", [this] { cub_.run(); }));
    return rungs;
  }

 private:
  // The x > 0 of the inputs in the buffer now: x's own, or those of x times the launch's number.
  std::vector<T> current_answer() const {
    const double m = multiplier_of<T>(sets_.get());
    if (m == 1.0) return want_;
    std::vector<T> x(x_.size());
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = scaled(x_[i], m);
    return compaction_reference(x);
  }

  std::vector<T> x_;
  std::vector<T> want_;
  cudalab::DeviceBuffer<T> in_, out_;
  cudalab::DeviceBuffer<unsigned long long> count_;
  compaction::Workspace ws_;
  compaction::CubSelect<T> cub_;
  std::unique_ptr<cudalab::InputSets> sets_;
};

}  // namespace scan
