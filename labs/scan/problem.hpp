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
  double multiplier() const {
    if (!sets_) return 1.0;
    if constexpr (std::is_integral_v<T>) return static_cast<double>(sets_->scale(std::int32_t{1}));
    else return sets_->scale(1.0);
  }

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
// element, write the kept ones), the poisoned output and count, the check of the count and of
// every kept element, and -x as the second input set (it keeps the other elements: its answer
// differs from the first's in every element, so a replayed result is caught).
template <typename T>
class CompactionProblem {
 public:
  CompactionProblem(std::size_t n, std::uint64_t seed, cudalab::Replays replays)
      : x_(make_input<T>(n, seed)), in_(x_), out_(n), count_(1), ws_(n), cub_(in_.data(), out_.data(), count_.data(), n) {
    want_[0] = compaction_reference(x_);
    if (replays == cudalab::Replays::kCaught) {
      std::vector<T> negated(n);
      for (std::size_t i = 0; i < n; ++i) negated[i] = static_cast<T>(-x_[i]);
      want_[1] = compaction_reference(negated);
      sets_ = std::make_unique<cudalab::InputSets>();
      sets_->add(in_, negated);
    }
  }
  CompactionProblem(const CompactionProblem&) = delete;  // its rungs hold references to it
  CompactionProblem& operator=(const CompactionProblem&) = delete;

  double bytes() const { return static_cast<double>(x_.size() + want_[0].size()) * sizeof(T); }
  double flops() const { return 0; }
  void poison() {
    out_.fill_bytes(0x7F);
    count_.fill_bytes(0xFF);
  }
  bool check(const std::string& variant) const {
    const std::vector<T> got = out_.download();
    return compaction_matches(cudalab::current_answer(sets_.get(), want_[0], want_[1]), count_.download()[0],
                              got.data(), variant.c_str());
  }
  cudalab::InputSets* replay_sets() { return sets_.get(); }
  std::size_t kept() const { return want_[0].size(); }

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
  std::vector<T> x_;
  std::vector<T> want_[2];
  cudalab::DeviceBuffer<T> in_, out_;
  cudalab::DeviceBuffer<unsigned long long> count_;
  compaction::Workspace ws_;
  compaction::CubSelect<T> cub_;
  std::unique_ptr<cudalab::InputSets> sets_;
};

}  // namespace scan
