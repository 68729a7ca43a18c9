#pragma once
// The vec_add lab's problem on the device, stated once for every variant (common/driver.hpp): a,
// b and c, the CPU's answer, the bytes and FLOPs of one launch, the poison, the check of every
// element, and -a, -b as the second input set (their sum is exactly -(a + b), so a kernel that
// replays a result is caught).
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/timer.hpp"
#include "reference.hpp"
#include "vec_add.hpp"

namespace vec_add {

template <typename T>
class DeviceProblem {
 public:
  DeviceProblem(const Problem<T>& problem, cudalab::Replays replays)
      : p_(problem), actual_(problem.a.size()), da_(problem.a), db_(problem.b), dc_(problem.a.size()) {
    if (replays != cudalab::Replays::kCaught) return;
    std::vector<T> na(p_.a.size()), nb(p_.b.size());
    negated_expected_.resize(p_.expected.size());
    for (std::size_t i = 0; i < na.size(); ++i) {
      na[i] = -p_.a[i];
      nb[i] = -p_.b[i];
      negated_expected_[i] = -p_.expected[i];
    }
    sets_ = std::make_unique<cudalab::InputSets>();
    sets_->add(da_, na);
    sets_->add(db_, nb);
  }
  DeviceProblem(const DeviceProblem&) = delete;  // its rungs hold references to it
  DeviceProblem& operator=(const DeviceProblem&) = delete;

  std::size_t size() const { return actual_.size(); }
  double bytes() const { return 3.0 * static_cast<double>(size()) * sizeof(T); }  // read a and b, write c
  double flops() const { return std::is_floating_point_v<T> ? static_cast<double>(size()) : 0.0; }  // one add per element
  void poison() { dc_.fill_bytes(0xFF); }  // an element the kernel skips cannot match
  bool check(const std::string& variant) {
    dc_.download(actual_.data(), actual_.size());
    const cudalab::CheckResult check =
        cudalab::check_exact(cudalab::current_answer(sets_.get(), p_.expected, negated_expected_), actual_);
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

  // Host->device copies of a and b, the kernel, and the copy of c back: what a program that
  // starts and ends with data in host memory pays. Pageable host memory, as in the notes.
  cudalab::Timing end_to_end(const Plan& plan, int repeat) {
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
  std::vector<T> negated_expected_;
};

}  // namespace vec_add
