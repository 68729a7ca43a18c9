// latency_hiding: every experiment's kernel computes what the CPU says, at small sizes and at
// every supported chain count, load count and width; bad configurations are refused.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/timer.hpp"
#include "gpu_test.hpp"
#include "latency_hiding.hpp"
#include "reference.hpp"

namespace {

namespace lh = latency_hiding;

cudalab::Benchmarker quick() { return cudalab::Benchmarker(cudalab::BenchmarkOptions{1, 2, false}); }

TEST(LatencyHidingGpu, FmaChainsAreExactAtEveryChainCount) {
  CUDALAB_REQUIRE_GPU();
  auto bench = quick();
  for (int w : {1, 3, 32, 64}) {
    for (int c : {1, 2, 4, 8}) {
      const lh::FmaPoint p = lh::fma_point(bench, w, c, 257);
      EXPECT_TRUE(p.correct) << w << " warps, " << c << " chains";
      EXPECT_GT(p.flops, 0);
      // cycles over event time: no floor, since a GPU shared with other processes (ctest -j) stretches the
      // time and not the cycles; above any real clock would be a wrong count
      EXPECT_GT(p.clock_hz, 0);
      EXPECT_LT(p.clock_hz, 5e9);
      EXPECT_EQ(p.blocks_per_sm, w > 32 ? 2 : 1);
    }
  }
  EXPECT_THROW(lh::fma_point(bench, 4, 3, 10), std::invalid_argument);
  EXPECT_THROW(lh::fma_point(bench, 48, 1, 10), std::invalid_argument);  // neither <= 32 nor a multiple of 32
  EXPECT_THROW(lh::fma_point(bench, 0, 1, 10), std::invalid_argument);
}

TEST(LatencyHidingGpu, ReadsSumEveryWordAtEveryWidthAndLoadCount) {
  CUDALAB_REQUIRE_GPU();
  auto bench = quick();
  const lh::ReadSet set((std::size_t{1} << 20) + 48);  // not a multiple of any grid's stride
  EXPECT_EQ(set.expected_sum(), lh::input_sum(set.words()));
  for (int w : {1, 3, 20, 64}) {
    for (int width : {4, 8, 16}) {
      for (int loads : {1, 2, 4, 8, 16}) {
        if (!lh::load_point_fits(w, loads, width)) {
          EXPECT_EQ(w, 64) << loads << " loads of " << width << " bytes do not fit at " << w << " warps";
          EXPECT_THROW(lh::load_point(bench, set, w, loads, width), std::invalid_argument);
          continue;
        }
        const lh::LoadPoint p = lh::load_point(bench, set, w, loads, width);
        EXPECT_TRUE(p.correct) << w << " warps, " << loads << " loads of " << width << " bytes";
        EXPECT_DOUBLE_EQ(p.bytes_in_flight_per_sm, lh::bytes_in_flight_per_sm(w, loads, width));
      }
    }
  }
  EXPECT_TRUE(lh::load_point_fits(64, 1, 4));    // 32 registers a thread are plenty for one load
  EXPECT_FALSE(lh::load_point_fits(64, 16, 16));  // 64 registers of data alone
  EXPECT_THROW(lh::load_point(bench, set, 4, 3, 4), std::invalid_argument);
  EXPECT_THROW(lh::load_point(bench, set, 4, 1, 2), std::invalid_argument);
  EXPECT_THROW(lh::load_point(bench, set, 6, 1, 4), std::invalid_argument);  // neither <= 4 nor a multiple of 4
  EXPECT_THROW(lh::ReadSet(10), std::invalid_argument);
}

TEST(LatencyHidingGpu, CopiesAreExactAndOccupancyIsWhatWasLaunched) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 18) + 12;  // odd multiple of 4: the grid's last group is partial
  const std::vector<float> h = cudalab::testing::heavy_tailed(n, cudalab::testing::seed(n));
  cudalab::DeviceBuffer<float> in(h), out(n);
  int device = 0, max_threads = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, device));
  struct C {
    int threads, blocks, loads;
    bool vector;
  };
  for (const C c : {C{256, 8, 1, false}, C{256, 2, 1, true}, C{256, 2, 4, true}, C{128, 2, 16, true}, C{64, 1, 16, true}}) {
    out.fill_bytes(0xFF);
    lh::launch_copy(in.data(), out.data(), n, c.threads, c.blocks, c.loads, c.vector);
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_EQ(out.download(), h) << c.threads << " x " << c.blocks << ", " << c.loads << " loads";
    EXPECT_DOUBLE_EQ(lh::copy_occupancy(c.threads, c.blocks), static_cast<double>(c.threads) * c.blocks / max_threads);
  }
  EXPECT_THROW(lh::launch_copy(in.data(), out.data(), n, 256, 1, 4, false), std::invalid_argument);
  EXPECT_THROW(lh::launch_copy(in.data(), out.data(), n, 256, 1, 8, true), std::invalid_argument);
  EXPECT_THROW(lh::launch_copy(in.data(), out.data(), 10, 256, 1, 1, true), std::invalid_argument);
  EXPECT_THROW(lh::launch_copy(in.data(), out.data(), n, 1024, 64, 1, true), std::invalid_argument);  // does not fit
}

TEST(LatencyHidingGpu, BarrierRoundsCountEveryFmaWithAndWithoutTheBarrier) {
  CUDALAB_REQUIRE_GPU();
  for (int blocks : {1, 3}) {
    for (bool barrier : {true, false}) {
      const lh::BarrierPoint p = lh::barrier_point(blocks, barrier, 16, 20, 5);
      EXPECT_TRUE(p.correct) << blocks << " blocks, barrier " << barrier;
      EXPECT_GT(p.cycles_per_round, 0);
      EXPECT_DOUBLE_EQ(p.sm_cycles_per_block_round, p.cycles_per_round / blocks);
    }
  }
  EXPECT_THROW(lh::barrier_point(1, true, 12, 20, 5), std::invalid_argument);
  EXPECT_THROW(lh::barrier_point(1, true, 16, 0, 5), std::invalid_argument);
}

TEST(LatencyHidingGpu, EveryMysteryKernelMatchesTheCpuAndReportsItsResources) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t n = 3 * 1024 * 32;  // n / 32 not a multiple of 1024: the strided map crosses blocks
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<float>(i % 977) * 0.01f;
  cudalab::DeviceBuffer<float> in(h), out(n);
  for (int k = 0; k < 8; ++k) {
    const lh::Flaws f{(k & 4) != 0, (k & 2) != 0, (k & 1) != 0};
    out.fill_bytes(0xFF);
    lh::launch_mystery(f, in.data(), out.data(), n, 5);
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto got = out.download();
    for (std::size_t g = 0; g < n; ++g) {
      ASSERT_EQ(got[g], lh::mystery_expected(h, g, f, 5)) << "flaws " << k << ", element " << g;
    }
    const lh::KernelFacts facts = lh::mystery_facts(f);
    EXPECT_GT(facts.registers, 0);
    EXPECT_EQ(facts.shared_bytes, f.conflicted ? 32 * 32 * 4 : 32 * 33 * 4);
    EXPECT_GE(facts.blocks_per_sm, 1);
    EXPECT_GT(facts.occupancy, 0);
  }
  EXPECT_THROW(lh::launch_mystery({}, in.data(), out.data(), 1000, 0), std::invalid_argument);
  EXPECT_THROW(lh::launch_mystery({}, in.data(), out.data(), n, -1), std::invalid_argument);
}

}  // namespace
