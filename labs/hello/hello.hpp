#pragma once
// hello: the first kernel, the index arithmetic of a launch, the notes' vecAdd written with the
// raw runtime API, and how each kind of mistake surfaces.
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace hello {

// hello.cu: enqueues the printing kernel; returns the launch error (nothing printed yet).
cudaError_t launch_hello(int blocks, int threads);

// What one thread of a launch knows about itself, and where it ran.
struct ThreadIndex {
  int block_x = 0, block_y = 0, thread_x = 0, thread_y = 0;
  int linear = 0;  // (blockIdx.y * gridDim.x + blockIdx.x) * threads per block + thread in block
  int warp = 0;    // warp in its block: (threadIdx.y * blockDim.x + threadIdx.x) / 32
  int lane = 0;    // (threadIdx.y * blockDim.x + threadIdx.x) % 32
  int smid = -1;   // the SM its block ran on (%smid); -1 in the CPU reference
  int ticket = -1; // the order its warp reached the kernel's atomic counter (-1 in the reference)
};

// One 2D launch of the index kernel: a record per thread, ordered by `linear`.
std::vector<ThreadIndex> record_indices(dim3 grid, dim3 block);

// The notes' vecAdd (int, one element per thread, (n + 255) / 256 blocks of 256), host side with
// cudaMalloc / cudaMemcpy / cudaFree, every call checked. c receives the result. Returns the
// first CUDA error (cudaSuccess when all went well); the caller checks c against the CPU.
cudaError_t vec_add_raw(const int* a, const int* b, int* c, int n);

// Deliberate mistakes, each on the same vecAdd, and what the host sees.
enum class Break { kTooManyThreads, kOutOfBounds, kSwappedCopy, kMissingSync, kRace, kDivergentBarrier, kHostPointer };
const std::vector<Break>& all_breaks();
std::string break_name(Break b);
std::string break_summary(Break b);  // one line: the mistake and how it surfaces
bool parse_break(const std::string& name, Break* out);
std::vector<std::string> break_names();

struct BreakOutcome {
  cudaError_t launch_error = cudaSuccess;  // cudaGetLastError right after the launch
  cudaError_t sync_error = cudaSuccess;    // cudaDeviceSynchronize afterwards
  long long wrong = 0;                     // elements of c that differ from a + b when read
  long long wrong_after_sync = -1;         // kMissingSync: the same count after waiting
  long long checked = 0;                   // what `wrong` counts out of: elements of c, or the block sums
  bool pageable_access = false;            // kHostPointer: the device reads pageable host memory (HMM)
};
BreakOutcome run_break(Break b, const std::vector<int>& a, const std::vector<int>& b_in);
// How long kDivergentBarrier's kernel may run before it counts as hung (it takes microseconds):
// past it run_break prints one line on stderr and ends the process with kExitCudaError.
constexpr double kBarrierWatchSeconds = 5.0;

// Launch cost of an empty kernel, microseconds per launch.
struct LaunchCost {
  double queued_us = 0;     // `count` launches back to back, then one wait, over `count`
  double synced_us = 0;     // launch + cudaDeviceSynchronize, each time
  double host_call_us = 0;  // what a host timer around the launch call alone says (no wait)
};
LaunchCost measure_launch_cost(int count);

}  // namespace hello
