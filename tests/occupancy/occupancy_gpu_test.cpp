// The occupancy lab's kernels against their CPU versions, and the calculator against the
// CUDA runtime on the real device (100% agreement required).
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/occupancy_calc.hpp"
#include "common/random.hpp"
#include "gpu_test.hpp"
#include "occupancy_lab.hpp"
#include "sections.hpp"

namespace {

using occupancy_lab::Kernel;
namespace occ = cudalab::occupancy;

TEST(OccupancyGpu, CalculatorAgreesWithTheRuntimeOnEveryConfiguration) {
  CUDALAB_REQUIRE_GPU();
  const auto g = occ::spec_from_device(cudalab::query_device(0));
  int configs = 0;
  for (const auto& ks : occupancy_lab::runtime_sweep(g)) {
    EXPECT_EQ(ks.agree, ks.configs) << occupancy_lab::kernel_name(ks.kernel) << " regs=" << ks.attr.numRegs;
    configs += ks.configs;
  }
  EXPECT_GT(configs, 1000);
}

TEST(OccupancyGpu, RegisterFootprintsDiffer) {
  CUDALAB_REQUIRE_GPU();
  const auto r16 = occupancy_lab::attributes(Kernel::kRegisters16);
  const auto r96 = occupancy_lab::attributes(Kernel::kRegisters96);
  const auto bounded = occupancy_lab::attributes(Kernel::kRegisters96Bounded);
  EXPECT_LT(r16.numRegs, r96.numRegs);
  EXPECT_GT(r96.numRegs, 64);
  EXPECT_LE(bounded.numRegs, 64);  // __launch_bounds__(256, 4): 65536 / 1024 threads
}

TEST(OccupancyGpu, KernelsMatchTheirCpuVersions) {
  CUDALAB_REQUIRE_GPU();
  for (int n : {1, 31, 257, 1000, 4099}) {
    for (int block : {32, 128, 256}) {
      for (Kernel k : occupancy_lab::all_kernels()) {
        const auto in = cudalab::random_vector<float>(static_cast<std::size_t>(n), 11 + n, -1.f, 1.f);
        std::vector<float> expected = cudalab::random_vector<float>(static_cast<std::size_t>(n), 12 + n, -1.f, 1.f);
        cudalab::DeviceBuffer<float> d_in(in), d_x(expected);
        occupancy_lab::reference(k, expected, in, block);
        occupancy_lab::run_kernel(k, d_x.data(), d_in.data(), n, block, 0);
        CUDA_CHECK(cudaDeviceSynchronize());
        // nvcc contracts a * b + c into one fused multiply-add, g++ does not: allow a few ulps.
        const auto r = cudalab::check_close(expected, d_x.download(), 1e-5, 1e-5);
        EXPECT_TRUE(r.ok()) << occupancy_lab::kernel_name(k) << " n=" << n << " block=" << block << ": " << r.summary();
      }
    }
  }
}

TEST(OccupancyGpu, StreamKernelsScaleEveryElement) {
  CUDALAB_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{4}, std::size_t{1000}, std::size_t{1} << 20}) {
    const auto in = cudalab::random_vector<float>(n, 5, -10.f, 10.f);
    cudalab::DeviceBuffer<float> d_in(in), d_out(n);
    for (bool ilp : {false, true}) {
      d_out.fill_bytes(0xFF);
      occupancy_lab::launch_stream(ilp, d_in.data(), d_out.data(), n, 7, 256, 0);
      const auto out = d_out.download();
      std::vector<float> expected(n);
      for (std::size_t i = 0; i < n; ++i) expected[i] = 2.f * in[i];
      const auto r = cudalab::check_exact(expected, out);
      EXPECT_TRUE(r.ok()) << "ilp=" << ilp << " n=" << n << ": " << r.summary();
    }
  }
}

TEST(OccupancyGpu, SpinKernelRunsAndReportsResidency) {
  CUDALAB_REQUIRE_GPU();
  EXPECT_GE(occupancy_lab::spin_blocks_per_sm(256), 1);
  cudalab::DeviceBuffer<unsigned long long> sink(1);
  occupancy_lab::launch_spin(1000, 4, 256, sink.data());
  EXPECT_NO_THROW(CUDA_CHECK(cudaDeviceSynchronize()));
}

TEST(OccupancyGpu, PersistentGridVisitsEveryItemOnce) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<unsigned long long> sink(1);
  // fewer items than blocks, a ragged last round, many rounds
  for (const auto& [items, grid] : std::vector<std::pair<long long, int>>{{1, 1}, {3, 8}, {17, 4}, {1057 * 8, 1056}}) {
    cudalab::DeviceBuffer<unsigned> visits(static_cast<std::size_t>(items) + 1);
    visits.fill_bytes(0);
    occupancy_lab::launch_spin_items(10, items, grid, 64, visits.data(), sink.data());
    const auto seen = visits.download();
    for (long long i = 0; i < items; ++i) ASSERT_EQ(seen[static_cast<std::size_t>(i)], 1u) << items << " items, grid " << grid << ", item " << i;
    EXPECT_EQ(seen.back(), 0u) << "past the last item";
  }
}

TEST(OccupancyGpu, EveryLaunchRunsOneByOneAndInTheGraph) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<unsigned> counter(1);
  counter.fill_bytes(0);
  occupancy_lab::launch_bumps(counter.data(), 5);
  EXPECT_EQ(counter.download()[0], 5u);
  occupancy_lab::BumpGraph graph(counter.data(), 37);
  EXPECT_EQ(graph.nodes(), 37u);
  EXPECT_EQ(counter.download()[0], 5u) << "capturing a launch must not run it";
  for (int i = 0; i < 3; ++i) graph.launch();
  EXPECT_EQ(counter.download()[0], 5u + 3 * 37u);
}

TEST(OccupancyGpu, StreamKernelFitsBlocksPerSm) {
  CUDALAB_REQUIRE_GPU();
  // the persistent grid's kernel fits a wave of the tail's blocks at once, and shared memory sets it
  const auto g = cudalab::occupancy::spec_from_device(cudalab::query_device(0));
  for (int per_sm : {6, 8}) {  // under the 48 KB a kernel may take without opting in
    const std::size_t dyn = occupancy_lab::smem_for_blocks_per_sm(g, per_sm);
    EXPECT_EQ(occupancy_lab::spin_blocks_per_sm(64, dyn), per_sm);
    EXPECT_EQ(occupancy_lab::spin_items_blocks_per_sm(64, dyn), per_sm);
  }
  const int per_sm = occupancy_lab::stream_blocks_per_sm(256);
  EXPECT_GE(per_sm, 1);
  EXPECT_LE(per_sm * 256, cudalab::query_device(0).max_threads_per_sm);
}

}  // namespace
