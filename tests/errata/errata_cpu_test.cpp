// The course notes' errata (docs/errata.md), each correction proven by arithmetic on the CPU:
// occupancy with the project's calculator (register allocation per warp in units of 256, split
// over four sub-partitions), bank conflicts with common/banks.hpp, PCIe, addresses, sums.
#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <string>
#include <utility>
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

// lecture2, program 3's mem_space_demo kernel: 256 threads, 1 KB static + 1 KB dynamic shared memory.
occ::KernelSpec mem_space_demo_kernel() {
  occ::KernelSpec k;
  k.block_threads = 256;
  k.regs_per_thread = 32;
  k.static_smem = 1024;
  k.dynamic_smem = 1024;
  return k;
}

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
  const auto r = occ::compute(a100(), mem_space_demo_kernel());
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

// lecture2, program 2 (rgba), its occupancy box: "blocks_by_regs = 65536 / (256*20) = 65536/5120 = 12"
// for the A100, and "65536 / 5120 = 12" again for the RTX 4090.
TEST(NotesErrata, ProgramTwoTwentyRegistersAllowTenBlocksOnTheA100AndThe4090) {
  for (const char* arch : {"sm_80", "sm_89"}) {
    const auto r = occupancy(*occ::spec_for_arch(arch), 256, 20);
    // 20 x 32 = 640 registers per warp, allocated as 768: 6144 per block of 8 warps
    EXPECT_EQ(r.regs_allocated_per_block, 6144) << arch;
    EXPECT_EQ(r.by_registers, 10) << arch;
    EXPECT_DOUBLE_EQ(r.occupancy_percent, 100.0) << arch;  // the threads bind first: the conclusion stands
  }
  EXPECT_EQ(65536 / 5120, 12);  // the notes' division, without the allocation unit
}

#ifdef CUDALAB_NVCC
// Compiles `source` (CUDA C++) with this build's nvcc for `arch`, in a folder of its own under
// the temp directory: the exit status and what nvcc printed.
std::pair<int, std::string> nvcc_compile(const std::string& name, const std::string& source, const char* arch) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("cudalab_errata_" + name + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "k.cu") << source;
  const std::string cmd = std::string("\"") + CUDALAB_NVCC + "\" -arch=" + arch + " -c \"" + (dir / "k.cu").string() +
                          "\" -o \"" + (dir / "k.o").string() + "\" > \"" + (dir / "log").string() + "\" 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream log(dir / "log");
  std::string text{std::istreambuf_iterator<char>(log), {}};
  fs::remove_all(dir);
  return {rc, text};
}
#endif

// lecture2, 常见陷阱 #11: a static __shared__ array over 48 KB "会启动失败（cudaErrorInvalidValue）"
// and needs cudaFuncSetAttribute(..MaxDynamicSharedMemorySize..). It never gets to a launch: ptxas
// refuses it when the kernel is compiled; the opt-in raises the limit of dynamic shared memory
// only (163 KB per block on the A100: 164 KB per SM less the 1 KB reserve).
TEST(NotesErrata, AStaticSharedArrayOver48KBIsRefusedByPtxasNotAtLaunch) {
#ifndef CUDALAB_NVCC
  GTEST_SKIP() << "built without the path of nvcc";
#else
  auto kernel = [](int floats) {
    return "__global__ void k(float* out) {\n  __shared__ float s[" + std::to_string(floats) +
           "];\n  s[threadIdx.x] = out[threadIdx.x];\n  __syncthreads();\n  out[threadIdx.x] = s[(threadIdx.x + 1) % " +
           std::to_string(floats) + "];\n}\n";
  };
  const auto fits = nvcc_compile("smem_fits", kernel(48 * 1024 / 4), "sm_80");  // exactly 48 KB
  if (fits.first != 0 && fits.second.find("too much shared data") == std::string::npos) {
    GTEST_SKIP() << "nvcc does not run here: " << fits.second.substr(0, 200);
  }
  EXPECT_EQ(fits.first, 0) << fits.second;
  const auto over = nvcc_compile("smem_over", kernel(48 * 1024 / 4 + 1), "sm_80");  // 48 KB + 4 bytes
  EXPECT_NE(over.first, 0);
  EXPECT_NE(over.second.find("too much shared data"), std::string::npos) << over.second;
  EXPECT_EQ(a100().smem_per_block_optin, 163u * 1024);  // the dynamic opt-in's ceiling per block
#endif
}

// cuda-intro, 2. (vecAdd) and 4. (the reductions): the listings lost their line breaks. The vecAdd
// example's first lines, as printed: the kernel is inside the #define (its line never ended), the
// next line opens with a '}' that closes nothing, and everything after a "//" on a line is a
// comment (the rest of main). With the breaks put back it compiles.
TEST(NotesErrata, IntroListingsWithoutTheirLineBreaksDoNotCompile) {
#ifndef CUDALAB_NVCC
  GTEST_SKIP() << "built without the path of nvcc";
#else
  const std::string as_printed =
      "#include <cstdio>\n"
      "#define BLOCK_SIZE 256__global__ void vecAdd(int *A, int *B, int *C, int n) {int i = blockIdx.x * blockDim.x + "
      "threadIdx.x;if (i < n) {C[i] = A[i] + B[i];}\n"
      "}int main() {int N = 10000;size_t size = N * sizeof(int);// 主机内存分配与初始化int *A = (int*)malloc(size);\n"
      "}\n";
  const std::string restored =
      "#include <cstdio>\n"
      "#define BLOCK_SIZE 256\n"
      "__global__ void vecAdd(int *A, int *B, int *C, int n) {int i = blockIdx.x * blockDim.x + threadIdx.x;if (i < n) "
      "{C[i] = A[i] + B[i];}\n"
      "}int main() {int N = 10000;size_t size = N * sizeof(int);// 主机内存分配与初始化\n"
      "(void)size; return 0;\n"
      "}\n";
  const auto good = nvcc_compile("listing_restored", restored, "sm_80");
  if (good.first != 0) GTEST_SKIP() << "nvcc does not run here: " << good.second.substr(0, 200);
  const auto bad = nvcc_compile("listing_as_printed", as_printed, "sm_80");
  EXPECT_NE(bad.first, 0) << "the listing as printed compiled";
#endif
}

// cuda-intro, 4. reduceGmem then reduceSmem: main() runs reduceGmem on d_idata, which it reduces in
// place, and then reduceSmem on the same d_idata. The second kernel sums what the first left
// there, not the input. The tree of reduceGmem (1024 threads, in place), on the CPU:
TEST(NotesErrata, IntroSecondReductionReadsTheInputTheFirstOverwrote) {
  const int n = 102400, block = 1024;
  std::vector<long long> data(n);
  std::iota(data.begin(), data.end(), 0LL);
  const long long truth = std::accumulate(data.begin(), data.end(), 0LL);
  for (int b0 = 0; b0 < n; b0 += block) {  // reduceGmem: each block halves its segment in place
    for (int s = block / 2; s >= 1; s /= 2) {
      for (int t = 0; t < s; ++t) data[b0 + t] += data[b0 + t + s];
    }
  }
  long long second = 0;  // reduceSmem's partial sums, added up: a sum of the overwritten array
  for (int i = 0; i < n; ++i) second += data[i];
  EXPECT_NE(second, truth);
  long long first = 0;  // reduceGmem's own answer (element 0 of every block) is right
  for (int b0 = 0; b0 < n; b0 += block) first += data[b0];
  EXPECT_EQ(first, truth);
  EXPECT_GT(second, 2 * truth);  // the partial sums are counted again and again
}

// lecture2, program 3 (mem_space_demo): every thread, also those past n, does
// atomicAdd(&gScratch[blockIdx.x], sum), and "sum(out) = sum(gScratch) (两者应相等)". A thread past n
// has self = 0 but reads its neighbours' values from shared memory, so its sum is not 0: the two
// differ whenever n is not a multiple of the block. The kernel's arithmetic on the CPU:
TEST(NotesErrata, ThreadsPastNAddToGScratchSoTheTwoSumsDifferAtAnOddN) {
  const float w[4] = {0.5f, 1.0f, 1.5f, 2.0f};
  auto sums = [&](int n, int block) {
    double out = 0, scratch = 0;
    for (int b0 = 0; b0 < n; b0 += block) {
      std::vector<float> s(block), dyn(block);
      for (int t = 0; t < block; ++t) s[t] = b0 + t < n ? 1.0f + 0.001f * static_cast<float>(b0 + t) : 0.0f;
      for (int t = 0; t < block; ++t) dyn[t] = w[t & 3] * s[t] + 0.5f * s[(t + 1) % block];
      for (int t = 0; t < block; ++t) {
        float sum = 0;
        for (int k = 0; k < 4; ++k) sum += dyn[(t + k * 7) % block] * w[k];
        if (b0 + t < n) out += sum;
        scratch += sum;  // every thread
      }
    }
    return std::make_pair(out, scratch);
  };
  const auto whole = sums(4096, 256);  // the notes' N: a multiple of the block, the sums agree
  EXPECT_NEAR(whole.first, whole.second, 1e-6 * whole.first);
  const auto odd = sums(1000, 256);
  EXPECT_GT(odd.second - odd.first, 1.0);  // threads 1000..1023 added their neighbours' values
}

// lecture2, program 3 (mem_space_demo): its occupancy estimate is the A100's, written into the
// program (2048 threads, 32 blocks, 164 KB per SM). On the H200 the same kernel (256 threads,
// 1 KB static + 1 KB dynamic shared memory) has other limits; the lab reads them from the device.
TEST(NotesErrata, MemSpaceDemoHardCodesTheA100sLimits) {
  const occ::KernelSpec k = mem_space_demo_kernel();
  const auto a = occ::compute(a100(), k), h = occ::compute(*occ::spec_for_arch("sm_90"), k);
  EXPECT_EQ(a.by_shared_memory, 54);  // 164 KB / 3 KB
  EXPECT_EQ(h.by_shared_memory, 76);  // 228 KB / 3 KB
  const auto t4 = occ::compute(*occ::spec_for_arch("sm_75"), k);
  EXPECT_EQ(t4.by_warps, 4);                   // 1024 threads per SM on Turing, not 2048
  EXPECT_DOUBLE_EQ(t4.occupancy_percent, 100.0);
  EXPECT_EQ(t4.resident_blocks * 256, 1024);   // half the A100's resident threads
}

}  // namespace

namespace {

// lecture2, program 2's write side: "warp 内连续 pix → 写 32 个连续字节 = 恰好 1 个 32 字节 sector".
// A 16 x 16 block's warp is two rows of 16 threads: its 1-byte store to one plane writes 16 bytes
// in each of two image rows, a width apart: two sectors, half of each used.
TEST(NotesErrata, SixteenBySixteenWarpStoresHalfOfTwoSectors) {
  constexpr std::size_t kSector = 32;
  for (std::size_t width : {std::size_t{76}, std::size_t{3840}, std::size_t{16384}}) {
    for (int warp = 0; warp < 8; ++warp) {
      std::map<std::size_t, int> bytes_in_sector;
      for (int lane = 0; lane < 32; ++lane) {
        const int t = warp * 32 + lane;  // linear thread index in the block: t = ty * 16 + tx
        const std::size_t row = static_cast<std::size_t>(t / 16), col = static_cast<std::size_t>(t % 16);
        ++bytes_in_sector[(row * width + col) / kSector];  // plane byte of pixel (row, col), block (0, 0)
      }
      if (width % 16 == 0) {
        EXPECT_EQ(bytes_in_sector.size(), 2u) << width;  // two sectors, one per row ...
        for (const auto& [sector, bytes] : bytes_in_sector) EXPECT_EQ(bytes, 16) << width;  // ... half used
      } else {
        EXPECT_GE(bytes_in_sector.size(), 2u) << width;  // a row may even straddle a sector boundary
      }
    }
  }
}

// lecture2, Q3: two elements per thread, grid ceil(N / 512) of 256 threads: without a second
// bounds check "N 为奇数时第二次访问会越界". It overruns for every N that is not a multiple of 512.
TEST(NotesErrata, TwoElementsPerThreadOverrunForEveryNNotAMultipleOf512) {
  for (int n = 1; n <= 4096; ++n) {
    const int block = 256, grid = (n + 2 * block - 1) / (2 * block);
    bool overruns = false;
    for (int b = 0; b < grid && !overruns; ++b) {
      for (int t = 0; t < block; ++t) {
        const int first = b * 2 * block + t, second = first + block;
        if (first < n && second >= n) overruns = true;  // the first access checked, the second not
      }
    }
    EXPECT_EQ(overruns, n % 512 != 0) << n;
  }
  EXPECT_EQ(1000 % 2, 0);  // the notes' own N = 1000 is even, and overruns: elements 1000 .. 1023
}

// lecture2, program 3: "先做 block 内 reduction 再由线程 0 原子加一次可以降低 32 倍原子压力".
// One atomic per 256-thread block instead of one per thread is 256 x fewer; 32 x is one per warp.
TEST(NotesErrata, ABlockReductionCutsAtomicsBy256NotBy32) {
  const std::size_t n = std::size_t{1} << 24;  // the mem_spaces lab's contention run
  const std::size_t per_thread = n, per_warp = n / 32, per_block = n / 256;
  EXPECT_EQ(per_warp, 524288u);
  EXPECT_EQ(per_block, 65536u);
  EXPECT_EQ(per_thread / per_block, 256u);
  EXPECT_EQ(per_thread / per_warp, 32u);
}

// execution note, 启动配置怎么选: "太小（32、64）容易先碰到每 SM 的 block 数上限". On the A100 and the
// H200, 32 blocks of 64 threads fill the SM's 2048 threads: 64 reaches the cap and full occupancy
// at once. Only 32-thread blocks stop at the cap first (50 %).
TEST(NotesErrata, SixtyFourThreadBlocksFillTheA100AndTheH200) {
  for (const char* arch : {"sm_80", "sm_90"}) {
    const occ::GpuSpec gpu = *occ::spec_for_arch(arch);
    EXPECT_DOUBLE_EQ(occupancy(gpu, 64, 32).occupancy_percent, 100.0) << arch;
    EXPECT_EQ(occupancy(gpu, 64, 32).resident_blocks, 32) << arch;
    EXPECT_DOUBLE_EQ(occupancy(gpu, 32, 32).occupancy_percent, 50.0) << arch;
  }
}

}  // namespace
