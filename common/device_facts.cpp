#include "common/device_facts.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "common/cuda_check.hpp"
#include "common/occupancy_calc.hpp"

namespace cudalab {

std::string DeviceFacts::arch() const { return fmt::format("sm_{}{}", cc_major, cc_minor); }

ArchLanes arch_lanes(int cc_major, int cc_minor) {
  const auto spec = occupancy::spec_for_arch(fmt::format("sm_{}{}", cc_major, cc_minor));
  if (!spec) return {};
  return {true, spec->fp32_lanes, spec->fp64_lanes, spec->bf16_tensor_flops_per_clock};
}

double DeviceFacts::theoretical_fp32_gflops() const {
  return sm_count * arch_lanes(cc_major, cc_minor).fp32 * 2.0 * sm_clock_khz / 1e6;
}

double DeviceFacts::theoretical_fp64_gflops() const {
  return sm_count * arch_lanes(cc_major, cc_minor).fp64 * 2.0 * sm_clock_khz / 1e6;
}

double DeviceFacts::theoretical_bf16_tensor_gflops() const {
  return sm_count * static_cast<double>(arch_lanes(cc_major, cc_minor).bf16_tensor_flops_per_clock) * sm_clock_khz / 1e6;
}

double DeviceFacts::theoretical_bandwidth_gbps() const {
  return cudalab::theoretical_bandwidth_gbps(memory_clock_khz, memory_bus_width_bits);
}

namespace {
// Transfer rate per lane of PCIe generations 1-6.
constexpr double kPcieGigatransfers[] = {2.5, 5.0, 8.0, 16.0, 32.0, 64.0};
}  // namespace

double pcie_bandwidth_gbps_per_direction(int generation, int lanes) {
  static const double kCoding[] = {8.0 / 10, 8.0 / 10, 128.0 / 130, 128.0 / 130, 128.0 / 130, 242.0 / 256};
  if (generation < 1 || generation > 6 || lanes < 1) {
    throw std::invalid_argument("pcie_bandwidth_gbps_per_direction: generation 1-6 and at least one lane");
  }
  const auto g = static_cast<std::size_t>(generation - 1);
  return kPcieGigatransfers[g] * kCoding[g] * lanes / 8.0;
}

int pcie_generation_from_speed(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double gts = std::strtod(begin, &end);
  if (end == begin || text.find("GT/s", static_cast<std::size_t>(end - begin)) == std::string::npos) return 0;
  for (int g = 0; g < 6; ++g) {
    if (gts > kPcieGigatransfers[g] * 0.99 && gts < kPcieGigatransfers[g] * 1.01) return g + 1;
  }
  return 0;
}

std::string sysfs_bus_id(const std::string& cuda_bus_id) {
  std::string id = cuda_bus_id;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto colon = id.find(':');
  if (colon != std::string::npos && colon > 4) id.erase(0, colon - 4);  // an 8-digit domain
  return id;
}

namespace {
// The first line of a sysfs file; false when it cannot be read.
bool read_line(const std::string& path, std::string* line) {
  std::ifstream in(path);
  return static_cast<bool>(in) && static_cast<bool>(std::getline(in, *line));
}
}  // namespace

PcieLink read_pcie_link(const std::string& bus_id, const std::string& sysfs_root) {
  PcieLink link;
  link.bus_id = bus_id;
  const std::string dir = sysfs_root + "/" + bus_id + "/";
  std::string speed, width, max_speed, max_width;
  if (!read_line(dir + "current_link_speed", &speed) || !read_line(dir + "current_link_width", &width)) {
    link.why_unknown = "cannot read " + dir + "current_link_speed/_width";
    return link;
  }
  link.generation = pcie_generation_from_speed(speed);
  link.width = std::atoi(width.c_str());
  if (read_line(dir + "max_link_speed", &max_speed)) link.max_generation = pcie_generation_from_speed(max_speed);
  if (read_line(dir + "max_link_width", &max_width)) link.max_width = std::atoi(max_width.c_str());
  if (!link.known()) {
    link.why_unknown = fmt::format("sysfs reports link speed \"{}\" and width \"{}\"", speed, width);
    link.generation = link.width = 0;
  }
  return link;
}

PcieLink query_pcie_link(int ordinal) {
  char id[64] = {};
  CUDA_CHECK(cudaDeviceGetPCIBusId(id, static_cast<int>(sizeof id), ordinal));
  return read_pcie_link(sysfs_bus_id(id));
}

double theoretical_bandwidth_gbps(long long memory_clock_khz, int bus_width_bits) {
  const double transfers_per_s = 2.0 * static_cast<double>(memory_clock_khz) * 1e3;  // DDR
  const double bytes_per_transfer = static_cast<double>(bus_width_bits) / 8.0;
  return transfers_per_s * bytes_per_transfer / 1e9;
}

namespace {
// CUDALAB_SYNC=blocking (ctest sets it for every GPU test; cmake/CudaLab.cmake says why): a host
// thread that waits for the current device sleeps until the GPU is done instead of spinning on
// a core (cudaDeviceScheduleBlockingSync). Unset, the driver's default stays: it spins while a
// process has fewer contexts than the machine has cores, which is what a lab's own timed run wants.
void apply_sync_policy() {
  const char* policy = std::getenv("CUDALAB_SYNC");
  if (policy != nullptr && std::string(policy) == "blocking" &&
      cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync) != cudaSuccess) {
    (void)cudaGetLastError();  // a device that refuses keeps the default: slower to share, still correct
  }
}
}  // namespace

int usable_device_count(std::string* why_not) {
  static const bool sync_applied = [] {  // once per process, on the device current at the first call
    int n = 0;
    if (cudaGetDeviceCount(&n) == cudaSuccess && n > 0) apply_sync_policy();
    (void)cudaGetLastError();
    return true;
  }();
  (void)sync_applied;
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
  apply_sync_policy();
}

}  // namespace cudalab
