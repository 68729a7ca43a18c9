// coalescing on the GPU: every kernel against the CPU at odd sizes, outputs poisoned.
#include <gtest/gtest.h>

#include <vector>

#include "coalescing.hpp"
#include "common/device_buffer.hpp"
#include "gpu_test.hpp"
#include "reference.hpp"

namespace {

TEST(CoalescingGpu, StrideAndOffsetMatchTheCpu) {
  CUDALAB_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{1}, std::size_t{255}, std::size_t{4099}, std::size_t{100003}}) {
    const auto in = cudalab::testing::heavy_tailed(n * 32 + 32, cudalab::testing::seed(n));
    cudalab::DeviceBuffer<float> d_in(in), out(n);
    for (int s : {1, 2, 3, 4, 8, 16, 32}) {
      out.fill_bytes(0xFF);
      coalescing::launch_stride(d_in.data(), out.data(), n, s);
      EXPECT_EQ(out.download(), coalescing::reference_stride(in, n, s)) << "n " << n << ", stride " << s;
    }
    for (int k : {0, 1, 7, 8, 31, 32}) {
      out.fill_bytes(0xFF);
      coalescing::launch_offset(d_in.data(), out.data(), n, k);
      EXPECT_EQ(out.download(), coalescing::reference_offset(in, n, k)) << "n " << n << ", offset " << k;
    }
  }
}

TEST(CoalescingGpu, BothLayoutsMoveTheParticles) {
  CUDALAB_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{1}, std::size_t{4099}}) {
    const auto p = coalescing::make_particles(n);
    std::vector<float> x(n), vx(n);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = p[i].x;
      vx[i] = p[i].vx;
    }
    cudalab::DeviceBuffer<coalescing::Particle> d_p(p);
    cudalab::DeviceBuffer<float> d_x(x), d_vx(vx);
    coalescing::launch_aos(d_p.data(), n, 0.5f);
    coalescing::launch_soa(d_x.data(), d_vx.data(), n, 0.5f);
    const auto got_p = d_p.download();
    const auto got_x = d_x.download();
    for (std::size_t i = 0; i < n; ++i) {
      const float want = coalescing::moved(p[i].x, p[i].vx, 0.5f);
      ASSERT_EQ(got_p[i].x, want) << i;
      ASSERT_EQ(got_p[i].y, p[i].y) << i;  // the other fields untouched
      ASSERT_EQ(got_p[i].vy, p[i].vy) << i;
      ASSERT_EQ(got_x[i], want) << i;
    }
  }
}

TEST(CoalescingGpu, BothMappingsScaleEveryPixel) {
  CUDALAB_REQUIRE_GPU();
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {33, 7}, {4096, 3}, {5, 4099}}) {
    const auto in = coalescing::make_input(static_cast<std::size_t>(w) * h);
    cudalab::DeviceBuffer<float> d_in(in), out(in.size());
    for (bool swapped : {false, true}) {
      out.fill_bytes(0xFF);
      coalescing::launch_scale_2d(d_in.data(), out.data(), w, h, swapped);
      EXPECT_EQ(out.download(), coalescing::reference_scale_2d(in)) << w << " x " << h << ", swapped " << swapped;
    }
  }
}

}  // namespace
