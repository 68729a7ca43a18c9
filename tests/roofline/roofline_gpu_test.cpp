// roofline on the GPU: the dial against the CPU for every k in both types, the three exps within
// their documented accuracy, integer division and both multiply-adds exact, RMSNorm within one BF16
// ulp at several shapes with the output poisoned.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "gpu_test.hpp"
#include "reference.hpp"
#include "roofline.hpp"

namespace {

// Every k at sizes that leave 0 .. 3 elements past the last 16-byte vector, the output poisoned.
template <typename T>
void expect_dial() {
  for (std::size_t n : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{4099}}) {
    const std::vector<T> in = cudalab::random_vector<T>(n, cudalab::testing::seed(n), T(-1), T(1));
    cudalab::DeviceBuffer<T> d_in(in), d_out(n);
    for (int k : roofline::dial_ks()) {
      d_out.fill_bytes(0xFF);
      roofline::launch_dial(d_in.data(), d_out.data(), n, k);
      const auto out = d_out.download();
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], roofline::dial_reference(in[i], k)) << "n " << n << ", k " << k << ", i " << i;
      }
    }
  }
}

TEST(RooflineGpu, DialMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  expect_dial<float>();
  expect_dial<double>();
}

TEST(RooflineGpu, DialRefusesMisalignedPointers) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<float> in(64), out(64);
  EXPECT_THROW(roofline::launch_dial(in.data() + 1, out.data(), 8, 4), std::invalid_argument);
  EXPECT_THROW(roofline::launch_dial(in.data(), out.data() + 2, 8, 4), std::invalid_argument);
  EXPECT_THROW(roofline::launch_dial(in.data(), out.data(), 8, 0), std::invalid_argument);
}

TEST(RooflineGpu, PeaksArePositiveAndFp64IsNotFaster) {
  CUDALAB_REQUIRE_GPU();
  const roofline::FmaPeak f32 = roofline::fma_peak<float>(256, 256), f64 = roofline::fma_peak<double>(256, 256);
  EXPECT_GT(f32.flops, 0);
  EXPECT_GT(f64.flops, 0);
  EXPECT_LT(f64.flops, f32.flops * 1.05);  // no GPU runs FP64 faster than FP32
  EXPECT_THROW(roofline::fma_peak<float>(0, 256), std::invalid_argument);
  EXPECT_THROW(roofline::fma_peak<float>(4096, 256), std::invalid_argument);  // no block of 4096 threads fits
  const double max_hz = 1e3 * cudalab::query_device(0).sm_clock_khz;
  for (double hz : {f32.clock_hz, f64.clock_hz}) {  // at most the GPU's peak clock, and not absurdly below it
    EXPECT_GT(hz, 0.2 * max_hz);
    EXPECT_LT(hz, 1.02 * max_hz);
  }
}

TEST(RooflineGpu, ExpsWithinTheirAccuracy) {
  CUDALAB_REQUIRE_GPU();
  std::vector<float> x(1 << 16);
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> u(-10.0f, 10.0f);
  for (auto& v : x) v = u(gen);
  for (auto kind : {roofline::ExpKind::kExpf, roofline::ExpKind::kIntrinsic, roofline::ExpKind::kFastMath}) {
    std::vector<float> out;
    EXPECT_GT(roofline::exp_throughput(kind, x, 1, &out), 0);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float want = roofline::exp_reference(x[i]);
      if (kind == roofline::ExpKind::kExpf) {
        ASSERT_LE(roofline::ulp_distance(out[i], want), 2) << x[i];  // CUDA's documented bound
      } else {
        ASSERT_NEAR(out[i] / want, 1.0f, 1e-5f) << x[i];  // approximate, still close
      }
    }
  }
}

TEST(RooflineGpu, IntegerDivisionAndMultiplyAddsExact) {
  CUDALAB_REQUIRE_GPU();
  std::vector<std::uint32_t> in(4099);
  std::mt19937 gen(5);
  for (auto& v : in) v = static_cast<std::uint32_t>(gen());
  for (auto [kind, d] : {std::pair{roofline::DivKind::kRuntimeDivisor, 7u}, std::pair{roofline::DivKind::kRuntimeDivisor, 8u},
                         std::pair{roofline::DivKind::kShiftMask, 8u}}) {
    std::vector<std::uint32_t> out;
    roofline::div_throughput(kind, in, d, 5, &out);
    for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], roofline::div_reference(in[i], d, 5)) << d;
  }
  EXPECT_THROW(roofline::div_throughput(roofline::DivKind::kShiftMask, in, 7, 1, nullptr), std::invalid_argument);
  std::uniform_real_distribution<float> u(-10.0f, 10.0f);
  std::vector<float> a(4099), b(4099), c(4099);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = u(gen);
    b[i] = u(gen);
    c[i] = u(gen);
  }
  for (bool fused : {true, false}) {
    std::vector<float> out;
    roofline::fma_vs_mul_add(fused, a, b, c, 1, &out);
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(out[i], roofline::mul_add_reference(fused, a[i], b[i], c[i])) << i;
  }
}

TEST(RooflineGpu, RmsNormWithinOneBf16Ulp) {
  CUDALAB_REQUIRE_GPU();
  std::mt19937 gen(9);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (const auto& [rows, cols] : std::vector<std::pair<int, int>>{{1, 256}, {3, 512}, {7, 8192}, {33, 768}}) {
    std::vector<std::uint16_t> x(static_cast<std::size_t>(rows) * cols), w(static_cast<std::size_t>(cols));
    for (auto& v : x) v = roofline::float_to_bf16(normal(gen));
    for (auto& v : w) v = roofline::float_to_bf16(1.0f + 0.1f * normal(gen));
    cudalab::DeviceBuffer<std::uint16_t> d_x(x), d_w(w), d_y(x.size());
    d_y.fill_bytes(0xFF);
    roofline::launch_rmsnorm(d_x.data(), d_w.data(), d_y.data(), rows, cols, 1e-6f);
    const auto got = d_y.download();
    const auto want = roofline::rmsnorm_reference(x, w, rows, cols, 1e-6f);
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_LE(std::abs(static_cast<int>(got[i]) - static_cast<int>(want[i])), 1) << rows << " x " << cols << ", " << i;
    }
    // unfused: the scales kernel then the apply kernel give the fused kernel's bits
    cudalab::DeviceBuffer<float> d_scales(static_cast<std::size_t>(rows));
    d_scales.fill_bytes(0xFF);
    d_y.fill_bytes(0xFF);
    roofline::launch_rmsnorm(d_x.data(), d_w.data(), d_y.data(), rows, cols, 1e-6f, d_scales.data());
    ASSERT_EQ(d_y.download(), got) << "unfused, " << rows << " x " << cols;
    const auto scales = d_scales.download();
    for (int r = 0; r < rows; ++r) {
      double sq = 0;
      for (int c = 0; c < cols; ++c) {
        const double v = roofline::bf16_to_float(x[static_cast<std::size_t>(r) * cols + c]);
        sq += v * v;
      }
      EXPECT_NEAR(scales[static_cast<std::size_t>(r)], 1.0 / std::sqrt(sq / cols + 1e-6), 1e-5 / std::sqrt(sq / cols + 1e-6)) << r;
    }
  }
  std::vector<std::uint16_t> dummy(512);
  cudalab::DeviceBuffer<std::uint16_t> d(dummy);
  EXPECT_THROW(roofline::launch_rmsnorm(d.data(), d.data(), d.data(), 1, 100, 1e-6f), std::invalid_argument);
}

TEST(RooflineGpu, TensorCoreRoofIsExactAndUnderItsPeak) {
  CUDALAB_REQUIRE_GPU();
  const roofline::TensorPeak t = roofline::tensor_peak_bf16(256, 64);
  const cudalab::DeviceFacts f = cudalab::query_device(0);
  if (!t.available) GTEST_SKIP() << "BF16 mma needs sm_80 or later; this GPU is " << f.arch();
  EXPECT_TRUE(t.correct) << "an accumulator is not 16 x 64";
  EXPECT_GT(t.flops, 0);
  const double peak = f.theoretical_bf16_tensor_gflops() * 1e9;
  if (peak > 0) {
    EXPECT_LT(t.flops, 1.02 * peak);  // physics: not above the dense peak at the maximum clock
  }
  EXPECT_THROW(roofline::tensor_peak_bf16(100, 64), std::invalid_argument);
  EXPECT_THROW(roofline::tensor_peak_bf16(256, 0), std::invalid_argument);
  EXPECT_THROW(roofline::tensor_peak_bf16(256, (1 << 20) + 1), std::invalid_argument);
}

TEST(RooflineGpu, WgmmaRoofIsExactAndUnderItsPeak) {
  CUDALAB_REQUIRE_GPU();
  const cudalab::DeviceFacts f = cudalab::query_device(0);
  const roofline::TensorPeak t = roofline::tensor_peak_bf16_wgmma(64);
  if (!t.available) GTEST_SKIP() << "wgmma runs from sm_90a machine code (compute capability 9.0); this GPU is " << f.arch();
  EXPECT_TRUE(t.correct) << "an accumulator is not 64 x 64";
  EXPECT_GT(t.flops, 0);
  EXPECT_LT(t.flops, 1.02 * f.theoretical_bf16_tensor_gflops() * 1e9);  // physics
  EXPECT_THROW(roofline::tensor_peak_bf16_wgmma(0), std::invalid_argument);
  EXPECT_THROW(roofline::tensor_peak_bf16_wgmma((1 << 18) + 1), std::invalid_argument);
}

}  // namespace
