#pragma once
// CPU reference checkers: compare a GPU result with the CPU reference element by element and
// report how many differ and the first few mismatches (index, expected, actual).
#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace cudalab {

struct Mismatch {
  std::size_t index;
  double expected;
  double actual;
};

struct CheckResult {
  std::size_t checked = 0;
  std::size_t mismatches = 0;
  std::vector<Mismatch> first;  // at most max_reported entries, in index order

  bool ok() const { return mismatches == 0; }
  // "3 of 1000 elements differ; first: [7] expected 1 got 0, ..." or "all 1000 elements match".
  std::string summary() const;
};

inline constexpr std::size_t kMaxReportedMismatches = 5;

namespace detail {
inline void record(CheckResult& r, std::size_t i, double expected, double actual,
                   std::size_t max_reported) {
  ++r.mismatches;
  if (r.first.size() < max_reported) r.first.push_back({i, expected, actual});
}
}  // namespace detail

// Exact comparison (integers, bytes, results that must be bitwise identical). For floating
// point, NaN never equals anything, so a NaN in `actual` is always a mismatch.
template <typename T>
CheckResult check_exact(const T* expected, const T* actual, std::size_t count,
                        std::size_t max_reported = kMaxReportedMismatches) {
  CheckResult r;
  r.checked = count;
  for (std::size_t i = 0; i < count; ++i) {
    if (!(expected[i] == actual[i])) {
      detail::record(r, i, static_cast<double>(expected[i]), static_cast<double>(actual[i]),
                     max_reported);
    }
  }
  return r;
}

template <typename T>
CheckResult check_exact(const std::vector<T>& expected, const std::vector<T>& actual,
                        std::size_t max_reported = kMaxReportedMismatches) {
  CheckResult r = check_exact(expected.data(), actual.data(),
                              expected.size() < actual.size() ? expected.size() : actual.size(),
                              max_reported);
  if (expected.size() != actual.size()) {
    // A size difference is itself a failure; count the missing/extra elements.
    const std::size_t extra = expected.size() > actual.size() ? expected.size() - actual.size()
                                                              : actual.size() - expected.size();
    r.mismatches += extra;
    r.checked += extra;
  }
  return r;
}

// Tolerance comparison: |actual - expected| <= abs_tol + rel_tol * |expected|.
// NaN or infinity in `actual` fails unless `expected` holds the identical non-finite value
// (NaN never passes: a kernel that produces NaN is wrong even where the reference is NaN).
template <typename T>
CheckResult check_close(const T* expected, const T* actual, std::size_t count, double abs_tol,
                        double rel_tol, std::size_t max_reported = kMaxReportedMismatches) {
  static_assert(std::is_arithmetic_v<T>, "check_close compares numbers");
  CheckResult r;
  r.checked = count;
  for (std::size_t i = 0; i < count; ++i) {
    const double e = static_cast<double>(expected[i]);
    const double a = static_cast<double>(actual[i]);
    bool good;
    if (std::isnan(a) || std::isnan(e)) {
      good = false;
    } else if (std::isinf(a) || std::isinf(e)) {
      good = (a == e);
    } else {
      good = std::fabs(a - e) <= abs_tol + rel_tol * std::fabs(e);
    }
    if (!good) detail::record(r, i, e, a, max_reported);
  }
  return r;
}

template <typename T>
CheckResult check_close(const std::vector<T>& expected, const std::vector<T>& actual,
                        double abs_tol, double rel_tol,
                        std::size_t max_reported = kMaxReportedMismatches) {
  CheckResult r = check_close(expected.data(), actual.data(),
                              expected.size() < actual.size() ? expected.size() : actual.size(),
                              abs_tol, rel_tol, max_reported);
  if (expected.size() != actual.size()) {
    const std::size_t extra = expected.size() > actual.size() ? expected.size() - actual.size()
                                                              : actual.size() - expected.size();
    r.mismatches += extra;
    r.checked += extra;
  }
  return r;
}

}  // namespace cudalab
