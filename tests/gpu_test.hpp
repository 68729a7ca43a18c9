#pragma once
// GPU tests start with CUDALAB_REQUIRE_GPU(): without a usable CUDA device the test is
// skipped with the reason (ctest then reports it as skipped, not passed).
#include <gtest/gtest.h>

#include <string>

#include "common/device_facts.hpp"

namespace cudalab::testing {

// True when a device is usable; otherwise false and the reason.
inline bool gpu_available(std::string* why_not) {
  return cudalab::usable_device_count(why_not) > 0;
}

}  // namespace cudalab::testing

#define CUDALAB_REQUIRE_GPU()                                                 \
  do {                                                                        \
    std::string cudalab_why_not_;                                             \
    if (!::cudalab::testing::gpu_available(&cudalab_why_not_)) {              \
      GTEST_SKIP() << "no usable CUDA device: " << cudalab_why_not_;          \
    }                                                                         \
  } while (0)
