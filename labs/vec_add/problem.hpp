#pragma once
// The vec_add lab's problem on the device, stated once for every variant (common/driver.hpp): a,
// b and c, the CPU's answer, the bytes and FLOPs of one launch, the poison, the check of every
// element, and fresh inputs for every timed launch: a and b times ±2^k or an odd int
// (InputSets::add_scaled), whose sum is exactly (a + b) times the same number (a power of two
// scales every float rounding exactly; ints wrap alike), so a kernel that replays a result or
// does the work once is caught.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "common/variants.hpp"
#include "reference.hpp"
#include "vec_add.hpp"

namespace vec_add {

template <typename T>
class DeviceProblem {
 public:
  DeviceProblem(const Problem<T>& problem, cudalab::Replays replays)
      : p_(problem), actual_(problem.a.size()), da_(problem.a), db_(problem.b), dc_(problem.a.size()) {
    if (replays != cudalab::Replays::kCaught) return;
    sets_ = std::make_unique<cudalab::InputSets>();
    sets_->add_scaled(da_);
    sets_->add_scaled(db_);
  }
  DeviceProblem(const DeviceProblem&) = delete;  // its rungs hold references to it
  DeviceProblem& operator=(const DeviceProblem&) = delete;

  std::size_t size() const { return actual_.size(); }
  double bytes() const { return 3.0 * static_cast<double>(size()) * sizeof(T); }  // read a and b, write c
  double flops() const { return std::is_floating_point_v<T> ? static_cast<double>(size()) : 0.0; }  // one add per element
  void poison() { dc_.fill_bytes(0xFF); }  // an element the kernel skips cannot match
  bool check(const std::string& variant) {
    dc_.download(actual_.data(), actual_.size());
    const cudalab::CheckResult check = cudalab::check_exact(current_expected(), actual_);
    if (!check.ok()) {
      std::fprintf(stderr, "vec_add: variant %s is wrong at N = %zu: %s\n", variant.c_str(), actual_.size(),
                   check.summary().c_str());
    }
    return check.ok();
  }
  cudalab::InputSets* replay_sets() { return sets_.get(); }

  // The rung of one plan (a variant at this N and block size), with its fallback when the
  // pointers do not suit its kernel.
  cudalab::Rung rung(const Plan& plan) {
    cudalab::Rung r = cudalab::problem_rung(*this, variant_name(plan.variant),
                                            [this, plan] { launch(plan, da_.data(), db_.data(), dc_.data()); });
    r.fallback = fallback(plan, da_.data(), db_.data(), dc_.data());
    return r;
  }

  // One rung per chosen variant ("all" or a name) with `block` threads per block; their plans
  // stay in plans(), in the same order.
  std::vector<cudalab::Rung> rungs(const std::string& chosen, int block) {
    plans_.clear();
    std::vector<cudalab::Rung> rungs;
    for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
      plans_.push_back(make_plan(v, size(), block));
      rungs.push_back(rung(plans_.back()));
    }
    return rungs;
  }
  const std::vector<Plan>& plans() const { return plans_; }

  // The launch of each plan: its blocks, threads, elements per thread and idle thread slots.
  cudalab::Table launch_table() const {
    cudalab::Table t({{"variant", "variant"}, {"blocks", "blocks"}, {"threads", "threads"},
                      {"per_thread", "per thread"}, {"idle", "idle slots"}, {"idle_percent", "idle %"}});
    for (const Plan& plan : plans_) {
      const auto& g = plan.geometry;
      t.add_row({variant_name(plan.variant), g.blocks(), g.threads(), g.items_per_thread, g.idle_slots(),
                 cudalab::Value(g.idle_percent(), 2)});
    }
    return t;
  }

  // Host->device copies of a and b, the kernel of plans()[k], and the copy of c back: what a
  // program that starts and ends with data in host memory pays. Pageable host memory, as in the
  // notes.
  cudalab::Timing end_to_end(std::size_t k, int repeat) {
    const Plan plan = plans_.at(k);
    cudalab::Benchmarker bench({1, repeat, false});
    return bench.run([&] {
      da_.upload(p_.a);
      db_.upload(p_.b);
      launch(plan, da_.data(), db_.data(), dc_.data());
      dc_.download(actual_.data(), actual_.size());
    });
  }

 private:
  const Problem<T>& p_;
  std::vector<T> actual_;
  cudalab::DeviceBuffer<T> da_, db_, dc_;
  std::unique_ptr<cudalab::InputSets> sets_;
  std::vector<Plan> plans_;

  // The answer to the inputs in the buffers now: the CPU's a + b, scaled as the inputs were
  // (InputSets::scale: floats by a power of two, exactly; ints modulo 2^32).
  std::vector<T> current_expected() const {
    if (!sets_ || sets_->current() < 0) return p_.expected;
    std::vector<T> want(p_.expected.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      if constexpr (std::is_integral_v<T>) want[i] = static_cast<T>(sets_->scale(static_cast<std::int32_t>(p_.expected[i])));
      else want[i] = static_cast<T>(sets_->scale(static_cast<double>(p_.expected[i])));
    }
    return want;
  }
};

}  // namespace vec_add
