#include "common/occupancy_calc.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "common/math.hpp"

namespace cudalab::occupancy {

namespace {

constexpr std::size_t KiB = 1024;

// The allocation rules of each architecture family, and the per-SM limits of the reference
// part of that architecture (a real device's own limits replace the latter in spec_from_device).
GpuSpec make(int major, int minor, int blocks_per_sm, std::size_t smem_per_sm,
             std::size_t smem_optin, int fp32_lanes, int fp64_lanes, int bf16_tensor = 0) {
  GpuSpec s;
  s.bf16_tensor_flops_per_clock = bf16_tensor;
  s.fp32_lanes = fp32_lanes;
  s.fp64_lanes = fp64_lanes;
  s.arch = fmt::format("sm_{}{}", major, minor);
  s.cc_major = major;
  s.cc_minor = minor;
  s.warp_size = 32;
  s.max_threads_per_sm = max_threads_per_sm(major, minor);
  s.max_threads_per_block = 1024;
  s.max_blocks_per_sm = blocks_per_sm;
  s.regs_per_sm = 65536;
  s.regs_per_block = 65536;
  s.max_regs_per_thread = 255;
  s.reg_alloc_unit = 256;
  s.sub_partitions = 4;
  s.smem_per_sm = smem_per_sm;
  s.smem_per_block = 48 * KiB;
  s.smem_per_block_optin = smem_optin;
  // From Ampere on, the driver keeps 1 KB of every block's shared memory for itself.
  s.smem_reserved_per_block = major >= 8 ? 1 * KiB : 0;
  s.smem_alloc_unit = major >= 8 ? 128 : 256;
  // sm_90 and later budget named barriers per SM: two per block slot (one on sm_120).
  s.barrier_slots_per_block_slot = major >= 9 ? (major == 12 ? 1 : 2) : 0;
  return s;
}

}  // namespace

std::vector<std::string> known_archs() {
  return {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"};
}

std::optional<GpuSpec> spec_for_arch(const std::string& arch) {
  //                    cc    blocks smem/SM    opt-in/block  FP32 FP64 lanes, BF16 TC FLOP/clk
  if (arch == "sm_75") return make(7, 5, 16, 64 * KiB, 64 * KiB, 64, 2);       // Turing (T4, RTX 20)
  if (arch == "sm_80") return make(8, 0, 32, 164 * KiB, 163 * KiB, 64, 32, 2048);    // A100
  if (arch == "sm_86") return make(8, 6, 16, 100 * KiB, 99 * KiB, 128, 2);     // RTX 30, A10
  if (arch == "sm_89") return make(8, 9, 24, 100 * KiB, 99 * KiB, 128, 2);     // RTX 40, L4, L40
  if (arch == "sm_90") return make(9, 0, 32, 228 * KiB, 227 * KiB, 128, 64, 4096);   // H100, H200
  if (arch == "sm_100") return make(10, 0, 32, 228 * KiB, 227 * KiB, 128, 64); // B200
  if (arch == "sm_120") return make(12, 0, 24, 100 * KiB, 99 * KiB, 128, 2);   // RTX 50
  return std::nullopt;
}

GpuSpec spec_from_device(const DeviceFacts& f) {
  auto base = spec_for_arch(f.arch());
  if (!base) {
    // Same family, other minor version (e.g. sm_87, sm_103): the family's rules still apply.
    for (const auto& a : known_archs()) {
      auto s = spec_for_arch(a);
      if (s->cc_major == f.cc_major) base = s;
    }
  }
  if (!base) throw std::invalid_argument("no occupancy rules for " + f.arch());
  GpuSpec s = *base;
  s.arch = f.arch();
  s.cc_minor = f.cc_minor;
  s.warp_size = f.warp_size;
  s.max_threads_per_sm = f.max_threads_per_sm;
  s.max_threads_per_block = f.max_threads_per_block;
  s.max_blocks_per_sm = f.max_blocks_per_sm;
  s.regs_per_sm = f.regs_per_sm;
  s.regs_per_block = f.regs_per_block;
  s.smem_per_sm = f.smem_per_sm_bytes;
  s.smem_per_block = f.smem_per_block_bytes;
  s.smem_per_block_optin = f.smem_per_block_optin_bytes;
  s.smem_reserved_per_block = f.smem_reserved_per_block_bytes;
  return s;
}

std::string Result::limiter_names() const {
  std::string s;
  auto add = [&](unsigned bit, const char* name) {
    if (limiters & bit) s += (s.empty() ? "" : " + ") + std::string(name);
  };
  add(kLimitWarps, "threads");
  add(kLimitRegisters, "registers");
  add(kLimitSharedMemory, "shared memory");
  add(kLimitBlocks, "blocks per SM");
  add(kLimitBarriers, "barriers");
  return s.empty() ? "none" : s;
}

Result compute(const GpuSpec& g, const KernelSpec& k) {
  Result r;
  r.max_warps = g.max_threads_per_sm / g.warp_size;
  if (k.block_threads <= 0) return r;
  r.warps_per_block = ceil_div(k.block_threads, g.warp_size);  // a partial warp takes a whole slot

  // Threads: whole warps, and never a block larger than the per-block limit.
  r.by_warps = k.block_threads > g.max_threads_per_block ? 0 : r.max_warps / r.warps_per_block;

  // The hardware's cap on resident blocks.
  r.by_blocks = g.max_blocks_per_sm;

  // Registers: allocated per warp in units of reg_alloc_unit; each of the sub_partitions
  // quarters of the register file holds whole warps only.
  const int regs_per_warp = round_up(k.regs_per_thread * g.warp_size, g.reg_alloc_unit);
  r.regs_allocated_per_block = regs_per_warp * r.warps_per_block;
  // The hardware places a block's warps evenly over the sub-partitions.
  const int regs_assumed_per_block = regs_per_warp * round_up(r.warps_per_block, g.sub_partitions);
  if (k.regs_per_thread > g.max_regs_per_thread || regs_assumed_per_block > g.regs_per_block ||
      r.regs_allocated_per_block > g.regs_per_block) {
    r.by_registers = 0;
  } else if (regs_per_warp == 0) {
    r.by_registers = kUnlimited;
  } else {
    const int warps_per_sub_partition = (g.regs_per_sm / g.sub_partitions) / regs_per_warp;
    r.by_registers = warps_per_sub_partition * g.sub_partitions / r.warps_per_block;
  }

  // Shared memory: static + dynamic + the driver's reserve, in allocation units.
  const std::size_t fixed = k.static_smem + g.smem_reserved_per_block;
  r.smem_allocated_per_block = round_up(fixed + k.dynamic_smem, g.smem_alloc_unit);
  // A kernel whose possible use exceeds the default per-block limit has opted in to the larger one.
  const bool opted_in = fixed + k.max_dynamic_smem > g.smem_per_block;
  const std::size_t block_limit = (opted_in ? g.smem_per_block_optin : g.smem_per_block) + g.smem_reserved_per_block;
  if (k.dynamic_smem > k.max_dynamic_smem || r.smem_allocated_per_block > block_limit) {
    r.by_shared_memory = 0;
  } else if (r.smem_allocated_per_block == 0) {
    r.by_shared_memory = kUnlimited;
  } else {
    r.by_shared_memory = static_cast<int>(g.smem_per_sm / r.smem_allocated_per_block);
  }

  r.resident_blocks = std::min({r.by_warps, r.by_registers, r.by_shared_memory, r.by_blocks});
  if (r.resident_blocks == r.by_warps) r.limiters |= kLimitWarps;
  if (r.resident_blocks == r.by_registers) r.limiters |= kLimitRegisters;
  if (r.resident_blocks == r.by_shared_memory) r.limiters |= kLimitSharedMemory;
  if (r.resident_blocks == r.by_blocks) r.limiters |= kLimitBlocks;
  if (g.barrier_slots_per_block_slot > 0 && k.barriers > 0) {
    r.by_barriers = g.max_blocks_per_sm * g.barrier_slots_per_block_slot / k.barriers;
    if (r.by_barriers <= r.resident_blocks) {
      r.resident_blocks = r.by_barriers;
      r.limiters |= kLimitBarriers;
    }
  }
  r.active_warps = r.resident_blocks * r.warps_per_block;
  r.occupancy_percent = r.max_warps > 0 ? 100.0 * r.active_warps / r.max_warps : 0.0;
  return r;
}

KernelSpec spec_from_attributes(const cudaFuncAttributes& attr, int block_threads, std::size_t dynamic_smem) {
  KernelSpec s;
  s.block_threads = block_threads;
  s.regs_per_thread = attr.numRegs;
  s.static_smem = attr.sharedSizeBytes;
  s.dynamic_smem = dynamic_smem;
  s.max_dynamic_smem = static_cast<std::size_t>(attr.maxDynamicSharedSizeBytes);
  return s;
}

}  // namespace cudalab::occupancy
