#pragma once
// A host-side occupancy calculator: how many blocks of a kernel can be resident on one SM,
// and which resource stops more. Written from the published allocation rules (warps are
// allocated whole; registers per warp in units of 256, split over the SM's four
// sub-partitions; shared memory in units of 128 B (256 B on sm_7x) plus the block's
// driver-reserved 1 KB on sm_80 and later; a per-architecture cap on resident blocks).
// Needs no GPU: a GpuSpec can come from the device or from a named architecture.
#include <cuda_runtime_api.h>

#include <climits>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/device_facts.hpp"

namespace cudalab::occupancy {

// INT_MAX: this resource sets no limit (a kernel with no registers or no shared memory).
inline constexpr int kUnlimited = INT_MAX;

// Threads one SM holds, by compute capability (CUDA's table of per-architecture limits): 1,024
// on Turing, 1,536 on sm_86, sm_87, sm_89 and sm_12x, 2,048 on the others from Volta on. The one
// home of this figure: spec_for_arch's table reads it, and so can a kernel's launch bounds at
// compile time (max_threads_per_sm(__CUDA_ARCH__ / 100, __CUDA_ARCH__ / 10 % 10)).
constexpr int max_threads_per_sm(int major, int minor) {
  if (major == 7 && minor == 5) return 1024;
  if ((major == 8 && minor >= 6) || major == 12) return 1536;
  return 2048;
}

struct GpuSpec {
  std::string arch;  // "sm_90"
  int cc_major = 0, cc_minor = 0;
  int warp_size = 32;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int regs_per_sm = 0;
  int regs_per_block = 0;
  int max_regs_per_thread = 0;
  int reg_alloc_unit = 0;        // registers per warp are allocated in multiples of this
  int sub_partitions = 0;        // the register file is split evenly over these
  std::size_t smem_per_sm = 0;           // with the default carveout (all of it for shared memory)
  std::size_t smem_per_block = 0;        // default per-block limit
  std::size_t smem_per_block_optin = 0;  // after cudaFuncAttributeMaxDynamicSharedMemorySize
  std::size_t smem_reserved_per_block = 0;
  std::size_t smem_alloc_unit = 0;
  int barrier_slots_per_block_slot = 0;  // named-barrier budget (sm_90+): blocks x this
  // FMAs one SM completes per clock (the CUDA C++ Programming Guide's throughput table): 2 FLOP
  // each. FP32: 64 on Turing and the A100, 128 from GA10x on; FP64: half of FP32 on the
  // data-centre parts (sm_80, sm_90, sm_100), 2 on the others.
  int fp32_lanes = 0, fp64_lanes = 0;
  // Dense BF16 Tensor Core FLOPs (FP32 accumulation) one SM completes per clock: 2048 on the
  // A100 (312 TFLOP/s at 108 SMs and 1410 MHz), 4096 on the H100 and H200 (989 at 132 and
  // 1830 MHz), from NVIDIA's data sheets; 0 where the table has no published figure it trusts
  // (none on sm_75; GeForce parts halve the FP32-accumulation rate of their data-centre kin).
  int bf16_tensor_flops_per_clock = 0;
};

// Architectures with a built-in spec (the one per-architecture table of the suite): sm_75, sm_80,
// sm_86, sm_89, sm_90, sm_100, sm_120.
std::vector<std::string> known_archs();
std::optional<GpuSpec> spec_for_arch(const std::string& arch);
// The spec of a real device: its own limits plus its architecture's allocation rules.
// Throws std::invalid_argument for an architecture whose rules are not known.
GpuSpec spec_from_device(const DeviceFacts& facts);

struct KernelSpec {
  int block_threads = 0;
  int regs_per_thread = 0;
  std::size_t static_smem = 0;       // __shared__ arrays (cudaFuncAttributes::sharedSizeBytes)
  std::size_t dynamic_smem = 0;      // the launch's third <<<>>> argument
  // The kernel's cudaFuncAttributeMaxDynamicSharedMemorySize (48 KB unless raised).
  std::size_t max_dynamic_smem = 48 * 1024;
  int barriers = 1;                  // named barriers the kernel uses (__syncthreads uses one)
};

enum Limiter : unsigned {
  kLimitWarps = 1u << 0,      // threads (warps) per SM
  kLimitRegisters = 1u << 1,
  kLimitSharedMemory = 1u << 2,
  kLimitBlocks = 1u << 3,     // the hardware's resident-block cap
  kLimitBarriers = 1u << 4,
};

struct Result {
  int by_warps = 0, by_registers = 0, by_shared_memory = 0, by_blocks = 0, by_barriers = kUnlimited;
  int resident_blocks = 0;            // the smallest of the limits
  int warps_per_block = 0;
  int active_warps = 0;               // resident blocks x warps per block
  int max_warps = 0;                  // per SM
  double occupancy_percent = 0;       // active warps / max warps
  unsigned limiters = 0;              // every resource whose limit equals resident_blocks
  int regs_allocated_per_block = 0;
  std::size_t smem_allocated_per_block = 0;

  // "registers + shared memory"
  std::string limiter_names() const;
};

Result compute(const GpuSpec& gpu, const KernelSpec& kernel);

// A KernelSpec from what cudaFuncGetAttributes reports about a compiled kernel.
KernelSpec spec_from_attributes(const cudaFuncAttributes& attr, int block_threads, std::size_t dynamic_smem);

}  // namespace cudalab::occupancy
