// device_query: the facts of each GPU, read with cudaGetDeviceProperties and
// cudaDeviceGetAttribute, and the arithmetic the course builds on them.
//
// Build: part of the suite (cmake --build build); run: ./labs/device_query [--device N] [--json]
//
// This lab launches no kernel. Its point is the machine model: on an H200 it reads 132 SMs of
// 2048 threads (270,336 resident threads) and a 4814 GB/s DRAM ceiling, numbers that every
// later lab's grid sizes and "% of peak" columns come from.
#include "device_query.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace device_query {

BlockResidency residency_by_threads_and_blocks(int max_threads_per_sm, int max_blocks_per_sm,
                                               int warp_size, int block_threads) {
  BlockResidency r;
  r.block_threads = block_threads;
  // STUDENT-BEGIN(device_query.residency): blocks of one size resident on an SM
  // TASK: Fill in r: how many blocks fit by the SM's thread limit, how many the hardware's
  // blocks-per-SM limit allows, the resident blocks (the smaller), and the resident threads,
  // warps and occupancy (resident warps over the SM's maximum warps, in percent). Guard
  // against a block size of 0 or larger than the SM.
  // HINT: about 8 lines; the H200 with 256 threads: 8 blocks by threads, 32 by the limit.
  // STUB: (void)max_threads_per_sm; (void)max_blocks_per_sm; (void)warp_size;
  if (block_threads <= 0 || warp_size <= 0 || max_threads_per_sm <= 0) return r;
  r.blocks_by_threads = max_threads_per_sm / block_threads;
  r.blocks_by_block_limit = max_blocks_per_sm;
  r.resident_blocks = std::min(r.blocks_by_threads, r.blocks_by_block_limit);
  r.resident_threads = r.resident_blocks * block_threads;
  // A partial warp still occupies a whole warp slot.
  const int warps_per_block = (block_threads + warp_size - 1) / warp_size;
  r.resident_warps = r.resident_blocks * warps_per_block;
  r.occupancy_percent = 100.0 * r.resident_warps / (max_threads_per_sm / warp_size);
  // STUDENT-END(device_query.residency)
  return r;
}

void report_device(cudalab::Report& report, const cudalab::DeviceFacts& f) {
  using cudalab::Value;
  constexpr double kKiB = 1024.0;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

  report.begin_item("devices");
  report.heading(fmt::format("Device {}: {}", f.ordinal, f.name));
  report.field("ordinal", "device", f.ordinal);
  report.field("name", "name", f.name);
  report.field("compute_capability", "compute capability",
               fmt::format("{}.{}   (nvcc -arch={})", f.cc_major, f.cc_minor, f.arch()));
  report.field("arch", "nvcc architecture", f.arch());
  report.field("sm_count", "multiprocessors (SMs)", f.sm_count);
  report.field("max_threads_per_sm", "max threads per SM", f.max_threads_per_sm);
  report.field("max_threads_per_block", "max threads per block", f.max_threads_per_block);
  report.field("max_blocks_per_sm", "max resident blocks per SM", f.max_blocks_per_sm);
  report.field("warp_size", "warp size", f.warp_size);
  report.field("regs_per_sm", "32-bit registers per SM", f.regs_per_sm,
               fmt::format("({} KB)", f.regs_per_sm * 4 / 1024));
  report.field("regs_per_block", "32-bit registers per block", f.regs_per_block);
  report.field("smem_per_sm_bytes", "shared memory per SM", f.smem_per_sm_bytes,
               fmt::format("B ({} KB)", f.smem_per_sm_bytes / 1024));
  report.field("smem_per_block_bytes", "shared memory per block", f.smem_per_block_bytes,
               fmt::format("B ({} KB)", f.smem_per_block_bytes / 1024));
  report.field("smem_per_block_optin_bytes", "shared memory per block, opt-in",
               f.smem_per_block_optin_bytes, fmt::format("B ({} KB)", f.smem_per_block_optin_bytes / 1024));
  report.field("smem_reserved_per_block_bytes", "shared memory reserved per block",
               f.smem_reserved_per_block_bytes, "B");
  report.field("max_grid", "max grid size (x, y, z)",
               fmt::format("({}, {}, {})", f.max_grid[0], f.max_grid[1], f.max_grid[2]));
  report.field("max_block_dim", "max block size (x, y, z)",
               fmt::format("({}, {}, {})", f.max_block_dim[0], f.max_block_dim[1], f.max_block_dim[2]));
  report.field("l2_bytes", "L2 cache", f.l2_bytes,
               fmt::format("B ({:.1f} MB)", static_cast<double>(f.l2_bytes) / (kKiB * kKiB)));
  report.field("memory_bus_width_bits", "memory bus width", f.memory_bus_width_bits, "bit");
  report.field("memory_clock_khz", "memory clock (peak)", f.memory_clock_khz,
               fmt::format("kHz ({} MHz)", f.memory_clock_khz / 1000));
  report.field("sm_clock_khz", "SM clock (peak)", f.sm_clock_khz,
               fmt::format("kHz ({} MHz)", f.sm_clock_khz / 1000));
  report.field("global_mem_bytes", "global memory", f.global_mem_bytes,
               fmt::format("B ({:.2f} GiB)", static_cast<double>(f.global_mem_bytes) / kGiB));
  report.field("concurrent_kernels", "concurrent kernels", f.concurrent_kernels);
  report.field("unified_addressing", "unified addressing", f.unified_addressing);
  report.field("theoretical_bandwidth_gbps", "theoretical DRAM bandwidth",
               Value(f.theoretical_bandwidth_gbps(), 1),
               fmt::format("GB/s (2 x {} MHz x {} bit / 8)", f.memory_clock_khz / 1000,
                           f.memory_bus_width_bits));
  report.field("max_resident_threads", "resident threads (all SMs)", f.max_resident_threads(),
               fmt::format("({} SMs x {})", f.sm_count, f.max_threads_per_sm));
  report.field("max_resident_warps", "resident warps (all SMs)", f.max_resident_warps());

  constexpr int kBlock = 256;
  const BlockResidency r =
      residency_by_threads_and_blocks(f.max_threads_per_sm, f.max_blocks_per_sm, f.warp_size, kBlock);
  report.heading(fmt::format("Residency of a {}-thread block (thread and block limits only)", kBlock));
  report.field("residency_block_threads", "block size", r.block_threads, "threads");
  report.field("residency_blocks_by_threads", "blocks allowed by threads per SM", r.blocks_by_threads);
  report.field("residency_blocks_by_block_limit", "blocks allowed by blocks per SM", r.blocks_by_block_limit);
  report.field("residency_resident_blocks", "resident blocks per SM", r.resident_blocks,
               fmt::format("= {} threads = {} warps", r.resident_threads, r.resident_warps));
  report.field("residency_occupancy_percent", "occupancy", Value(r.occupancy_percent, 1), "%");
  report.end_item();
}

}  // namespace device_query
