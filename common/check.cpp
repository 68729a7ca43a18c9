#include "common/check.hpp"

#include <fmt/format.h>

namespace cudalab {

std::string CheckResult::summary() const {
  if (ok()) return fmt::format("all {} elements match", checked);
  std::string s = fmt::format("{} of {} elements differ; first:", mismatches, checked);
  for (const auto& m : first) {
    s += fmt::format(" [{}] expected {} got {};", m.index, m.expected, m.actual);
  }
  if (!s.empty() && s.back() == ';') s.pop_back();
  return s;
}

}  // namespace cudalab
