// reduction kernels: sum of n values of type T (int or float).
//
// Napkin math: a sum reads 4 bytes per element and writes almost nothing, so it is bound by
// DRAM reads. 2^28 floats = 1.07 GB: >= 0.22 ms at the H200's 4814 GB/s. CUB, timed in the
// same run, is the baseline; the ladder below shows where each classic step's time goes, and
// the last steps match CUB with one launch instead of two (the README has the measured table).
//
// Every two-pass variant reduces each block to one partial sum and then reduces the partials
// with the same kernel until one value is left. Block sizes are powers of two, 64..1024.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

#include "common/device_cache.hpp"
#include "common/cuda_check.hpp"
#include "common/dispatch.hpp"
#include "common/device_facts.hpp"
#include "common/variants.hpp"
#include "common/math.hpp"
#include "common/warp_reduce.cuh"
#include "common/vector_types.cuh"
#include "reduction.hpp"

namespace cg = cooperative_groups;

namespace reduction {

namespace {

using cudalab::warp_sum;

// What one launch needs: each kernel below has a small launcher that takes a Pass, and the
// table at the end of the file names the launcher in the kernel's row.
template <typename T>
struct Pass {
  const T* src;         // the values to add: the input, or the partial sums of the pass before
  T* dst;               // one partial sum per block, or the result in the last pass
  std::size_t count;    // elements of src
  dim3 grid;
  int block;            // threads per block: 64, 128, 256, 512 or 1024
  std::size_t smem;     // block * sizeof(T): the dynamic shared memory of the tree kernels
  cudaStream_t stream;
  T* scratch;           // gmem_notes' working copy of src
  T* partial;           // single_pass's partial sums
  unsigned* counter;    // single_pass's ticket counter
  T* result;            // the one-launch variants' result
};

// The block sizes the kernels whose block size is a template parameter are built for; a Pass's
// block picks one (with_block).
using Blocks = cudalab::int_list<64, 128, 256, 512, 1024>;
template <typename F>
void with_block(int block, F&& f) {
  cudalab::dispatch(Blocks{}, block, "reduction: block", f);
}

// The block's total in thread 0 (other threads hold partial values): warp shuffles, one value
// per warp through shared memory, then the first warp again.
template <typename T, int BLOCK>
__device__ __forceinline__ T block_sum(T v) {
  __shared__ T warp_totals[BLOCK / 32];
  v = warp_sum(v);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < BLOCK / 32 ? warp_totals[lane] : T(0);
    v = warp_sum(v);
  }
  return v;
}

template <typename T>
__device__ __forceinline__ T* shared_array() {
  extern __shared__ unsigned char shared_raw[];
  return reinterpret_cast<T*>(shared_raw);
}

// The last six tree steps inside warp 0, on shared memory. The notes use a volatile pointer
// and no barrier, which is a data race since Volta (threads of a warp are not in lock step):
// here every step reads, synchronises the warp, then writes.
template <typename T>
__device__ __forceinline__ void last_warp_tree(T* s, unsigned tid) {
  if (tid < 32) {
#pragma unroll
    for (unsigned step = 32; step > 0; step >>= 1) {
      const T v = tid < step ? s[tid] + s[tid + step] : T(0);
      __syncwarp();
      if (tid < step) s[tid] = v;
      __syncwarp();
    }
  }
}

// ---- the notes' two kernels, corrected ----

// Notes' reduceGmem: the tree runs in global memory. Fixed: it works on a scratch copy instead
// of overwriting the input, and no thread returns early (a __syncthreads() that some threads of
// the block never reach is undefined behaviour); out-of-range threads just skip the adds.
template <typename T>
__global__ void gmem_notes(const T* __restrict__ in, T* __restrict__ work, T* __restrict__ out, std::size_t n) {
  const unsigned tid = threadIdx.x;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * blockDim.x;
  const std::size_t i = base + tid;
  if (i < n) work[i] = in[i];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s && i + s < n) work[i] += work[i + s];
    __syncthreads();
  }
  if (tid < 32) {
    for (unsigned s = 32; s > 0; s >>= 1) {
      const bool add = tid < s && i + s < n;
      const T v = add ? work[i] + work[i + s] : T(0);
      __syncwarp();
      if (add) work[i] = v;
      __syncwarp();
    }
  }
  if (tid == 0) out[blockIdx.x] = work[base];
}

template <typename T>
void launch_gmem_notes(const Pass<T>& p) {
  gmem_notes<T><<<p.grid, p.block, 0, p.stream>>>(p.src, p.scratch, p.dst, p.count);
}

// Notes' reduceSmem: the same tree in shared memory.
template <typename T>
__global__ void smem_notes(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  // STUDENT-BEGIN(reduction.smem): the shared-memory tree
  // TASK: Load element blockIdx.x * blockDim.x + threadIdx.x (0 past n) into s[threadIdx.x],
  // synchronise, halve the active threads each step (s[t] += s[t + step] for t < step) while
  // step > 32, then let last_warp_tree finish and thread 0 write s[0] to out[blockIdx.x].
  // HINT: about 10 lines.
  // STUB: (void)in; (void)out; (void)n;
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 32; step >>= 1) {
    if (tid < step) s[tid] += s[tid + step];
    __syncthreads();
  }
  last_warp_tree(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
  // STUDENT-END(reduction.smem)
}

template <typename T>
void launch_smem_notes(const Pass<T>& p) {
  smem_notes<T><<<p.grid, p.block, p.smem, p.stream>>>(p.src, p.dst, p.count);
}

// ---- the classic ladder ----

// 1. Interleaved addressing: thread t adds at stride s when t is a multiple of 2s. Correct,
// but the active threads are scattered over every warp: warps diverge and all stay busy.
template <typename T>
__global__ void interleaved_divergent(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  // STUDENT-BEGIN(reduction.interleaved): interleaved addressing
  // TASK: Load element blockIdx.x * blockDim.x + threadIdx.x (0 past n) into s[threadIdx.x]. Then, for
  // step = 1, 2, 4, ... below blockDim.x, let every thread whose index is a multiple of 2 * step
  // add s[tid + step] into s[tid], with a barrier after each step. Thread 0 writes s[0].
  // HINT: about 10 lines.
  // STUB: (void)in; (void)out; (void)n;
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned step = 1; step < blockDim.x; step *= 2) {
    if (tid % (2 * step) == 0) s[tid] += s[tid + step];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
  // STUDENT-END(reduction.interleaved)
}

template <typename T>
void launch_interleaved_divergent(const Pass<T>& p) {
  interleaved_divergent<T><<<p.grid, p.block, p.smem, p.stream>>>(p.src, p.dst, p.count);
}

// 2. Strided index: the first threads do the work (no divergence), but thread t touches
// s[2 * step * t]: at step 16 every active thread hits bank 0 (8 threads of a 256-thread block:
// an 8-way conflict; 32-way with 1024 threads) -- bank conflicts.
template <typename T>
__global__ void interleaved_strided(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  // STUDENT-BEGIN(reduction.strided): strided index, no divergence
  // TASK: As interleaved addressing, but the first threads do the work: thread tid handles
  // index = 2 * step * tid (when it is below blockDim.x) and adds s[index + step] into s[index].
  // HINT: about 11 lines.
  // STUB: (void)in; (void)out; (void)n;
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned step = 1; step < blockDim.x; step *= 2) {
    const unsigned index = 2 * step * tid;
    if (index < blockDim.x) s[index] += s[index + step];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
  // STUDENT-END(reduction.strided)
}

template <typename T>
void launch_interleaved_strided(const Pass<T>& p) {
  interleaved_strided<T><<<p.grid, p.block, p.smem, p.stream>>>(p.src, p.dst, p.count);
}

// 3. Sequential addressing: thread t adds s[t + step], consecutive threads touch consecutive
// words -- conflict-free. But half the threads are idle from the first step on.
template <typename T>
__global__ void sequential(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  // STUDENT-BEGIN(reduction.sequential): sequential addressing
  // TASK: Load as before; then halve the number of working threads each step, step = blockDim.x / 2,
  // blockDim.x / 4, ... 1: thread tid < step adds s[tid + step] into s[tid] (consecutive threads,
  // consecutive words: no bank conflicts). Barrier after each step; thread 0 writes s[0].
  // HINT: about 10 lines.
  // STUB: (void)in; (void)out; (void)n;
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  s[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 0; step >>= 1) {
    if (tid < step) s[tid] += s[tid + step];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
  // STUDENT-END(reduction.sequential)
}

template <typename T>
void launch_sequential(const Pass<T>& p) {
  sequential<T><<<p.grid, p.block, p.smem, p.stream>>>(p.src, p.dst, p.count);
}

// Loads two elements a block width apart and adds them: the first tree step, done while loading.
template <typename T>
__device__ __forceinline__ T load_pair(const T* __restrict__ in, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * blockDim.x) + threadIdx.x;
  T v = i < n ? in[i] : T(0);
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  return v;
}

// 4. First add during load: each block covers 2 x blockDim elements, so half as many blocks
// wait on loads with idle threads.
template <typename T>
__global__ void first_add_during_load(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  // STUDENT-BEGIN(reduction.first_add): the first add while loading
  // TASK: Each block now covers 2 x blockDim.x elements: load s[tid] with load_pair (the two elements
  // a block width apart, already added), then run the sequential tree and write s[0].
  // HINT: about 9 lines.
  // STUB: (void)in; (void)out; (void)n;
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_pair(in, n);
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 0; step >>= 1) {
    if (tid < step) s[tid] += s[tid + step];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
  // STUDENT-END(reduction.first_add)
}

template <typename T>
void launch_first_add_during_load(const Pass<T>& p) {
  first_add_during_load<T><<<p.grid, p.block, p.smem, p.stream>>>(p.src, p.dst, p.count);
}

// 5. Unroll the last warp: once 32 or fewer threads work, block-wide barriers are wasted;
// warp 0 finishes with __syncwarp (correct since Volta, unlike the volatile idiom).
template <typename T>
__global__ void unroll_last_warp(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  // STUDENT-BEGIN(reduction.unroll_last_warp): the last warp without block barriers
  // TASK: As first_add_during_load, but stop the block-wide loop once step reaches 32 and let
  // last_warp_tree finish the last six steps inside warp 0 (it synchronises with __syncwarp).
  // HINT: about 10 lines.
  // STUB: (void)in; (void)out; (void)n;
  T* s = shared_array<T>();
  const unsigned tid = threadIdx.x;
  s[tid] = load_pair(in, n);
  __syncthreads();
  for (unsigned step = blockDim.x / 2; step > 32; step >>= 1) {
    if (tid < step) s[tid] += s[tid + step];
    __syncthreads();
  }
  last_warp_tree(s, tid);
  if (tid == 0) out[blockIdx.x] = s[0];
  // STUDENT-END(reduction.unroll_last_warp)
}

template <typename T>
void launch_unroll_last_warp(const Pass<T>& p) {
  unroll_last_warp<T><<<p.grid, p.block, p.smem, p.stream>>>(p.src, p.dst, p.count);
}

// The tree for a block size known at compile time: every loop disappears.
template <typename T, int BLOCK>
__device__ __forceinline__ void unrolled_tree(T* s, unsigned tid) {
  if constexpr (BLOCK >= 1024) { if (tid < 512) s[tid] += s[tid + 512]; __syncthreads(); }
  if constexpr (BLOCK >= 512) { if (tid < 256) s[tid] += s[tid + 256]; __syncthreads(); }
  if constexpr (BLOCK >= 256) { if (tid < 128) s[tid] += s[tid + 128]; __syncthreads(); }
  if constexpr (BLOCK >= 128) { if (tid < 64) s[tid] += s[tid + 64]; __syncthreads(); }
  last_warp_tree(s, tid);
}

// 6. Complete unroll: the block size is a template parameter.
template <typename T, int BLOCK>
__global__ void complete_unroll(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  T* s = shared_array<T>();
  s[threadIdx.x] = load_pair(in, n);
  __syncthreads();
  unrolled_tree<T, BLOCK>(s, threadIdx.x);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}

template <typename T>
void launch_complete_unroll(const Pass<T>& p) {
  with_block(p.block, [&](auto b) {
    constexpr int B = decltype(b)::value;
    complete_unroll<T, B><<<p.grid, B, p.smem, p.stream>>>(p.src, p.dst, p.count);
  });
}

// 7. Multiple elements per thread: a fixed grid (the GPU's resident blocks) and a grid-stride
// loop, so each thread adds many elements in registers before the tree runs once.
template <typename T, int BLOCK>
__global__ void multi_element(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  // STUDENT-BEGIN(reduction.multi_element): many elements per thread, then one tree
  // TASK: The grid is fixed (the GPU's resident blocks). Each thread adds, in a register, the elements
  // i and i + BLOCK for i = blockIdx.x * BLOCK * 2 + threadIdx.x, i + stride, ... with
  // stride = gridDim.x * BLOCK * 2 (check both against n); then store the sum in s[threadIdx.x],
  // synchronise, run unrolled_tree<T, BLOCK> and write s[0].
  // HINT: about 12 lines.
  // STUB: (void)in; (void)out; (void)n;
  T* s = shared_array<T>();
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * BLOCK * 2;
  T sum = T(0);
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * BLOCK * 2 + threadIdx.x; i < n; i += stride) {
    sum += in[i];
    if (i + BLOCK < n) sum += in[i + BLOCK];
  }
  s[threadIdx.x] = sum;
  __syncthreads();
  unrolled_tree<T, BLOCK>(s, threadIdx.x);
  if (threadIdx.x == 0) out[blockIdx.x] = s[0];
  // STUDENT-END(reduction.multi_element)
}

template <typename T>
void launch_multi_element(const Pass<T>& p) {
  with_block(p.block, [&](auto b) {
    constexpr int B = decltype(b)::value;
    multi_element<T, B><<<p.grid, B, p.smem, p.stream>>>(p.src, p.dst, p.count);
  });
}

// ---- modern steps ----

template <typename T, int BLOCK>
__device__ __forceinline__ T grid_stride_sum(const T* __restrict__ in, std::size_t n) {
  T sum = T(0);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * BLOCK;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * BLOCK + threadIdx.x; i < n; i += stride) sum += in[i];
  return sum;
}

// 8. Warp shuffles: registers exchange values directly; shared memory only carries one value
// per warp.
template <typename T, int BLOCK>
__global__ void warp_shuffle(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  // STUDENT-BEGIN(reduction.warp_shuffle): grid-stride sum, then shuffles
  // TASK: Each thread adds its grid-stride share of in (grid_stride_sum); block_sum combines
  // the block's values with __shfl_down_sync; thread 0 writes the block's sum to out[blockIdx.x].
  // HINT: about 3 lines; look at how warp_sum and block_sum work.
  // STUB: (void)in; (void)out; (void)n;
  const T total = block_sum<T, BLOCK>(grid_stride_sum<T, BLOCK>(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = total;
  // STUDENT-END(reduction.warp_shuffle)
}

template <typename T>
void launch_warp_shuffle(const Pass<T>& p) {
  with_block(p.block, [&](auto b) {
    constexpr int B = decltype(b)::value;
    warp_shuffle<T, B><<<p.grid, B, 0, p.stream>>>(p.src, p.dst, p.count);
  });
}

// 9. Cooperative groups: the same shuffle reduction through cg::reduce on 32-thread tiles.
template <typename T, int BLOCK>
__global__ void cooperative_groups_reduce(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  __shared__ T tile_totals[BLOCK / 32];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  T v = cg::reduce(tile, grid_stride_sum<T, BLOCK>(in, n), cg::plus<T>());
  if (tile.thread_rank() == 0) tile_totals[tile.meta_group_rank()] = v;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    v = tile.thread_rank() < BLOCK / 32 ? tile_totals[tile.thread_rank()] : T(0);
    v = cg::reduce(tile, v, cg::plus<T>());
    if (tile.thread_rank() == 0) out[blockIdx.x] = v;
  }
}

template <typename T>
void launch_cooperative_groups_reduce(const Pass<T>& p) {
  with_block(p.block, [&](auto b) {
    constexpr int B = decltype(b)::value;
    cooperative_groups_reduce<T, B><<<p.grid, B, 0, p.stream>>>(p.src, p.dst, p.count);
  });
}

// A thread's share with 16-byte loads, four of them issued before any is added (64 bytes in
// flight per thread); scalar code for the last n % 4 elements.
template <typename T, int BLOCK>
__device__ __forceinline__ T vector_sum(const T* __restrict__ in, std::size_t n) {
  // STUDENT-BEGIN(reduction.vector_sum): 16-byte loads, four in flight
  // TASK: View in as an array of n / 4 four-element vectors (V). In a grid-stride loop
  // over them with stride gridDim.x * BLOCK, load four vectors stride apart before adding
  // any (x + y + z + w each) into sum; finish the vectors one at a time, then let the
  // first n % 4 threads of the grid add the scalar tail element n4 * 4 + tid.
  // HINT: about 20 lines; declare T sum = T(0) first.
  // STUB: (void)in; (void)n; T sum = T(0);
  using V = cudalab::vec4_t<T>;
  const V* in4 = reinterpret_cast<const V*>(in);
  const std::size_t n4 = n / 4;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * BLOCK;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * BLOCK + threadIdx.x;
  T sum = T(0);
  std::size_t i = tid;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    V v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = in4[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k) sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  for (; i < n4; i += stride) {
    const V v = in4[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  const std::size_t tail = n4 * 4 + tid;
  if (tail < n) sum += in[tail];
  // STUDENT-END(reduction.vector_sum)
  return sum;
}

// 10. Vectorized: a quarter of the load instructions, more bytes in flight per thread.
template <typename T, int BLOCK>
__global__ void vectorized(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  const T total = block_sum<T, BLOCK>(vector_sum<T, BLOCK>(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

template <typename T>
void launch_vectorized(const Pass<T>& p) {
  with_block(p.block, [&](auto b) {
    constexpr int B = decltype(b)::value;
    vectorized<T, B><<<p.grid, B, 0, p.stream>>>(p.src, p.dst, p.count);
  });
}

// 11. Single pass: blocks publish their partial sums; the last block to finish (found with an
// atomic ticket) adds them in a fixed order and writes the result. One launch instead of two,
// and still bitwise reproducible. The ticket counter is reset for the next launch.
template <typename T, int BLOCK>
__global__ void single_pass(const T* __restrict__ in, T* __restrict__ partials, unsigned* counter, T* out,
                            std::size_t n) {
  // STUDENT-BEGIN(reduction.single_pass): the last block finishes the sum
  // TASK: Thread 0 stores the block's sum in partials[blockIdx.x], makes it visible to every
  // block (__threadfence), then takes a ticket with atomicAdd(counter, 1). The block holding
  // the last ticket (gridDim.x - 1) sums partials[0..gridDim.x) -- read them with __ldcg so
  // L1 cannot serve stale values -- writes *out and resets *counter to 0.
  // HINT: about 18 lines; a __shared__ bool tells the whole block whether it is last.
  // STUB: (void)in; (void)partials; (void)counter; (void)out; (void)n;
  __shared__ bool is_last;
  const T total = block_sum<T, BLOCK>(vector_sum<T, BLOCK>(in, n));
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = total;
    __threadfence();  // the partial is visible to all blocks before the ticket is taken
    is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (is_last) {
    __threadfence();
    T v = T(0);
    for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) v += __ldcg(&partials[b]);
    v = block_sum<T, BLOCK>(v);
    if (threadIdx.x == 0) {
      *out = v;
      *counter = 0;
    }
  }
  // STUDENT-END(reduction.single_pass)
}

template <typename T>
void launch_single_pass(const Pass<T>& p) {
  with_block(p.block, [&](auto b) {
    constexpr int B = decltype(b)::value;
    single_pass<T, B><<<p.grid, B, 0, p.stream>>>(p.src, p.partial, p.counter, p.result, p.count);
  });
}

// 12. Single pass with atomics: every block adds its partial to *out (zeroed before the
// launch). As fast, simpler, but floating-point addition is not associative and the blocks
// finish in a different order every run: float results change in the last bits.
template <typename T, int BLOCK>
__global__ void single_pass_atomic(const T* __restrict__ in, T* out, std::size_t n) {
  const T total = block_sum<T, BLOCK>(vector_sum<T, BLOCK>(in, n));
  if (threadIdx.x == 0) atomicAdd(out, total);
}

template <typename T>
void launch_single_pass_atomic(const Pass<T>& p) {
  CUDA_CHECK(cudaMemsetAsync(p.result, 0, sizeof(T), p.stream));  // the blocks add into it
  with_block(p.block, [&](auto b) {
    constexpr int B = decltype(b)::value;
    single_pass_atomic<T, B><<<p.grid, B, 0, p.stream>>>(p.src, p.result, p.count);
  });
}

// ---------------------------------------------------------------------------------------

// How many blocks a pass over `count` elements launches: count / (elements_per_thread x block),
// or at most the blocks the GPU holds at once (the grid-stride kernels).
struct GridRule {
  int elements_per_thread;
  bool capped_at_resident;
};

template <typename T>
struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  GridRule grid;
  void (*launch)(const Pass<T>&);
  Traits traits;
};

// The ladder, described once. A row is the whole variant: its name, what it changes, the
// blocks it launches (elements per thread; capped at one resident wave or not), its launcher,
// and its traits. Adding a variant is its kernel and launcher above, its enum value in
// reduction.hpp and its row here.
constexpr GridRule kPerThread1{1, false}, kPerThread2{2, false}, kResident2{2, true}, kResident1{1, true},
    kResident16{16, true};
constexpr Traits kPlain{}, kNotes{true, false, true, false}, kVectorLoads{true, true, false, false},
    kOneLaunch{true, true, false, true}, kOneLaunchAtomic{false, true, false, true};

template <typename T>
const std::vector<Row<T>>& ladder() {
  static const std::vector<Row<T>> rows{
      {Variant::kGmemNotes, "gmem_notes", "notes: tree in global memory (scratch copy, no early return)", kPerThread1,
       launch_gmem_notes<T>, kNotes},
      {Variant::kSmemNotes, "smem_notes", "notes: tree in shared memory, last warp with __syncwarp", kPerThread1,
       launch_smem_notes<T>, kNotes},
      {Variant::kInterleavedDivergent, "interleaved_divergent", "tid % (2s) == 0: divergent warps", kPerThread1,
       launch_interleaved_divergent<T>, kPlain},
      {Variant::kInterleavedStrided, "interleaved_strided", "index 2*s*tid: no divergence, bank conflicts", kPerThread1,
       launch_interleaved_strided<T>, kPlain},
      {Variant::kSequential, "sequential", "tid < s: conflict-free, half the threads idle", kPerThread1,
       launch_sequential<T>, kPlain},
      {Variant::kFirstAddDuringLoad, "first_add_during_load", "two elements per thread while loading", kPerThread2,
       launch_first_add_during_load<T>, kPlain},
      {Variant::kUnrollLastWarp, "unroll_last_warp", "last 6 steps in one warp (__syncwarp)", kPerThread2,
       launch_unroll_last_warp<T>, kPlain},
      {Variant::kCompleteUnroll, "complete_unroll", "block size as template parameter", kPerThread2,
       launch_complete_unroll<T>, kPlain},
      {Variant::kMultiElement, "multi_element", "fixed grid, grid-stride sum per thread", kResident2,
       launch_multi_element<T>, kPlain},
      {Variant::kWarpShuffle, "warp_shuffle", "__shfl_down_sync instead of shared memory", kResident1,
       launch_warp_shuffle<T>, kPlain},
      {Variant::kCooperativeGroups, "cooperative_groups", "cg::reduce on 32-thread tiles", kResident1,
       launch_cooperative_groups_reduce<T>, kPlain},
      {Variant::kVectorized, "vectorized", "16-byte loads, 4 in flight per thread", kResident16,
       launch_vectorized<T>, kVectorLoads},
      {Variant::kSinglePass, "single_pass", "last block adds the partials: 1 launch", kResident16,
       launch_single_pass<T>, kOneLaunch},
      {Variant::kSinglePassAtomic, "single_pass_atomic", "atomicAdd of block partials: 1 launch", kResident16,
       launch_single_pass_atomic<T>, kOneLaunchAtomic},
  };
  return rows;
}

template <typename T>
const Row<T>& row_of(Variant v) {
  return cudalab::row_of(ladder<T>(), v, "reduction");
}


std::size_t grid_for(const GridRule& rule, std::size_t count, int block) {
  const auto b = static_cast<std::size_t>(block);
  std::size_t grid = cudalab::ceil_div(count, static_cast<std::size_t>(rule.elements_per_thread) * b);
  if (rule.capped_at_resident) {
    const cudalab::LaunchLimits& d = cudalab::launch_limits();
    grid = std::min(grid, static_cast<std::size_t>(d.sms) * (static_cast<std::size_t>(d.max_threads_per_sm) / b));
  }
  return std::max<std::size_t>(grid, 1);
}

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder<int>())

const Traits& traits(Variant v) { return row_of<int>(v).traits; }

template <typename T>
Workspace<T>::Workspace(std::size_t capacity)
    : capacity_(capacity),
      scratch_(std::max<std::size_t>(capacity, 1)),
      partial_{cudalab::DeviceBuffer<T>(capacity / 64 + 2), cudalab::DeviceBuffer<T>(capacity / 64 + 2)},
      counter_(1),
      result_(1) {
  counter_.fill_bytes(0);
}

template <typename T>
void Workspace<T>::reset(unsigned char poison) {
  scratch_.fill_bytes(poison);
  for (auto& p : partial_) p.fill_bytes(poison);
  result_.fill_bytes(poison);
  counter_.fill_bytes(0);
}

std::string fallback(Variant v, const void* in) {
  // The vector loads need 16-byte alignment (cudaMalloc gives 256); otherwise warp_shuffle
  // does the same work with scalar loads.
  if (traits(v).vector_loads && !cudalab::is_aligned(in, 16)) return "ran warp_shuffle (input not 16-byte aligned)";
  return "";
}

template <typename T>
int reduce(Variant v, const T* in, std::size_t n, int block, Workspace<T>& ws, cudaStream_t stream) {
  if (n > ws.capacity_) throw std::invalid_argument("reduce: n exceeds the workspace capacity");
  cudalab::require(Blocks{}, block, "reduction: block");
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(ws.result_.data(), 0, sizeof(T), stream));
    return 0;
  }
  const Row<T>& row = row_of<T>(fallback(v, in).empty() ? v : Variant::kWarpShuffle);
  Pass<T> p{in, nullptr, n, dim3(1), block, static_cast<std::size_t>(block) * sizeof(T), stream, ws.scratch_.data(),
            ws.partial_[0].data(), ws.counter_.data(), ws.result_.data()};
  // Every pass reduces each block to one partial sum, until one value is left (the one-launch
  // variants finish in their first pass).
  int passes = 0, buffer = 0;
  for (;;) {
    const std::size_t grid = grid_for(row.grid, p.count, block);
    p.grid = dim3(static_cast<unsigned>(grid));
    p.dst = grid == 1 || row.traits.one_launch ? ws.result_.data() : ws.partial_[buffer].data();
    row.launch(p);
    CUDA_CHECK_LAUNCH(row.name);
    ++passes;
    if (grid == 1 || row.traits.one_launch) break;
    p.src = p.dst;
    p.count = grid;
    buffer ^= 1;
  }
  return passes;
}

template class Workspace<int>;
template class Workspace<float>;
template int reduce<int>(Variant, const int*, std::size_t, int, Workspace<int>&, cudaStream_t);
template int reduce<float>(Variant, const float*, std::size_t, int, Workspace<float>&, cudaStream_t);

}  // namespace reduction
