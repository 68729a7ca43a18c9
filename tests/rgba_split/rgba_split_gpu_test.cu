// Every rgba_split variant against the CPU reference at sizes that break sloppy kernels,
// with seeded random pixels and poisoned planes; and a 46341 x 46341 image (past 2^31 bytes)
// checked on the device.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/random.hpp"
#include "device_planes.hpp"
#include "gpu_test.hpp"
#include "reference.hpp"
#include "rgba_split.hpp"

namespace {

using rgba_split::Variant;

struct Size {
  std::size_t width, height;
};

bool enough_memory(double bytes) {
  std::size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return bytes < 0.9 * static_cast<double>(free_bytes);
}

void check_variant(Variant v, Size s) {
  const std::size_t pixels = s.width * s.height;
  const auto rgba = cudalab::random_bytes(4 * pixels, cudalab::testing::seed(77 + pixels));
  const rgba_split::HostPlanes expected = rgba_split::reference_planes(rgba.data(), pixels);
  cudalab::DeviceBuffer<std::uint8_t> d_rgba(rgba);
  rgba_split::DevicePlanes d(pixels);
  d.poison();
  rgba_split::launch(v, d_rgba.data(), d.view(), s.width, s.height);
  CUDA_CHECK(cudaDeviceSynchronize());
  rgba_split::HostPlanes actual;
  d.download(actual, pixels);
  for (int c = 0; c < 4; ++c) {
    const auto r = cudalab::check_exact(expected[c], actual[c]);
    EXPECT_TRUE(r.ok()) << rgba_split::variant_name(v) << " " << s.width << "x" << s.height << " plane " << c
                        << ": " << r.summary();
  }
}

class RgbaAllSizes : public ::testing::TestWithParam<std::tuple<Variant, Size>> {};

TEST_P(RgbaAllSizes, MatchesReferenceByteForByte) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, s] = GetParam();
  if (!enough_memory(8.0 * static_cast<double>(s.width * s.height))) GTEST_SKIP() << "not enough GPU memory";
  check_variant(v, s);
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<Variant, Size>>& info) {
  const auto& s = std::get<1>(info.param);
  return rgba_split::variant_name(std::get<0>(info.param)) + "_" + std::to_string(s.width) + "x" +
         std::to_string(s.height);
}

INSTANTIATE_TEST_SUITE_P(Variants, RgbaAllSizes,
                         ::testing::Combine(::testing::ValuesIn(rgba_split::all_variants()),
                                            ::testing::Values(Size{1, 1}, Size{76, 62}, Size{3, 1000}, Size{1000, 3},
                                                              Size{4097, 3}, Size{1, 15}, Size{5, 7}, Size{33, 1},
                                                              Size{17, 2000000})),
                         param_name);

// ---- past 2^31 bytes: pixels from a formula on the device, checked on the device ----

__device__ __forceinline__ std::uint8_t pattern(std::size_t i) {
  // A mix of all index bits, so an offset that wraps at 2^31 or 2^32 lands on different bytes.
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return static_cast<std::uint8_t>(x ^ (x >> 8) ^ (x >> 40));
}

__global__ void fill_pattern(std::uint8_t* rgba, std::size_t bytes) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < bytes;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    rgba[i] = pattern(i);
  }
}

__global__ void count_mismatches(rgba_split::Planes planes, std::size_t pixels, unsigned long long* errors) {
  unsigned long long local = 0;
  for (std::size_t p = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; p < pixels;
       p += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    local += planes.r[p] != pattern(4 * p + 0);
    local += planes.g[p] != pattern(4 * p + 1);
    local += planes.b[p] != pattern(4 * p + 2);
    local += planes.a[p] != pattern(4 * p + 3);
  }
  if (local != 0) atomicAdd(errors, local);
}

TEST(RgbaHuge, PastTwoToTheThirtyOneBytes) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t w = 46341, h = 46341, pixels = w * h;  // 8.59 GB in, the same out
  if (!enough_memory(8.0 * static_cast<double>(pixels) + 64.0)) GTEST_SKIP() << "not enough GPU memory";
  cudalab::DeviceBuffer<std::uint8_t> rgba(4 * pixels);
  rgba_split::DevicePlanes d(pixels);
  cudalab::DeviceBuffer<unsigned long long> errors(1);
  fill_pattern<<<4096, 256>>>(rgba.data(), rgba.size());
  CUDA_CHECK_LAUNCH("fill_pattern");
  const rgba_split::Planes planes = d.view();
  for (Variant v : rgba_split::all_variants()) {
    d.poison();
    errors.fill_bytes(0);
    rgba_split::launch(v, rgba.data(), planes, w, h);
    count_mismatches<<<4096, 256>>>(planes, pixels, errors.data());
    CUDA_CHECK_LAUNCH("count_mismatches");
    EXPECT_EQ(errors.download()[0], 0u) << rgba_split::variant_name(v);
  }
}

TEST(RgbaGpu, MisalignedPointersFallBackToTheNaiveKernel) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t pixels = 1001;
  const auto rgba = cudalab::random_bytes(4 * pixels + 4, cudalab::testing::seed(3));
  const rgba_split::HostPlanes expected = rgba_split::reference_planes(rgba.data() + 4, pixels);
  cudalab::DeviceBuffer<std::uint8_t> d_rgba(rgba);
  rgba_split::DevicePlanes d(pixels + 1);
  d.poison();
  // Input offset by one pixel (4 bytes), planes by one byte: no 16-byte alignment anywhere.
  rgba_split::launch(Variant::kX16, d_rgba.data() + 4, d.view(1), pixels, 1);
  CUDA_CHECK(cudaDeviceSynchronize());
  rgba_split::HostPlanes actual;
  d.download(actual, pixels, 1);
  for (int c = 0; c < 4; ++c) {
    const auto r = cudalab::check_exact(expected[c], actual[c]);
    EXPECT_TRUE(r.ok()) << "plane " << c << ": " << r.summary();
  }
}

}  // namespace
