#pragma once
// GPU tests start with CUDALAB_REQUIRE_GPU(): without a usable CUDA device the test is
// skipped with the reason (ctest then reports it as skipped, not passed).
#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/device_facts.hpp"
#include "common/random.hpp"

namespace cudalab::testing {

// A seed from its decimal text: 0 (no seed) when the text is missing, empty or not a number.
inline std::uint64_t parse_seed(const char* text) {
  if (!text || *text < '0' || *text > '9') return 0;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  return *end == '\0' && errno == 0 ? static_cast<std::uint64_t>(v) : 0;
}

// The run's seed: CUDALAB_TEST_SEED, which the grader draws afresh for every grading run (the tests
// ship with the handout, so answers tabled from fixed seeds would be worth nothing); 0 when it is
// unset, so that a plain ctest run is the same every time.
inline std::uint64_t run_seed() {
  static const std::uint64_t seed = parse_seed(std::getenv("CUDALAB_TEST_SEED"));
  return seed;
}

// A test's own seed mixed with a run's: inputs change with the run, and two tests' inputs stay
// unrelated. With no run seed (0) it is `local` itself.
inline std::uint64_t mix_seed(std::uint64_t local, std::uint64_t run) {
  return run == 0 ? local : cudalab::splitmix64(local ^ cudalab::splitmix64(run));
}
inline std::uint64_t seed(std::uint64_t local) { return mix_seed(local, run_seed()); }

// Floats no sample or fitted constant reproduces: uniform in [-1, 1) times 2^e with e uniform in
// [-8, 8] (a heavy tail of magnitudes), and about one value in 4096 (at least one) a spike of
// +-2^20 at a random place. Every value is an FP32 number; their sum stays far from overflow.
inline std::vector<float> heavy_tailed(std::size_t count, std::uint64_t seed) {
  std::vector<float> v = cudalab::random_vector<float>(count, seed, -1.0f, 1.0f);
  const std::vector<int> e = cudalab::random_vector<int>(count, seed + 1, -8, 8);
  for (std::size_t i = 0; i < count; ++i) v[i] = std::ldexp(v[i], e[i]);
  const std::size_t spikes = count / 4096 + 1;
  const auto where = cudalab::random_vector<std::uint64_t>(spikes, seed + 2, 0, count ? count - 1 : 0);
  for (std::size_t k = 0; k < spikes && count > 0; ++k) v[where[k]] = (k % 2 ? -1.0f : 1.0f) * 1048576.0f;
  return v;
}

// The one Case made from `key` in this test process (made on first use, kept to the end): a test
// binary that checks many variants at one size draws its inputs and allocates its buffers once.
// Allocations wait for the driver when many test processes share the GPU (reduction_gpu_test.cu
// has the numbers), so a check that allocates is slow under ctest -j and a grader.
template <typename Case, typename Key>
Case& cached(const Key& key) {
  static std::map<Key, Case> made;
  auto it = made.find(key);
  if (it == made.end()) it = made.emplace(std::piecewise_construct, std::forward_as_tuple(key), std::forward_as_tuple(key)).first;
  return it->second;
}

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
