// The course notes' errata (docs/errata.md), each correction proven by arithmetic on the CPU:
// occupancy with the project's calculator (register allocation per warp in units of 256, split
// over four sub-partitions), bank conflicts with common/banks.hpp, PCIe, addresses, sums.
#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <numeric>
#include <vector>

#include "common/banks.hpp"
#include "common/device_facts.hpp"
#include "common/occupancy_calc.hpp"

namespace {

namespace occ = cudalab::occupancy;

occ::Result occupancy(const occ::GpuSpec& gpu, int threads, int regs) {
  occ::KernelSpec k;
  k.block_threads = threads;
  k.regs_per_thread = regs;
  return occ::compute(gpu, k);
}

occ::GpuSpec a100() { return *occ::spec_for_arch("sm_80"); }

// lecture2, program 2 (rgba): "65536/(256*33) = 7 blocks -> 87.5%".
TEST(NotesErrata, ThirtyThreeRegistersAt256ThreadsFitSixBlocksNotSeven) {
  const auto r = occupancy(a100(), 256, 33);
  // 33 x 32 = 1056 registers per warp, allocated as 1280: 10240 per block, 6 blocks.
  EXPECT_EQ(r.regs_allocated_per_block, 10240);
  EXPECT_EQ(r.resident_blocks, 6);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 75.0);
  EXPECT_EQ(65536 / (256 * 33), 7);  // the notes' division, without the allocation unit
}

// hardware note, occupancy: "40 registers: 65536/40 = 1638 threads -> 51 warps = 80%".
TEST(NotesErrata, FortyRegistersGiveAtMost48Warps) {
  for (int threads = 32; threads <= 1024; threads += 32) {
    const auto r = occupancy(a100(), threads, 40);
    EXPECT_LE(r.active_warps, 48) << threads;  // 16384 registers per sub-partition / 1280 = 12 warps each
  }
  for (int threads : {64, 128, 256, 512}) EXPECT_EQ(occupancy(a100(), threads, 40).active_warps, 48) << threads;
  EXPECT_EQ(occupancy(a100(), 1024, 40).active_warps, 32);  // one 32-warp block: 50%
  EXPECT_EQ(65536 / 40 / 32, 51);  // the notes' division
}

// lecture2, Warp/SIMT, occupancy example (a): "8x8 blocks, 20 registers: registers allow 51 blocks".
TEST(NotesErrata, EightByEightBlocksAt20RegistersRegistersAllow42) {
  const auto r = occupancy(a100(), 64, 20);
  EXPECT_EQ(r.by_registers, 42);  // 640 registers per warp allocated as 768: 21 warps per sub-partition
  EXPECT_EQ(r.resident_blocks, 32);
  EXPECT_DOUBLE_EQ(r.occupancy_percent, 100.0);
  EXPECT_EQ(65536 / (64 * 20), 51);  // the notes' division
}

// lecture2, the hypothetical SM of 1536 threads and 8 resident blocks, for the notes' three shapes.
TEST(NotesErrata, The1536ThreadSmForEightByEightSixteenBySixteenAndThirtyTwoByThirtyTwo) {
  occ::GpuSpec g = *occ::spec_for_arch("sm_86");
  g.max_threads_per_sm = 1536;
  g.max_blocks_per_sm = 8;
  const auto small = occupancy(g, 64, 16), medium = occupancy(g, 256, 16), large = occupancy(g, 1024, 16);
  EXPECT_EQ(small.resident_blocks, 8);  // the block limit: 512 threads
  EXPECT_NEAR(small.occupancy_percent, 100.0 / 3, 0.01);
  EXPECT_EQ(small.limiter_names(), "blocks per SM");
  EXPECT_EQ(medium.resident_blocks, 6);  // 1536 threads: full
  EXPECT_DOUBLE_EQ(medium.occupancy_percent, 100.0);
  EXPECT_EQ(large.resident_blocks, 1);  // a second 1024-thread block does not fit
  EXPECT_NEAR(large.occupancy_percent, 200.0 / 3, 0.01);
}

// lecture2, tips #7 and pitfalls: "sData[threadIdx.x * 32] is an 8-way conflict".
TEST(NotesErrata, StrideOf32FloatsIsA32WayConflictAndLeavesA256FloatArray) {
  const auto a = cudalab::lane_addresses(32, sizeof(float), [](int t) { return 32 * t; });
  EXPECT_EQ(cudalab::conflict_degree(a), 32);  // bank (32t) % 32 = 0 for every lane
  EXPECT_EQ(cudalab::conflict_degree(cudalab::lane_addresses(32, sizeof(float), [](int t) { return 2 * t; })), 2);
  EXPECT_EQ(cudalab::conflict_degree(cudalab::lane_addresses(32, sizeof(float), [](int t) { return t; })), 1);
  int first_outside = -1;  // of a 256-float sData
  for (int t = 0; t < 32 && first_outside < 0; ++t) {
    if (32 * t >= 256) first_outside = t;
  }
  EXPECT_EQ(first_outside, 8);
}

// lecture2, program 2 (rgba): "unsigned char sTile[256]; sTile[t] is a 4-way conflict".
TEST(NotesErrata, BytesOfOneWordDoNotConflict) {
  const auto a = cudalab::lane_addresses(32, 1, [](int t) { return t; });
  EXPECT_EQ(cudalab::conflict_degree(a), 1);  // lanes 4w..4w+3 read one word: served together
  EXPECT_EQ(cudalab::bank_of(a[0]), cudalab::bank_of(a[3]));
}

// lecture2, tips #7: "padding (sData[BLOCK + 1]) breaks the stride".
TEST(NotesErrata, PaddingTheArrayDoesNotChangeAStrideIndex) {
  // Declaring one more element moves no address of sData[32 * t]; the index must become 33 * t.
  const auto same_index = cudalab::lane_addresses(32, sizeof(float), [](int t) { return 32 * t; });
  EXPECT_EQ(cudalab::conflict_degree(same_index), 32);
  EXPECT_EQ(cudalab::conflict_degree(cudalab::lane_addresses(32, sizeof(float), [](int t) { return 33 * t; })), 1);
}

// The suite's reduction README, exercise 1: interleaved_strided at step s = 16 (index 2 * s * tid).
TEST(NotesErrata, StridedReductionStepSixteenIsEightWayAt256Threads) {
  const auto step16 = [](int block) {
    std::vector<std::size_t> a;
    for (int tid = 0; tid < 32; ++tid) {
      if (2 * 16 * tid < block) a.push_back(static_cast<std::size_t>(2 * 16 * tid) * sizeof(float));
    }
    return cudalab::conflict_degree(a);
  };
  EXPECT_EQ(step16(256), 8);    // only threads 0..7 of warp 0 are active, all in bank 0
  EXPECT_EQ(step16(1024), 32);  // with 1024 threads the whole warp is
}

// lecture2, Kernel/SPMD: "PCIe 4.0 x16: 32 GB/s bidirectional".
TEST(NotesErrata, Pcie4x16IsAbout32GBPerDirection) {
  EXPECT_NEAR(cudalab::pcie_bandwidth_gbps_per_direction(4, 16), 31.5, 0.01);
  EXPECT_NEAR(2 * cudalab::pcie_bandwidth_gbps_per_direction(4, 16), 63.0, 0.05);  // both directions at once
  EXPECT_NEAR(cudalab::pcie_bandwidth_gbps_per_direction(5, 16), 63.0, 0.05);
  EXPECT_NEAR(cudalab::pcie_bandwidth_gbps_per_direction(3, 16), 15.75, 0.01);
  EXPECT_THROW(cudalab::pcie_bandwidth_gbps_per_direction(7, 16), std::invalid_argument);
  EXPECT_THROW(cudalab::pcie_bandwidth_gbps_per_direction(4, 0), std::invalid_argument);
}

// lecture2, memory model, coarsening figure: "the second access of warp 0: addresses 256..383 B".
TEST(NotesErrata, CoarsenedSecondAccessStartsAt1024Bytes) {
  const int block = 256;
  const auto address = [&](int lane, int k) {  // element blockIdx 0 * ... + k * blockDim + lane, 4-byte floats
    return static_cast<std::size_t>(k * block + lane) * sizeof(float);
  };
  EXPECT_EQ(address(0, 1), 1024u);
  EXPECT_EQ(address(31, 1), 1151u - 3);
  EXPECT_EQ(address(31, 1) + sizeof(float) - address(0, 1), 128u);  // still one 128-byte line
}

// lecture2, __syncthreads: "7 warps arrive at 100 cycles, 1 at 400: 8 x 300 = 2400 warp-cycles lost".
TEST(NotesErrata, BarrierWaitIsSevenTimes300WarpCycles) {
  const std::vector<int> arrival{100, 100, 100, 100, 100, 100, 100, 400};
  const int last = *std::max_element(arrival.begin(), arrival.end());
  int waited = 0;
  for (int a : arrival) waited += last - a;  // the last warp does not wait for itself
  EXPECT_EQ(waited, 2100);
}

// cuda-intro, reduction: N = 102400, h_data[i] = i, summed in int.
TEST(NotesErrata, IntroReductionTotalOverflowsInt32ButEveryBlockSumFits) {
  const std::int64_t n = 102400;
  const std::int64_t total = n * (n - 1) / 2;
  EXPECT_EQ(total, 5242828800);
  EXPECT_GT(total, INT32_MAX);
  for (std::int64_t block : {256, 1024}) {
    const std::int64_t first = n - block;  // the last block has the largest sum
    EXPECT_LE(block * (first + n - 1) / 2, INT32_MAX) << block;
  }
}

// lecture2 (ridge 12.5) vs execution-model note (ridge 9.6) for the A100.
TEST(NotesErrata, A100RidgeDependsOnItsMemory) {
  const double fp32_gflops = 19500;
  EXPECT_NEAR(fp32_gflops / 1555, 12.5, 0.05);  // A100 40 GB (HBM2, 1555 GB/s)
  EXPECT_NEAR(fp32_gflops / 2039, 9.6, 0.05);   // A100 80 GB SXM (HBM2e, 2039 GB/s)
}

// lecture2, the coarsening figure: N = 1000, two elements per thread, 256-thread blocks: "t232..t255 ->
// 两个都越界，空转". Block 1's thread t has i = 512 + t and i + 256: for t = 232..255 the first is in range.
TEST(NotesErrata, CoarsenedThreadsOfTheLastBlockAreNotIdle) {
  const int n = 1000, block = 256, per_thread = 2;
  const int grid = (n + per_thread * block - 1) / (per_thread * block);
  ASSERT_EQ(grid, 2);
  int idle = 0, one = 0;
  for (int b = 0; b < grid; ++b) {
    for (int t = 0; t < block; ++t) {
      int in_range = 0;
      for (int k = 0; k < per_thread; ++k) in_range += b * per_thread * block + k * block + t < n;
      idle += in_range == 0;
      one += in_range == 1;
    }
  }
  EXPECT_EQ(idle, 0);   // no thread is idle
  EXPECT_EQ(one, 24);   // t232..t255 of block 1 do one element (744..767) instead of two
  EXPECT_LT(1 * per_thread * block + 0 * block + 232, n);  // t232's first element, 744, is in range
}

// lecture2, Q2: "寄存器每多 8 个，占用率就掉 25%" (256-thread blocks on the A100).
TEST(NotesErrata, EightMoreRegistersCost25PercentOnlyFrom32To40) {
  EXPECT_DOUBLE_EQ(occupancy(a100(), 256, 32).occupancy_percent, 100.0);
  EXPECT_DOUBLE_EQ(occupancy(a100(), 256, 40).occupancy_percent, 75.0);
  EXPECT_DOUBLE_EQ(occupancy(a100(), 256, 48).occupancy_percent, 62.5);  // 5 blocks: -12.5
  EXPECT_DOUBLE_EQ(occupancy(a100(), 256, 56).occupancy_percent, 50.0);  // 4 blocks
  EXPECT_DOUBLE_EQ(occupancy(a100(), 256, 64).occupancy_percent, 50.0);  // still 4 blocks: no drop at all
}

// lecture2, program 3 (mem_space_demo): "blocks_by_smem = 164 KB / (1 KB static + 1 KB dynamic) = 82".
TEST(NotesErrata, TheOneKilobyteReservePerBlockLeavesFiftyFourBlocksBySharedMemory) {
  occ::KernelSpec k;
  k.block_threads = 256;
  k.regs_per_thread = 32;
  k.static_smem = 1024;
  k.dynamic_smem = 1024;
  const auto r = occ::compute(a100(), k);
  EXPECT_EQ(r.by_shared_memory, 54);  // 164 KB / (1 + 1 + the driver's 1 KB per block)
  EXPECT_EQ(r.resident_blocks, 8);    // the threads still bind: the notes' conclusion stands
  EXPECT_EQ(164 / 2, 82);             // the notes' division, without the reserve
}

// hardware note, tuning: tiling "把全局访存次数从O(N³)降到O(N²)". C = A * B, N x N: the naive kernel
// loads 2N per element of C (2N^3); with a T x T tile each element of A and B is loaded N/T times.
TEST(NotesErrata, TilingDividesGlobalLoadsByTheTileWidthItStaysCubic) {
  const auto naive = [](double n) { return 2 * n * n * n; };
  const auto tiled = [](double n, double t) { return 2 * n * n * n / t; };
  EXPECT_DOUBLE_EQ(naive(4096) / tiled(4096, 32), 32.0);       // fewer by the tile width
  EXPECT_DOUBLE_EQ(tiled(8192, 32) / tiled(4096, 32), 8.0);     // doubling N: 8x, O(N^3) for a fixed tile
  EXPECT_DOUBLE_EQ(tiled(8192, 8192) / tiled(4096, 4096), 4.0); // O(N^2) only with a tile as wide as N
}

}  // namespace
