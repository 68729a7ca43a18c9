#pragma once
// Device facts: what a lab needs to know about the GPU it runs on, read at run time
// (never hard-coded for one GPU), and the arithmetic built on them.
#include <cstddef>
#include <cstdint>
#include <string>

namespace cudalab {

struct DeviceFacts {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  int max_threads_per_block = 0;
  int max_blocks_per_sm = 0;
  int warp_size = 0;
  int regs_per_sm = 0;
  int regs_per_block = 0;
  std::size_t smem_per_sm_bytes = 0;
  std::size_t smem_per_block_bytes = 0;        // without opting in
  std::size_t smem_per_block_optin_bytes = 0;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  std::size_t smem_reserved_per_block_bytes = 0;  // taken by the driver from every block (sm_80+)
  int max_grid[3] = {0, 0, 0};
  int max_block_dim[3] = {0, 0, 0};
  std::size_t l2_bytes = 0;
  int memory_bus_width_bits = 0;
  int memory_clock_khz = 0;  // peak memory clock; CUDA 13 dropped cudaDeviceProp::memoryClockRate
  int sm_clock_khz = 0;      // peak SM clock; likewise read with cudaDeviceGetAttribute
  std::size_t global_mem_bytes = 0;
  bool concurrent_kernels = false;
  bool unified_addressing = false;

  // "sm_90" for compute capability 9.0: the value for nvcc -arch.
  std::string arch() const;
  double theoretical_bandwidth_gbps() const;
  // Lanes per SM for FP32 and FP64 FMAs (arch_lanes) and the FP32 peak they give: SMs x lanes
  // x 2 FLOP x the peak SM clock (0 for an architecture the table does not know).
  double theoretical_fp32_gflops() const;
  double theoretical_fp64_gflops() const;
  // Dense BF16 Tensor Core peak (FP32 accumulation) at the maximum clock; 0 where the table has
  // no figure for this architecture.
  double theoretical_bf16_tensor_gflops() const;
  long long max_resident_threads() const { return 1LL * sm_count * max_threads_per_sm; }
  long long max_resident_warps() const {
    return warp_size > 0 ? max_resident_threads() / warp_size : 0;
  }
};

// FP32 and FP64 FMA lanes per SM of compute capability major.minor, from the suite's one
// per-architecture table (common/occupancy_calc.hpp: spec_for_arch). Each FMA counts 2 FLOP.
// known is false (lanes 0) for an architecture the table does not list.
struct ArchLanes {
  bool known = false;
  int fp32 = 0, fp64 = 0;
  int bf16_tensor_flops_per_clock = 0;  // 0: no figure for this architecture
};
ArchLanes arch_lanes(int cc_major, int cc_minor);

// Peak DRAM bandwidth in GB/s (1e9 bytes/s): the memory transfers data twice per clock
// (double data rate) over a bus of `bus_width_bits`. H200: 2 x 3201 MHz x 6016 bit / 8 = 4814 GB/s.
double theoretical_bandwidth_gbps(long long memory_clock_khz, int bus_width_bits);

// Peak PCIe bandwidth in GB/s in one direction, after line coding, for generation 1-6 and
// `lanes` lanes: gen 4 x16 = 16 GT/s x 16 x 128/130 / 8 = 31.5 GB/s each way (63 GB/s both ways
// together). Gen 1-2 use 8b/10b coding, 3-5 128b/130b, 6 (PAM4 + FLIT) about 242/256.
// Throws std::invalid_argument for another generation or lanes < 1.
double pcie_bandwidth_gbps_per_direction(int generation, int lanes);

// The PCIe link of a device as Linux reports it under /sys/bus/pci/devices/<bus id>/ (the
// runtime API does not say). Generation and width are 0 when unknown (another OS, a virtual
// machine that hides the files, a GPU behind NVLink-C2C), with the reason in why_unknown.
struct PcieLink {
  std::string bus_id;  // "0000:00:06.0", as sysfs names it
  int generation = 0, width = 0;          // the link as it runs now
  int max_generation = 0, max_width = 0;  // what the device and slot could do
  std::string why_unknown;
  bool known() const { return generation > 0 && width > 0; }
  double gbps_per_direction() const { return known() ? pcie_bandwidth_gbps_per_direction(generation, width) : 0.0; }
};

// "32.0 GT/s PCIe" -> 5, "16.0 GT/s" -> 4, "2.5 GT/s" -> 1; 0 for text that names no PCIe rate.
int pcie_generation_from_speed(const std::string& text);

// sysfs's name for the runtime's bus id: lower case, a 4-digit domain ("00000000:1B:00.0" ->
// "0000:1b:00.0").
std::string sysfs_bus_id(const std::string& cuda_bus_id);

// Reads current_link_speed/_width and max_link_speed/_width of `bus_id` under `sysfs_root`.
// Never throws: a missing or unreadable file leaves the link unknown, with the reason.
PcieLink read_pcie_link(const std::string& bus_id, const std::string& sysfs_root = "/sys/bus/pci/devices");

// The link of CUDA device `ordinal` (its bus id from cudaDeviceGetPCIBusId). Throws CudaError.
PcieLink query_pcie_link(int ordinal);

// Number of usable CUDA devices; 0 when there is none or no working driver, with the reason
// in *why_not (when given). Never throws.
int usable_device_count(std::string* why_not = nullptr);

// Reads every fact with cudaGetDeviceProperties / cudaDeviceGetAttribute. Throws CudaError.
DeviceFacts query_device(int ordinal);

// Makes `ordinal` the current device. Throws NoDeviceError when no device is usable and
// UsageError when the ordinal does not exist.
void select_device(int ordinal);

}  // namespace cudalab
