// hello: kernels and host code of the lab (the printing kernel is in hello.cu).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <cstddef>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/exit_codes.hpp"
#include "common/variants.hpp"
#include "hello.hpp"

namespace hello {

namespace {

constexpr int kBlock = 256;  // the notes' BLOCK_SIZE

// Each thread writes what it knows about itself. Lane 0 of each warp takes a ticket from a
// global counter: the order in which warps got there, which no one fixed in advance.
__global__ void index_kernel(ThreadIndex* out, unsigned* counter) {
  const int threads_per_block = static_cast<int>(blockDim.x * blockDim.y);
  const int block_linear = static_cast<int>(blockIdx.y * gridDim.x + blockIdx.x);
  const int in_block = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  // The lanes of this warp: all 32, or the first k of a block's partial last warp.
  const int in_warp = min(32, threads_per_block - in_block / 32 * 32);
  const unsigned members = in_warp == 32 ? 0xffffffffu : (1u << in_warp) - 1u;
  unsigned ticket = 0;
  if (in_block % 32 == 0) ticket = atomicAdd(counter, 1u);
  ticket = __shfl_sync(members, ticket, 0);  // lane 0 of this warp holds it
  ThreadIndex t;
  t.block_x = static_cast<int>(blockIdx.x);
  t.block_y = static_cast<int>(blockIdx.y);
  t.thread_x = static_cast<int>(threadIdx.x);
  t.thread_y = static_cast<int>(threadIdx.y);
  t.linear = block_linear * threads_per_block + in_block;
  t.warp = in_block / 32;
  t.lane = in_block % 32;
  t.smid = static_cast<int>(smid);
  t.ticket = static_cast<int>(ticket);
  out[t.linear] = t;
}

// The notes' kernel: one element per thread, with the bounds check.
__global__ void vec_add_int(const int* a, const int* b, int* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// The same without the bounds check: the threads of the last block past n read and write out of
// bounds (Break::kOutOfBounds).
__global__ void vec_add_unchecked(const int* a, const int* b, int* c) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  c[i] = a[i] + b[i];
}

// Break::kRace: each block sums its kBlock values of a + b in shared memory by a tree, with the
// barrier between the stores and the tree's first step left out. The upper half of the block is
// made late (a spin, as a busy SM or a cache miss would make it), so the lower half reads its
// partners' slots before they are written: the race shows every time, not once in a while.
__global__ void block_sums_racy(const int* a, const int* b, int* sums, int n) {
  __shared__ int s[kBlock];
  const int t = static_cast<int>(threadIdx.x), i = static_cast<int>(blockIdx.x) * kBlock + t;
  if (t >= kBlock / 2) {
    const long long start = clock64();
    while (clock64() - start < 20000) {
    }
  }
  s[t] = i < n ? a[i] + b[i] : 0;
  // __syncthreads();  <- the mistake: left out, so step one reads s[t + 128] before it is written
  for (int stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) sums[blockIdx.x] = s[0];
}

// Break::kDivergentBarrier: the same block sum with both barriers, but the tree's barrier moved
// inside `if (t < stride)`, so only the threads that add wait at it. Which threads a barrier
// waits for when some never reach it is undefined (on Volta and later the warps that leave the
// loop and exit are not waited for, the threads of a warp that skip it may be); compute-sanitizer
// --tool synccheck reports it.
__global__ void block_sums_divergent_barrier(const int* a, const int* b, int* sums, int n) {
  __shared__ int s[kBlock];
  const int t = static_cast<int>(threadIdx.x), i = static_cast<int>(blockIdx.x) * kBlock + t;
  s[t] = i < n ? a[i] + b[i] : 0;
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride >>= 1) {
    if (t < stride) {
      s[t] += s[t + stride];
      __syncthreads();  // <- the mistake: inside a branch only the adding threads take
    }
  }
  if (t == 0) sums[blockIdx.x] = s[0];
}

// Block sums of a + b against the CPU's, wrapping as the GPU's int adds do.
long long count_wrong_sums(const std::vector<int>& got, const std::vector<int>& a, const std::vector<int>& b, int n) {
  long long wrong = 0;
  for (std::size_t blk = 0; blk < got.size(); ++blk) {
    unsigned want = 0;
    for (int i = static_cast<int>(blk) * kBlock; i < n && i < (static_cast<int>(blk) + 1) * kBlock; ++i) {
      want += static_cast<unsigned>(a[static_cast<std::size_t>(i)]) + static_cast<unsigned>(b[static_cast<std::size_t>(i)]);
    }
    wrong += static_cast<unsigned>(got[blk]) != want;
  }
  return wrong;
}

// Keeps the GPU busy for `cycles` SM clock cycles (Break::kMissingSync).
__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

__global__ void empty_kernel() {}

long long count_wrong(const int* c, const std::vector<int>& a, const std::vector<int>& b) {
  long long wrong = 0;
  for (std::size_t i = 0; i < a.size(); ++i) wrong += c[i] != a[i] + b[i];
  return wrong;
}

}  // namespace

std::vector<ThreadIndex> record_indices(dim3 grid, dim3 block) {
  const std::size_t n = static_cast<std::size_t>(grid.x) * grid.y * block.x * block.y;
  cudalab::DeviceBuffer<ThreadIndex> out(n);
  cudalab::DeviceBuffer<unsigned> counter(1);
  counter.fill_bytes(0);
  index_kernel<<<grid, block>>>(out.data(), counter.data());
  CUDA_CHECK(cudaGetLastError());
  return out.download();
}

cudaError_t vec_add_raw(const int* a, const int* b, int* c, int n) {
  // STUDENT-BEGIN(hello.vec_add_raw): the host side of vecAdd, with the raw runtime API
  // TASK: Do what the notes' main() does, checking every call: allocate d_a, d_b and d_c
  // (n ints each) with cudaMalloc, copy a and b to the device with cudaMemcpy, launch
  // vec_add_int with (n + kBlock - 1) / kBlock blocks of kBlock threads, read the launch error
  // with cudaGetLastError, wait with cudaDeviceSynchronize, copy d_c back into c, and free all
  // three buffers on every path. Return the first error, or cudaSuccess (n <= 0: nothing to do).
  // HINT: about 20 lines. `if (err == cudaSuccess) err = <next call>;` keeps the first error;
  // cudaFree(nullptr) does nothing, so freeing all three at the end is always right.
  // STUB: (void)a; (void)b; (void)c; (void)n;
  // STUB: return cudaSuccess;
  if (n <= 0) return cudaSuccess;
  const std::size_t size = static_cast<std::size_t>(n) * sizeof(int);
  int *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
  cudaError_t err = cudaMalloc(&d_a, size);  // device memory for A, B and C
  if (err == cudaSuccess) err = cudaMalloc(&d_b, size);
  if (err == cudaSuccess) err = cudaMalloc(&d_c, size);
  if (err == cudaSuccess) err = cudaMemcpy(d_a, a, size, cudaMemcpyHostToDevice);  // inputs to the GPU
  if (err == cudaSuccess) err = cudaMemcpy(d_b, b, size, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) {
    const int blocks = (n + kBlock - 1) / kBlock;  // enough blocks to cover all n elements
    vec_add_int<<<blocks, kBlock>>>(d_a, d_b, d_c, n);
    err = cudaGetLastError();  // a launch that cannot start is reported here, and only here
  }
  if (err == cudaSuccess) err = cudaDeviceSynchronize();  // errors while the kernel ran surface here
  if (err == cudaSuccess) err = cudaMemcpy(c, d_c, size, cudaMemcpyDeviceToHost);  // the result back
  cudaFree(d_a);
  cudaFree(d_b);
  cudaFree(d_c);
  return err;
  // STUDENT-END(hello.vec_add_raw)
}

BreakOutcome run_break(Break kind, const std::vector<int>& a, const std::vector<int>& b) {
  if (a.size() != b.size() || a.empty()) throw std::invalid_argument("run_break: a and b must have the same, non-zero size");
  const int n = static_cast<int>(a.size());
  const std::size_t size = a.size() * sizeof(int);
  cudalab::DeviceBuffer<int> d_a(a), d_b(b), d_c(a.size());
  d_c.fill_bytes(0xFF);
  BreakOutcome out;
  out.checked = n;
  std::vector<int> c(a.size(), -1);
  switch (kind) {
    case Break::kTooManyThreads:  // 2048 threads per block: more than any GPU allows (1024)
      vec_add_int<<<(n + 2047) / 2048, 2048>>>(d_a.data(), d_b.data(), d_c.data(), n);
      out.launch_error = cudaGetLastError();
      out.sync_error = cudaDeviceSynchronize();
      CUDA_CHECK(cudaMemcpy(c.data(), d_c.data(), size, cudaMemcpyDeviceToHost));
      break;
    case Break::kOutOfBounds:  // no `if (i < n)`: the last block writes past the end of d_c
      vec_add_unchecked<<<(n + kBlock - 1) / kBlock, kBlock>>>(d_a.data(), d_b.data(), d_c.data());
      out.launch_error = cudaGetLastError();
      out.sync_error = cudaDeviceSynchronize();
      CUDA_CHECK(cudaMemcpy(c.data(), d_c.data(), size, cudaMemcpyDeviceToHost));
      break;
    case Break::kSwappedCopy:  // the result "copied back" host -> device: c keeps what it held
      vec_add_int<<<(n + kBlock - 1) / kBlock, kBlock>>>(d_a.data(), d_b.data(), d_c.data(), n);
      out.launch_error = cudaGetLastError();
      out.sync_error = cudaDeviceSynchronize();
      CUDA_CHECK(cudaMemcpy(d_c.data(), c.data(), size, cudaMemcpyHostToDevice));
      break;
    case Break::kMissingSync: {  // an async copy into pinned memory, read before waiting for it
      int clock_khz = 0;
      CUDA_CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
      int* pinned = nullptr;
      CUDA_CHECK(cudaMallocHost(&pinned, size));
      std::fill(pinned, pinned + n, -1);
      spin<<<1, 1>>>(static_cast<long long>(clock_khz) * 5);  // about 5 ms of work ahead of it
      vec_add_int<<<(n + kBlock - 1) / kBlock, kBlock>>>(d_a.data(), d_b.data(), d_c.data(), n);
      out.launch_error = cudaGetLastError();
      const cudaError_t copy = cudaMemcpyAsync(pinned, d_c.data(), size, cudaMemcpyDeviceToHost);
      out.wrong = count_wrong(pinned, a, b);  // the host reads now: the copy has not run yet
      out.sync_error = cudaDeviceSynchronize();
      out.wrong_after_sync = count_wrong(pinned, a, b);
      cudaFreeHost(pinned);
      CUDA_CHECK(copy);
      return out;
    }
    case Break::kRace: {  // a shared-memory tree without the barrier after its stores
      const int blocks = (n + kBlock - 1) / kBlock;
      cudalab::DeviceBuffer<int> sums(static_cast<std::size_t>(blocks));
      block_sums_racy<<<blocks, kBlock>>>(d_a.data(), d_b.data(), sums.data(), n);
      out.launch_error = cudaGetLastError();
      out.sync_error = cudaDeviceSynchronize();
      out.wrong = count_wrong_sums(sums.download(), a, b, n);
      out.checked = blocks;
      return out;
    }
    case Break::kDivergentBarrier: {  // the tree's barrier inside the branch
      const int blocks = (n + kBlock - 1) / kBlock;
      cudalab::DeviceBuffer<int> sums(static_cast<std::size_t>(blocks));
      sums.fill_bytes(0xFF);
      block_sums_divergent_barrier<<<blocks, kBlock>>>(d_a.data(), d_b.data(), sums.data(), n);
      out.launch_error = cudaGetLastError();
      out.checked = blocks;
      // A barrier some threads never reach may never open: watch the kernel instead of waiting.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(kBarrierWatchSeconds);
      cudaError_t state = cudaErrorNotReady;
      while ((state = cudaStreamQuery(nullptr)) == cudaErrorNotReady && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (state == cudaErrorNotReady) {
        // Hung. Nothing can free the buffers (cudaFree waits for the kernel) and no later call can
        // use the GPU: the process ends here, and its end takes the kernel down with the context.
        std::fflush(stdout);
        std::fprintf(stderr, "hello: the kernel did not finish in %.0f s: the barrier waits for threads that never reach it\n",
                     kBarrierWatchSeconds);
        std::_Exit(cudalab::kExitCudaError);
      }
      out.sync_error = cudaDeviceSynchronize();
      out.wrong = count_wrong_sums(sums.download(), a, b, n);
      return out;
    }
    case Break::kHostPointer: {  // the host's arrays handed to the kernel instead of d_a and d_b
      int device = 0, pageable = 0;
      CUDA_CHECK(cudaGetDevice(&device));
      CUDA_CHECK(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
      out.pageable_access = pageable != 0;
      vec_add_int<<<(n + kBlock - 1) / kBlock, kBlock>>>(a.data(), b.data(), d_c.data(), n);
      out.launch_error = cudaGetLastError();
      out.sync_error = cudaDeviceSynchronize();
      if (out.sync_error != cudaSuccess) {  // the context is lost: no more CUDA calls but the frees
        out.wrong = n;
        return out;
      }
      CUDA_CHECK(cudaMemcpy(c.data(), d_c.data(), size, cudaMemcpyDeviceToHost));
      break;
    }
  }
  out.wrong = count_wrong(c.data(), a, b);
  return out;
}

LaunchCost measure_launch_cost(int count) {
  using clock = std::chrono::steady_clock;
  const auto us = [](clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); };
  LaunchCost cost;
  for (int i = 0; i < 10; ++i) empty_kernel<<<1, 1>>>();  // warm up (module load, first launch)
  CUDA_CHECK(cudaDeviceSynchronize());
  auto t0 = clock::now();
  for (int i = 0; i < count; ++i) empty_kernel<<<1, 1>>>();
  CUDA_CHECK(cudaDeviceSynchronize());
  cost.queued_us = us(clock::now() - t0) / count;
  t0 = clock::now();
  for (int i = 0; i < count; ++i) {
    empty_kernel<<<1, 1>>>();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  cost.synced_us = us(clock::now() - t0) / count;
  clock::duration calls{};
  for (int i = 0; i < count; ++i) {
    const auto start = clock::now();
    empty_kernel<<<1, 1>>>();
    calls += clock::now() - start;
    if (i % 64 == 63) CUDA_CHECK(cudaDeviceSynchronize());  // keep the launch queue short
  }
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  cost.host_call_us = us(calls) / count;
  return cost;
}

// The mistakes, described once, in the suite's variant table (common/variants.hpp).
namespace {
const cudalab::VariantTable<Break>& break_table() {
  static const cudalab::VariantTable<Break> table{
      {Break::kTooManyThreads, "too_many_threads", "2048-thread blocks: the launch fails, and only cudaGetLastError says so"},
      {Break::kOutOfBounds, "oob",
       "no bounds check: reads and writes past the arrays, silently (compute-sanitizer memcheck finds it)"},
      {Break::kSwappedCopy, "swapped_copy", "the result copied host -> device instead of back: only the CPU check notices"},
      {Break::kMissingSync, "missing_sync", "an async copy into pinned memory read before waiting: stale data"},
      {Break::kRace, "race",
       "a __syncthreads() left out of a shared-memory sum: wrong block sums (compute-sanitizer racecheck finds it)"},
      {Break::kDivergentBarrier, "divergent_barrier",
       "a __syncthreads() inside a branch only some threads take: undefined (compute-sanitizer synccheck finds it)"},
      {Break::kHostPointer, "host_pointer",
       "host arrays passed to a kernel: an illegal address, unless the GPU reads pageable host memory (HMM)"}};
  return table;
}
}  // namespace

const std::vector<Break>& all_breaks() { return break_table().ids(); }
std::string break_name(Break b) { return break_table().name(b); }
std::string break_summary(Break b) { return break_table().what(b); }
bool parse_break(const std::string& name, Break* out) { return break_table().find(name, out); }
std::vector<std::string> break_names() { return break_table().names(); }

}  // namespace hello
