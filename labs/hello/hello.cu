// hello: the first kernel. This file builds on its own, as in the notes:
//   nvcc labs/hello/hello.cu -o hello && ./hello
// It needs only the CUDA runtime. The suite compiles the same kernel into ./labs/hello, which
// also shows the index arithmetic, the raw runtime API and how errors surface.
#include <cuda_runtime.h>

#include <cstdio>

// Every thread prints one line. The lines of one warp arrive together, in lane order; warps and
// blocks arrive in whatever order the GPU ran them, which is not fixed from run to run.
__global__ void hello_kernel() {
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  printf("GPU: block %u thread %3u (warp %u, lane %2u): hello\n", blockIdx.x, threadIdx.x, warp, lane);
}

namespace hello {

// Enqueues hello_kernel<<<blocks, threads>>> and returns the launch error. A launch returns at
// once: nothing is printed until the host waits for the GPU (cudaDeviceSynchronize).
cudaError_t launch_hello(int blocks, int threads) {
  hello_kernel<<<blocks, threads>>>();
  return cudaGetLastError();
}

}  // namespace hello

#ifndef CUDALAB_SUITE
// The standalone program: 2 blocks of 64 threads (4 warps, 128 lines). Exit 0, or 1 with the
// CUDA error on stderr.
int main() {
  std::printf("CPU: before the launch\n");
  cudaError_t err = hello::launch_hello(2, 64);
  // Without this wait the program could end before the GPU has printed anything.
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    std::fprintf(stderr, "hello: %s\n", cudaGetErrorString(err));
    return 1;
  }
  std::printf("CPU: after cudaDeviceSynchronize: the GPU's 128 lines are above\n");
  return 0;
}
#endif
