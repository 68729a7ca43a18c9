#include "common/device_facts.hpp"

#include <stdexcept>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "common/cuda_check.hpp"

namespace cudalab {

std::string DeviceFacts::arch() const { return fmt::format("sm_{}{}", cc_major, cc_minor); }

double DeviceFacts::theoretical_bandwidth_gbps() const {
  return cudalab::theoretical_bandwidth_gbps(memory_clock_khz, memory_bus_width_bits);
}

double pcie_bandwidth_gbps_per_direction(int generation, int lanes) {
  static const double kGigatransfers[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
  static const double kCoding[] = {8.0 / 10, 8.0 / 10, 128.0 / 130, 128.0 / 130, 128.0 / 130, 242.0 / 256};
  if (generation < 1 || generation > 6 || lanes < 1) {
    throw std::invalid_argument("pcie_bandwidth_gbps_per_direction: generation 1-6 and at least one lane");
  }
  const auto g = static_cast<std::size_t>(generation - 1);
  return kGigatransfers[g] * kCoding[g] * lanes / 8.0;
}

double theoretical_bandwidth_gbps(long long memory_clock_khz, int bus_width_bits) {
  const double transfers_per_s = 2.0 * static_cast<double>(memory_clock_khz) * 1e3;  // DDR
  const double bytes_per_transfer = static_cast<double>(bus_width_bits) / 8.0;
  return transfers_per_s * bytes_per_transfer / 1e9;
}

int usable_device_count(std::string* why_not) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    if (why_not != nullptr) {
      *why_not = fmt::format("{} ({})", cudaGetErrorString(err), cudaGetErrorName(err));
    }
    (void)cudaGetLastError();
    return 0;
  }
  if (count == 0 && why_not != nullptr) *why_not = "the CUDA runtime reports 0 devices";
  return count;
}

namespace {
int attribute(cudaDeviceAttr attr, int ordinal) {
  int value = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, ordinal));
  return value;
}
}  // namespace

DeviceFacts query_device(int ordinal) {
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, ordinal));
  DeviceFacts f;
  f.ordinal = ordinal;
  f.name = p.name;
  f.cc_major = p.major;
  f.cc_minor = p.minor;
  f.sm_count = p.multiProcessorCount;
  f.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  f.max_threads_per_block = p.maxThreadsPerBlock;
  f.max_blocks_per_sm = attribute(cudaDevAttrMaxBlocksPerMultiprocessor, ordinal);
  f.warp_size = p.warpSize;
  f.regs_per_sm = p.regsPerMultiprocessor;
  f.regs_per_block = p.regsPerBlock;
  f.smem_per_sm_bytes = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, ordinal));
  f.smem_per_block_bytes = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlock, ordinal));
  f.smem_per_block_optin_bytes = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal));
  f.smem_reserved_per_block_bytes = static_cast<std::size_t>(attribute(cudaDevAttrReservedSharedMemoryPerBlock, ordinal));
  for (int d = 0; d < 3; ++d) {
    f.max_grid[d] = p.maxGridSize[d];
    f.max_block_dim[d] = p.maxThreadsDim[d];
  }
  f.l2_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize, ordinal));
  f.memory_bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
  f.memory_clock_khz = attribute(cudaDevAttrMemoryClockRate, ordinal);
  f.sm_clock_khz = attribute(cudaDevAttrClockRate, ordinal);
  f.global_mem_bytes = p.totalGlobalMem;
  f.concurrent_kernels = attribute(cudaDevAttrConcurrentKernels, ordinal) != 0;
  f.unified_addressing = attribute(cudaDevAttrUnifiedAddressing, ordinal) != 0;
  return f;
}

void select_device(int ordinal) {
  std::string why;
  const int count = usable_device_count(&why);
  if (count == 0) throw NoDeviceError(why);
  if (ordinal < 0 || ordinal >= count) {
    throw UsageError(fmt::format("--device {} does not exist; this machine has {} CUDA device{} (0..{})",
                                 ordinal, count, count == 1 ? "" : "s", count - 1));
  }
  CUDA_CHECK(cudaSetDevice(ordinal));
}

}  // namespace cudalab
