#include "common/device_cache.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include "common/cuda_check.hpp"

namespace cudalab {

namespace {

std::mutex& cache_mutex() {
  static std::mutex m;
  return m;
}

int current_device() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&v, a, device));
  return v;
}

}  // namespace

const LaunchLimits& launch_limits() {
  static std::map<int, LaunchLimits> by_device;
  const int device = current_device();
  std::lock_guard<std::mutex> lock(cache_mutex());
  auto it = by_device.find(device);
  if (it == by_device.end()) {
    LaunchLimits l;
    l.device = device;
    l.sms = attribute(cudaDevAttrMultiProcessorCount, device);
    l.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, device);
    l.cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, device);
    l.max_threads_per_sm = attribute(cudaDevAttrMaxThreadsPerMultiProcessor, device);
    l.max_warps_per_sm = l.max_threads_per_sm / 32;
    l.smem_optin = static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    l.clusters = l.cc_major >= 9;
    it = by_device.emplace(device, l).first;
  }
  return it->second;  // std::map never moves its elements
}

int resident_blocks(const void* kernel, int threads, std::size_t dynamic_smem) {
  static std::map<std::tuple<int, const void*, int, std::size_t>, int> blocks;
  const int device = current_device();
  std::lock_guard<std::mutex> lock(cache_mutex());
  const auto key = std::make_tuple(device, kernel, threads, dynamic_smem);
  if (auto it = blocks.find(key); it != blocks.end()) return it->second;
  if (dynamic_smem > 48 * 1024) allow_dynamic_shared_memory(kernel, static_cast<int>(dynamic_smem));
  int per_sm = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, dynamic_smem));
  blocks.emplace(key, per_sm);
  return per_sm;
}

int resident_clusters(const void* kernel, int cluster, int threads, std::size_t dynamic_smem) {
  static std::map<std::tuple<int, const void*, int, int, std::size_t>, int> clusters;
  const int device = current_device();
  std::lock_guard<std::mutex> lock(cache_mutex());
  const auto key = std::make_tuple(device, kernel, cluster, threads, dynamic_smem);
  if (auto it = clusters.find(key); it != clusters.end()) return it->second;
  if (dynamic_smem > 48 * 1024) allow_dynamic_shared_memory(kernel, static_cast<int>(dynamic_smem));
  const ClusterLaunch l(static_cast<unsigned>(cluster), static_cast<unsigned>(threads), dynamic_smem, nullptr,
                        static_cast<unsigned>(cluster));
  int n = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&n, kernel, &l.config));
  clusters.emplace(key, n);
  return n;
}

std::string sm90a_unavailable(const void* probe) {
  const LaunchLimits& device = launch_limits();
  if (device.cc_major != 9 || device.cc_minor != 0) {
    return "wgmma and TMA run from sm_90a machine code, which only compute capability 9.0 runs";
  }
  static std::map<const void*, bool> has_image;
  std::lock_guard<std::mutex> lock(cache_mutex());
  auto it = has_image.find(probe);
  if (it == has_image.end()) {
    cudaFuncAttributes attr{};
    const bool found = cudaFuncGetAttributes(&attr, probe) == cudaSuccess;
    if (!found) (void)cudaGetLastError();  // not sticky: clear it
    it = has_image.emplace(probe, found).first;
  }
  return it->second ? "" : "this build has no sm_90a machine code for this GPU";
}

}  // namespace cudalab
