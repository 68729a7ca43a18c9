#pragma once
// The one per-device cache of the suite: what launchers ask of the device (the SMs that size a
// grid-stride or split-K grid, the occupancy that sizes a fixed grid), queried once per device and
// then read from memory, so that a launch inside a timed loop makes no attribute or occupancy
// query (each is a call into the driver, some microseconds, timed with the kernel if it sits in
// the launch).
//
//   const cudalab::LaunchLimits& d = cudalab::launch_limits();   // the current device's
//   int per_sm = cudalab::resident_blocks(kernel, 256, smem);     // cudaOccupancy..., cached
//   int at_once = cudalab::resident_clusters(kernel, 4, 256, smem); // clusters on the GPU, cached
//   cudalab::ClusterLaunch l(grid, 256, smem, stream, 4);         // cudaLaunchKernelEx(&l.config, ...)
//   std::string why = cudalab::sm90a_unavailable(kernel);        // "" where wgmma/TMA code runs
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace cudalab {

struct LaunchLimits {
  int device = 0;
  int sms = 0;
  int cc_major = 0, cc_minor = 0;
  int max_threads_per_sm = 0;
  int max_warps_per_sm = 0;     // max_threads_per_sm / 32
  std::size_t smem_optin = 0;   // dynamic shared memory one block may ask for after opting in
  bool clusters = false;        // thread-block clusters: compute capability 9.0 and later
};

// The limits of the current device (cudaGetDevice), queried on its first use.
const LaunchLimits& launch_limits();

// cudaOccupancyMaxActiveBlocksPerMultiprocessor(kernel, threads, dynamic_smem) on the current
// device, queried once per (device, kernel, threads, dynamic_smem). A kernel asking for more than
// 48 KB of dynamic shared memory is opted in first (allow_dynamic_shared_memory, common/cuda_check:
// the limit is raised to the largest amount asked so far, never lowered).
int resident_blocks(const void* kernel, int threads, std::size_t dynamic_smem = 0);

template <typename Kernel>
int resident_blocks(Kernel* kernel, int threads, std::size_t dynamic_smem = 0) {
  return resident_blocks(reinterpret_cast<const void*>(kernel), threads, dynamic_smem);
}

// cudaOccupancyMaxActiveClusters: how many clusters of `cluster` blocks of `threads` threads and
// `dynamic_smem` bytes the current device holds at once, queried once per (device, kernel,
// cluster, threads, dynamic_smem). Needs thread-block clusters (LaunchLimits::clusters).
int resident_clusters(const void* kernel, int cluster, int threads, std::size_t dynamic_smem = 0);

// The configuration of a launch of `grid` blocks (a multiple of `cluster`) in clusters of
// `cluster` blocks along x, for cudaLaunchKernelEx(&l.config, kernel, args...): the config points
// at the cluster attribute inside this object, so it stays where it is (no copies).
struct ClusterLaunch {
  cudaLaunchAttribute attribute{};
  cudaLaunchConfig_t config{};
  ClusterLaunch(unsigned grid, unsigned threads, std::size_t dynamic_smem, cudaStream_t stream, unsigned cluster) {
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = cluster;
    attribute.val.clusterDim.y = attribute.val.clusterDim.z = 1;
    config.gridDim = dim3(grid);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = dynamic_smem;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  ClusterLaunch(const ClusterLaunch&) = delete;
  ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

// Why `probe`, a kernel compiled only for sm_90a (wgmma, TMA, setmaxnreg), cannot run on the
// current device, or "" where it can: the device must be of compute capability 9.0 exactly (the
// "a" features run nowhere else), and this build must carry sm_90a machine code for it (a build
// for other architectures leaves the kernel without an image). Whether the image is there is asked
// once per probe (cudaFuncGetAttributes; its error is cleared, it is not sticky).
std::string sm90a_unavailable(const void* probe);

template <typename Kernel>
std::string sm90a_unavailable(Kernel* probe) {
  return sm90a_unavailable(reinterpret_cast<const void*>(probe));
}

}  // namespace cudalab
