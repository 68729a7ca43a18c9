// Every histogram variant, for uint8 and uint32 keys, uniform, skewed and all one value, bin by
// bin against the CPU, at sizes below one warp, around a block's and a grid's share of keys, and
// past them, on keys drawn from the run's seed; with bins from 2 to 65,536 (where the copies
// stop fitting shared memory and the variants fall back); at keys that are not 16-byte aligned;
// nothing written past the last bin; and CUB's baseline through the same check.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "gpu_test.hpp"
#include "histogram.hpp"
#include "reference.hpp"

namespace {

using histogram::Dist;
using histogram::Variant;

constexpr unsigned kPoison = 0x7F7F7F7Fu;

// Keys of one type, size, bin count and distribution, drawn once per test process with their
// device copy (room for a misaligned start) and device bins (one more than asked: the last must
// stay poisoned). uint32 keys include a few out of range (a key >= bins counts nowhere).
template <typename K>
struct Case {
  std::vector<K> keys;
  cudalab::DeviceBuffer<K> in;
  cudalab::DeviceBuffer<unsigned> hist;
  explicit Case(std::tuple<std::size_t, unsigned, Dist> key)
      : keys(make(key)), in(keys.size() + 16), hist(std::get<1>(key) + 1) {}
  static std::vector<K> make(std::tuple<std::size_t, unsigned, Dist> key) {
    const auto [n, bins, dist] = key;
    const std::uint64_t local = 31 * n + 7 * bins + static_cast<unsigned>(dist);
    std::vector<K> k = histogram::make_keys<K>(n, bins, dist, cudalab::testing::seed(local));
    if constexpr (sizeof(K) == 4) {
      for (std::size_t i = 3; i < n; i += 97) k[i] = bins + static_cast<K>(i % 5) * 0x10000001u;  // out of range
    }
    return k;
  }
};

// Counts the keys (placed `offset` keys past the start of the buffer) with variant v into
// poisoned bins and checks every bin, and that the bin past the last is untouched.
template <typename K>
void check(Variant v, std::size_t n, unsigned bins, Dist dist, std::size_t offset = 0) {
  Case<K>& c = cudalab::testing::cached<Case<K>>(std::make_tuple(n, bins, dist));
  CUDA_CHECK(cudaMemcpy(c.in.data() + offset, c.keys.data(), n * sizeof(K), cudaMemcpyHostToDevice));
  c.hist.fill_bytes(0x7F);
  histogram::count(v, c.in.data() + offset, n, bins, c.hist.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<unsigned> got = c.hist.download();
  const std::string what = histogram::variant_name(v) + " " + histogram::dist_name(dist) + " n=" + std::to_string(n) +
                           " bins=" + std::to_string(bins) + (sizeof(K) == 1 ? " u8" : " u32");
  const std::vector<unsigned> want = histogram::cpu_histogram(c.keys.data(), n, bins);
  EXPECT_EQ(histogram::first_wrong_bin(want, got.data(), what.c_str()), want.size()) << what;
  EXPECT_EQ(got[bins], kPoison) << what << ": wrote past the last bin";
}

class HistogramSizes : public ::testing::TestWithParam<std::tuple<Variant, std::size_t>> {};

TEST_P(HistogramSizes, U8) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  for (Dist d : {Dist::kUniform, Dist::kSkewed, Dist::kOneValue}) {
    for (unsigned bins : {2u, 7u, 256u}) check<unsigned char>(v, n, bins, d);
  }
}

TEST_P(HistogramSizes, U32) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  for (Dist d : {Dist::kUniform, Dist::kSkewed, Dist::kOneValue}) {
    for (unsigned bins : {3u, 1000u, 16384u}) check<unsigned>(v, n, bins, d);
  }
}

// 65,536 bins: 256 KB of counters, past one block's shared memory on every GPU so far (the
// variants with one copy per block fall back to global atomics: plan() says so), but spread
// over a cluster of 8 on Hopper.
TEST_P(HistogramSizes, U32AllBins) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  for (Dist d : {Dist::kUniform, Dist::kSkewed, Dist::kOneValue}) check<unsigned>(v, n, histogram::kMaxBins, d);
}

TEST_P(HistogramSizes, MisalignedKeys) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  check<unsigned char>(v, n, 256, Dist::kUniform, 1);
  check<unsigned char>(v, n, 100, Dist::kSkewed, 3);
  check<unsigned>(v, n, 1000, Dist::kUniform, 1);
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<Variant, std::size_t>>& info) {
  return histogram::variant_name(std::get<0>(info.param)) + "_n" + std::to_string(std::get<1>(info.param));
}

// below a warp, a block's 256 keys and one, a 16-byte vector's tail, many blocks' strides, and
// past one grid's worth of 16 keys per thread. Every size checks every variant; n = 1 grades no
// task (grading/points.json): one key out of range or in bin 0 of a stub's zeros could pass.
INSTANTIATE_TEST_SUITE_P(
    Variants, HistogramSizes,
    ::testing::Combine(::testing::ValuesIn(histogram::all_variants()),
                       ::testing::Values(std::size_t{1}, std::size_t{31}, std::size_t{257}, std::size_t{4099},
                                         std::size_t{100003}, (std::size_t{1} << 22) + 13)),
    param_name);

// uint8 keys past four grid-strides of 16-byte vectors, for the two variants that load them: the
// grid is capped at one that fills the GPU, so only here does every thread run their main loop (lane_copies
// loads four vectors a round, vector_runs two) before the leftover vectors and the tail keys;
// below about 2^24 keys a thread holds fewer vectors than one round takes. 2^25 + 13 keys: the
// loop's rounds, a leftover vector and a 13-key tail.
TEST(HistogramGpu, U8PastFourGridStrides) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 25) + 13;
  for (Variant v : {Variant::kVectorRuns, Variant::kLaneCopies}) {
    for (Dist d : {Dist::kUniform, Dist::kSkewed, Dist::kOneValue}) check<unsigned char>(v, n, 256, d);
  }
}

TEST(HistogramGpu, WhatEachVariantRunsIsSaid) {
  CUDALAB_REQUIRE_GPU();
  int device = 0, optin = 0, major = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  cudalab::DeviceBuffer<unsigned> keys(64);
  const std::size_t n = 1 << 20;
  // 256 bins fit everywhere: each variant runs its own kernel
  for (Variant v : histogram::all_variants()) {
    const histogram::Launch l = histogram::plan(v, keys.data(), n, 256);
    if (v == Variant::kClusterDsm && major < 9) {
      EXPECT_NE(l.fallback, "");
    } else {
      EXPECT_EQ(l.fallback, "") << histogram::variant_name(v);
    }
    EXPECT_GT(l.blocks, 0u);
  }
  EXPECT_EQ(histogram::plan(Variant::kWarpPrivate, keys.data(), n, 256).copies, 8);
  EXPECT_EQ(histogram::plan(Variant::kWarpPrivate, keys.data(), n, 16384).copies, 1);
  EXPECT_EQ(histogram::plan(Variant::kVectorRuns, keys.data(), n, 256).copies, 32);
  EXPECT_EQ(histogram::plan(Variant::kVectorRuns, keys.data(), n, 4096).copies, 2);
  EXPECT_EQ(histogram::plan(Variant::kVectorRuns, keys.data(), n, 16384).copies, 1);
  EXPECT_EQ(histogram::plan(Variant::kLaneCopies, keys.data(), n, 256).copies, 32);
  EXPECT_EQ(histogram::plan(Variant::kLaneCopies, keys.data(), n, 4096).copies, 2);
  // 65,536 bins: a copy per block does not fit
  const bool fits = std::size_t{histogram::kMaxBins} * 4 <= static_cast<std::size_t>(optin);
  EXPECT_EQ(histogram::plan(Variant::kSharedPrivate, keys.data(), n, histogram::kMaxBins).fallback.empty(), fits);
  const histogram::Launch cl = histogram::plan(Variant::kClusterDsm, keys.data(), n, histogram::kMaxBins);
  if (major >= 9) {
    EXPECT_EQ(cl.fallback, "");
    EXPECT_EQ(cl.cluster, 8);
    EXPECT_EQ(cl.smem_bytes, 32u * 1024);
    EXPECT_EQ(cl.blocks % 8, 0u);
  } else {
    EXPECT_NE(cl.fallback, "");
  }
  // keys that are not 16-byte aligned: one key per load, and said
  EXPECT_NE(histogram::plan(Variant::kVectorRuns, keys.data() + 1, n, 256).fallback, "");
  EXPECT_NE(histogram::plan(Variant::kLaneCopies, keys.data() + 1, n, 256).fallback, "");
  EXPECT_THROW(histogram::plan(Variant::kGlobalAtomics, keys.data(), n, 1), std::invalid_argument);
  EXPECT_THROW(histogram::plan(Variant::kGlobalAtomics, keys.data(), n, histogram::kMaxBins + 1), std::invalid_argument);
  cudalab::DeviceBuffer<unsigned char> bytes(64);
  EXPECT_THROW(histogram::plan(Variant::kGlobalAtomics, bytes.data(), n, 257), std::invalid_argument);
}

TEST(HistogramGpu, CubBaselinePassesTheSameCheck) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t n = 100003;
  for (unsigned bins : {7u, 256u}) {
    Case<unsigned char>& c = cudalab::testing::cached<Case<unsigned char>>(std::make_tuple(n, bins, Dist::kSkewed));
    c.in.upload(c.keys.data(), n);
    c.hist.fill_bytes(0x7F);
    histogram::CubHistogram<unsigned char> cub(c.in.data(), n, bins, c.hist.data());
    cub.run();
    const std::vector<unsigned> got = c.hist.download();
    EXPECT_EQ(histogram::first_wrong_bin(histogram::cpu_histogram(c.keys.data(), n, bins), got.data(), "cub u8"), bins);
  }
  for (unsigned bins : {1000u, histogram::kMaxBins}) {
    Case<unsigned>& c = cudalab::testing::cached<Case<unsigned>>(std::make_tuple(n, bins, Dist::kUniform));
    c.in.upload(c.keys.data(), n);
    c.hist.fill_bytes(0x7F);
    histogram::CubHistogram<unsigned> cub(c.in.data(), n, bins, c.hist.data());
    cub.run();
    const std::vector<unsigned> got = c.hist.download();
    EXPECT_EQ(histogram::first_wrong_bin(histogram::cpu_histogram(c.keys.data(), n, bins), got.data(), "cub u32"), bins);
  }
}

}  // namespace
