// mem_spaces kernels.
#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "common/variants.hpp"
#include "common/math.hpp"
#include "common/warp_reduce.cuh"
#include "mem_spaces.hpp"

namespace mem_spaces {

// (1) __constant__: one copy for the whole application, read through the constant cache;
//     initialised here at compile time, rewritable from the host with cudaMemcpyToSymbol.
__constant__ float c_weight[4] = {0.5f, 1.0f, 1.5f, 2.0f};
// (2) __device__ globals: application scope and lifetime, in global memory; the host reaches
//     them only through the symbol APIs.
__device__ float g_scratch[kMaxBlocks];
__device__ int g_block_count;

namespace {

__global__ void mem_space_demo(const float* __restrict__ in, float* __restrict__ out, int n) {
  // (3) static __shared__: one array per block, alive while the block runs.
  __shared__ float s_data[kMaxBlock];
  // (4) dynamic shared memory: sized by the launch's third <<<>>> argument.
  extern __shared__ float s_dyn[];
  // STUDENT-BEGIN(mem_spaces.demo): every memory space in one kernel
  // TASK: (5) registers: tid, self and sum are automatic variables. Load self = in[tid] (0 past
  // n) into s_data; after a barrier, s_dyn[t] = fmaf(c_weight[t & 3], self, 0.5f * s_data[(t + 1)
  // % blockDim.x]); after another barrier, sum the four s_dyn[(t + 7k) % blockDim.x] weighted by
  // c_weight[k] with fmaf. Threads with tid < n write out[tid] and atomicAdd sum into
  // g_scratch[blockIdx.x]; thread 0 counts the block in g_block_count.
  // HINT: about 16 lines.
  // STUB: (void)in; (void)out; (void)n; (void)s_data; (void)s_dyn;
  const int t = static_cast<int>(threadIdx.x);
  const int tid = static_cast<int>(blockIdx.x) * static_cast<int>(blockDim.x) + t;
  const float self = tid < n ? in[tid] : 0.0f;
  s_data[t] = self;
  __syncthreads();  // every s_data entry written before any neighbour is read
  const float w = c_weight[t & 3];
  const float neighbour = s_data[(t + 1) % blockDim.x];
  s_dyn[t] = fmaf(w, self, 0.5f * neighbour);
  __syncthreads();
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < 4; ++k) sum = fmaf(s_dyn[(t + k * 7) % blockDim.x], c_weight[k], sum);
  if (tid < n) {
    out[tid] = sum;
    // The notes add every thread's sum here, including those past n; then sum(out) and
    // sum(g_scratch) differ for a partial last block. Only real elements count.
    atomicAdd(&g_scratch[blockIdx.x], sum);
  }
  if (t == 0) atomicAdd(&g_block_count, 1);
  // STUDENT-END(mem_spaces.demo)
}

// ---- atomics ----

__global__ void sum_per_thread(const int* __restrict__ in, std::size_t n, unsigned long long* total) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, static_cast<unsigned long long>(static_cast<long long>(in[i])));
}

__global__ void sum_per_warp(const int* __restrict__ in, std::size_t n, unsigned long long* total) {
  // STUDENT-BEGIN(mem_spaces.warp_atomic): one atomic per warp
  // TASK: Load this thread's element (0 past n) as a 64-bit integer, add the 32 values of the
  // warp with __shfl_down_sync (offsets 16, 8, 4, 2, 1), and let lane 0 do the only atomicAdd.
  // HINT: about 7 lines.
  // STUB: (void)in; (void)n; (void)total;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  long long v = i < n ? in[i] : 0;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(total, static_cast<unsigned long long>(v));
  // STUDENT-END(mem_spaces.warp_atomic)
}

__global__ void sum_per_block(const int* __restrict__ in, std::size_t n, unsigned long long* total) {
  __shared__ long long warp_sums[kMaxBlock / 32];
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  long long v = cudalab::warp_sum(i < n ? static_cast<long long>(in[i]) : 0LL);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = (blockDim.x + 31) / 32;
    v = cudalab::warp_sum(lane < warps ? warp_sums[lane] : 0LL);
    if (lane == 0) atomicAdd(total, static_cast<unsigned long long>(v));
  }
}

// Every thread's element into counter i % addresses: with 1 address every atomic of the GPU
// waits for the one before it at the L2 slice that owns the line; with more addresses they spread
// over lines and slices and proceed in parallel.
__global__ void spread_sum(const int* __restrict__ in, std::size_t n, unsigned long long* counters, unsigned addresses) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&counters[i % addresses], static_cast<unsigned long long>(static_cast<long long>(in[i])));
}

// ---- constant memory: one word per warp instruction, or several ----

__constant__ unsigned c_table[kTableWords];
__device__ unsigned g_table[kTableWords];

// A warp's 32 lanes read `distinct` different words of the table each round, from constant memory
// or through __ldg. The textbook rule: the constant cache serves one word per pass, so `distinct`
// words take `distinct` passes (measured on the H200: 1 to 4 words cost the same, from 8 words
// on the time is proportional to the words; the README's table). Through __ldg the words are one
// request to one line.
template <TableRead How>
__global__ void table_reads(unsigned distinct, unsigned* __restrict__ out, std::size_t threads) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= threads) return;
  // kConstantKnown: no lane term at all; the compiler sees an index every lane shares
  unsigned acc = 0;
  if constexpr (How == TableRead::kConstantKnown) {
    // every round unrolled: each index is a number the compiler knows, so each word becomes an
    // operand of the add itself (c[bank][offset] in the SASS), no load instruction at all
#pragma unroll
    // (16 r: a different word every round; with 32 r the rounds r and r + 32 would read the same
    // word and the compiler would read it once)
    for (unsigned r = 0; r < static_cast<unsigned>(kTableRounds); ++r) acc += c_table[16u * r];
    out[i] = acc;
    return;
  }
  const unsigned first = (threadIdx.x & 31u) % distinct;
#pragma unroll 8
  for (unsigned r = 0; r < static_cast<unsigned>(kTableRounds); ++r) {
    const unsigned word = (first + 32u * r) & static_cast<unsigned>(kTableWords - 1);
    if constexpr (How == TableRead::kLdg) {
      acc += __ldg(&g_table[word]);
    } else {
      acc += c_table[word];
    }
  }
  out[i] = acc;
}

// ---- the per-thread array ----

// a[] is indexed with (i + r) % 32, a value known only at run time: registers cannot be
// indexed, so the compiler puts a[] in local memory (per-thread, in DRAM, cached in L1/L2).
__global__ void array_local(const unsigned* __restrict__ in, unsigned* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a[32];
#pragma unroll
  for (int k = 0; k < 32; ++k) a[k] = in[(32 * i + k) % n];
  unsigned s = 0;
  for (int r = 0; r < 32; ++r) s += a[(i + r) % 32] * static_cast<unsigned>(r + 1);
  out[i] = s;
}

// The same sum with the loop running over k, so every a[k] index is a compile-time constant
// after unrolling and a[] lives in 32 registers; the weight moves into the arithmetic:
// r = (k - i) mod 32.
__global__ void array_registers(const unsigned* __restrict__ in, unsigned* __restrict__ out, std::size_t n) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a[32];
#pragma unroll
  for (int k = 0; k < 32; ++k) a[k] = in[(32 * i + k) % n];
  unsigned s = 0;
  const unsigned shift = static_cast<unsigned>(i % 32);
#pragma unroll
  for (int k = 0; k < 32; ++k) s += a[k] * (((static_cast<unsigned>(k) - shift) & 31u) + 1u);
  out[i] = s;
}

}  // namespace

void write_weights(const std::array<float, 4>& w) {
  CUDA_CHECK(cudaMemcpyToSymbol(c_weight, w.data(), sizeof(float) * 4));
}

std::array<float, 4> read_weights() {
  std::array<float, 4> w{};
  CUDA_CHECK(cudaMemcpyFromSymbol(w.data(), c_weight, sizeof(float) * 4));
  return w;
}

void reset_globals(int blocks) {
  if (blocks < 0 || blocks > kMaxBlocks) throw std::invalid_argument("reset_globals: too many blocks");
  const std::vector<float> zeros(static_cast<std::size_t>(blocks), 0.0f);  // on the heap (the notes used the stack)
  if (blocks > 0) CUDA_CHECK(cudaMemcpyToSymbol(g_scratch, zeros.data(), zeros.size() * sizeof(float)));
  const int zero = 0;
  CUDA_CHECK(cudaMemcpyToSymbol(g_block_count, &zero, sizeof zero));
}

std::vector<float> read_scratch(int blocks) {
  std::vector<float> s(static_cast<std::size_t>(blocks));
  if (blocks > 0) CUDA_CHECK(cudaMemcpyFromSymbol(s.data(), g_scratch, s.size() * sizeof(float)));
  return s;
}

int read_block_count() {
  int c = 0;
  CUDA_CHECK(cudaMemcpyFromSymbol(&c, g_block_count, sizeof c));
  return c;
}

void launch_demo(const float* in, float* out, int n, int block, cudaStream_t stream) {
  if (block < 1 || block > kMaxBlock) throw std::invalid_argument("launch_demo: block must be 1..1024");
  const int blocks = cudalab::ceil_div(n, block);
  if (blocks > kMaxBlocks) throw std::invalid_argument("launch_demo: more blocks than g_scratch holds");
  mem_space_demo<<<blocks, block, static_cast<std::size_t>(block) * sizeof(float), stream>>>(in, out, n);
  CUDA_CHECK_LAUNCH("mem_space_demo");
}

cudaFuncAttributes demo_attributes() {
  cudaFuncAttributes a{};
  CUDA_CHECK(cudaFuncGetAttributes(&a, mem_space_demo));
  return a;
}

int demo_api_blocks_per_sm(int block) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, mem_space_demo, block,
                                                           static_cast<std::size_t>(block) * sizeof(float)));
  return blocks;
}

DemoResult reference(const std::vector<float>& in, int block, const std::array<float, 4>& w) {
  const int n = static_cast<int>(in.size());
  const int blocks = cudalab::ceil_div(n, block);
  DemoResult r;
  r.out.assign(in.size(), 0.0f);
  r.scratch.assign(static_cast<std::size_t>(blocks), 0.0f);
  r.scratch_abs.assign(static_cast<std::size_t>(blocks), 0.0);
  std::vector<float> s_data(static_cast<std::size_t>(block)), s_dyn(static_cast<std::size_t>(block));
  for (int b = 0; b < blocks; ++b) {
    for (int t = 0; t < block; ++t) {
      const int tid = b * block + t;
      s_data[t] = tid < n ? in[tid] : 0.0f;
    }
    for (int t = 0; t < block; ++t) s_dyn[t] = std::fma(w[t & 3], s_data[t], 0.5f * s_data[(t + 1) % block]);
    double exact = 0;
    for (int t = 0; t < block; ++t) {
      const int tid = b * block + t;
      float sum = 0.0f;
      for (int k = 0; k < 4; ++k) sum = std::fma(s_dyn[(t + k * 7) % block], w[k], sum);
      if (tid < n) {
        r.out[tid] = sum;
        exact += sum;
        r.scratch_abs[b] += std::fabs(sum);
      }
    }
    r.scratch[b] = static_cast<float>(exact);
  }
  return r;
}

namespace {
// The atomic variants, described once: each row is the whole variant (its name, what it
// changes, its kernel, how many threads share one atomic; 0: the whole block).
struct AtomicRow {
  AtomicVariant id;
  const char* name;
  const char* what;
  void (*kernel)(const int*, std::size_t, unsigned long long*);
  int threads_per_atomic;
};

const std::vector<AtomicRow>& atomic_rows() {
  static const std::vector<AtomicRow> rows{
      {AtomicVariant::kPerThread, "atomic_per_thread", "every thread atomicAdd's its element to one address",
       sum_per_thread, 1},
      {AtomicVariant::kPerWarp, "atomic_per_warp", "a warp-shuffle sum first, one atomic per warp (32x fewer)",
       sum_per_warp, 32},
      {AtomicVariant::kPerBlock, "atomic_per_block", "a block sum in shared memory first, one atomic per block",
       sum_per_block, 0},
  };
  return rows;
}

const AtomicRow& atomic_row(AtomicVariant v) { return cudalab::row_of(atomic_rows(), v, "mem_spaces"); }
}  // namespace

const std::vector<AtomicVariant>& atomic_variants() {
  static const std::vector<AtomicVariant> ids = [] {
    std::vector<AtomicVariant> v;
    for (const auto& r : atomic_rows()) v.push_back(r.id);
    return v;
  }();
  return ids;
}

std::string atomic_name(AtomicVariant v) { return atomic_row(v).name; }
std::string atomic_summary(AtomicVariant v) { return atomic_row(v).what; }

long long atomics_issued(AtomicVariant v, std::size_t n, int block) {
  const int per = atomic_row(v).threads_per_atomic;
  return cudalab::ceil_div(static_cast<long long>(n), static_cast<long long>(per == 0 ? block : per));
}

void launch_sum(AtomicVariant v, const int* in, std::size_t n, unsigned long long* total, int block, cudaStream_t stream) {
  if (block % 32 != 0 || block < 32 || block > kMaxBlock) throw std::invalid_argument("launch_sum: block must be 32..1024, multiple of 32");
  const auto grid = static_cast<unsigned>(cudalab::ceil_div(n, static_cast<std::size_t>(block)));
  if (grid == 0) return;
  const AtomicRow& row = atomic_row(v);
  row.kernel<<<grid, block, 0, stream>>>(in, n, total);
  CUDA_CHECK_LAUNCH(row.name);
}

cudaFuncAttributes atomic_attributes(AtomicVariant v) {
  cudaFuncAttributes a{};
  CUDA_CHECK(cudaFuncGetAttributes(&a, atomic_row(v).kernel));
  return a;
}

void launch_spread_sum(const int* in, std::size_t n, unsigned long long* counters, int addresses, int block,
                       cudaStream_t stream) {
  if (addresses < 1) throw std::invalid_argument("launch_spread_sum: at least one address");
  if (block % 32 != 0 || block < 32 || block > kMaxBlock) throw std::invalid_argument("launch_spread_sum: block must be 32..1024, multiple of 32");
  const auto grid = static_cast<unsigned>(cudalab::ceil_div(n, static_cast<std::size_t>(block)));
  if (grid == 0) return;
  spread_sum<<<grid, block, 0, stream>>>(in, n, counters, static_cast<unsigned>(addresses));
  CUDA_CHECK_LAUNCH("spread_sum");
}

std::vector<long long> spread_sum_reference(const std::vector<int>& in, int addresses) {
  if (addresses < 1) throw std::invalid_argument("spread_sum_reference: at least one address");
  std::vector<long long> sums(static_cast<std::size_t>(addresses), 0);
  for (std::size_t i = 0; i < in.size(); ++i) sums[i % static_cast<std::size_t>(addresses)] += in[i];
  return sums;
}

std::string table_read_name(TableRead how) {
  return how == TableRead::kConstant ? "constant" : how == TableRead::kLdg ? "ldg" : "constant_known";
}

void write_table(const std::vector<unsigned>& words) {
  if (words.size() != static_cast<std::size_t>(kTableWords)) throw std::invalid_argument("write_table: kTableWords words");
  CUDA_CHECK(cudaMemcpyToSymbol(c_table, words.data(), words.size() * sizeof(unsigned)));
  CUDA_CHECK(cudaMemcpyToSymbol(g_table, words.data(), words.size() * sizeof(unsigned)));
}

namespace {
bool valid_distinct(int distinct) { return distinct >= 1 && distinct <= 32 && (distinct & (distinct - 1)) == 0; }
}  // namespace

void launch_table_reads(TableRead how, int distinct, unsigned* out, std::size_t threads, int block, cudaStream_t stream) {
  if (!valid_distinct(distinct)) throw std::invalid_argument("launch_table_reads: distinct must be 1, 2, 4, 8, 16 or 32");
  if (how == TableRead::kConstantKnown && distinct != 1) {
    throw std::invalid_argument("launch_table_reads: the compile-time index reads one word per warp (distinct 1)");
  }
  const auto grid = static_cast<unsigned>(cudalab::ceil_div(threads, static_cast<std::size_t>(block)));
  if (grid == 0) return;
  if (how == TableRead::kConstant) {
    table_reads<TableRead::kConstant><<<grid, block, 0, stream>>>(static_cast<unsigned>(distinct), out, threads);
  } else if (how == TableRead::kLdg) {
    table_reads<TableRead::kLdg><<<grid, block, 0, stream>>>(static_cast<unsigned>(distinct), out, threads);
  } else {
    table_reads<TableRead::kConstantKnown><<<grid, block, 0, stream>>>(1u, out, threads);
  }
  CUDA_CHECK_LAUNCH("table_reads");
}

unsigned table_read_reference(const std::vector<unsigned>& words, int distinct, unsigned lane) {
  if (!valid_distinct(distinct)) throw std::invalid_argument("table_read_reference: distinct must be 1, 2, 4, 8, 16 or 32");
  const unsigned first = (lane & 31u) % static_cast<unsigned>(distinct);
  unsigned acc = 0;
  for (unsigned r = 0; r < static_cast<unsigned>(kTableRounds); ++r) {
    acc += words.at((first + 32u * r) & static_cast<unsigned>(kTableWords - 1));
  }
  return acc;
}

unsigned table_read_known_reference(const std::vector<unsigned>& words) {
  unsigned acc = 0;
  for (unsigned r = 0; r < static_cast<unsigned>(kTableRounds); ++r) acc += words.at(16u * r);
  return acc;
}

std::string array_name(ArrayVariant v) { return v == ArrayVariant::kLocalMemory ? "array_local" : "array_registers"; }

void launch_array(ArrayVariant v, const unsigned* in, unsigned* out, std::size_t n, int block, cudaStream_t stream) {
  const auto grid = static_cast<unsigned>(cudalab::ceil_div(n, static_cast<std::size_t>(block)));
  if (grid == 0) return;
  if (v == ArrayVariant::kLocalMemory) array_local<<<grid, block, 0, stream>>>(in, out, n);
  else array_registers<<<grid, block, 0, stream>>>(in, out, n);
  CUDA_CHECK_LAUNCH(array_name(v).c_str());
}

cudaFuncAttributes array_attributes(ArrayVariant v) {
  cudaFuncAttributes a{};
  if (v == ArrayVariant::kLocalMemory) CUDA_CHECK(cudaFuncGetAttributes(&a, array_local));
  else CUDA_CHECK(cudaFuncGetAttributes(&a, array_registers));
  return a;
}

unsigned array_reference(const std::vector<unsigned>& in, std::size_t i) {
  const std::size_t n = in.size();
  unsigned s = 0;
  for (std::size_t r = 0; r < 32; ++r) s += in[(32 * i + (i + r) % 32) % n] * static_cast<unsigned>(r + 1);
  return s;
}

// ---- texture: bilinear sampling ----

namespace {

// Unnormalised coordinates: texel (i, j)'s centre is at (i + 0.5, j + 0.5), so (x + fx + 0.5,
// y + fy + 0.5) weights texels x, x + 1 by 1 - fx, fx (and rows alike).
__global__ void bilinear_texture(cudaTextureObject_t tex, float* out, int width, int height, float fx, float fy) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x), y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= height) return;
  out[static_cast<std::size_t>(y) * width + x] = tex2D<float>(tex, x + fx + 0.5f, y + fy + 0.5f);
}

__global__ void bilinear_by_hand(const float* __restrict__ image, float* out, int width, int height, float fx, float fy) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x), y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= height) return;
  const int x1 = min(x + 1, width - 1), y1 = min(y + 1, height - 1);  // clamp, as the texture does
  const std::size_t r0 = static_cast<std::size_t>(y) * width, r1 = static_cast<std::size_t>(y1) * width;
  const float a = __ldg(image + r0 + x), b = __ldg(image + r0 + x1), c = __ldg(image + r1 + x), d = __ldg(image + r1 + x1);
  const float top = fmaf(fx, b - a, a), bottom = fmaf(fx, d - c, c);
  out[r0 + x] = fmaf(fy, bottom - top, top);
}

}  // namespace

BilinearTexture::BilinearTexture(const std::vector<float>& image, int width, int height) {
  if (width < 1 || height < 1 || image.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height)) {
    throw std::invalid_argument("BilinearTexture: the image must hold width x height floats");
  }
  const cudaChannelFormatDesc channel = cudaCreateChannelDesc<float>();
  CUDA_CHECK(cudaMallocArray(&array_, &channel, static_cast<std::size_t>(width), static_cast<std::size_t>(height)));
  const std::size_t pitch = static_cast<std::size_t>(width) * sizeof(float);
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array_;
  cudaTextureDesc desc{};
  desc.addressMode[0] = cudaAddressModeClamp;
  desc.addressMode[1] = cudaAddressModeClamp;
  desc.filterMode = cudaFilterModeLinear;  // the hardware's bilinear filter
  desc.readMode = cudaReadModeElementType;
  desc.normalizedCoords = 0;
  cudaError_t err = cudaMemcpy2DToArray(array_, 0, 0, image.data(), pitch, pitch, static_cast<std::size_t>(height),
                                        cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaCreateTextureObject(&tex_, &res, &desc, nullptr);
  if (err != cudaSuccess) {
    cudaFreeArray(array_);
    CUDA_CHECK(err);
  }
}

BilinearTexture::~BilinearTexture() {
  cudaDestroyTextureObject(tex_);
  cudaFreeArray(array_);
}

void launch_bilinear(Bilinear how, const BilinearTexture& tex, const float* image, float* out, int width, int height,
                     float fx, float fy, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>(cudalab::ceil_div(width, 32)), static_cast<unsigned>(cudalab::ceil_div(height, 8)));
  if (how == Bilinear::kTexture) {
    bilinear_texture<<<grid, block, 0, stream>>>(tex.object(), out, width, height, fx, fy);
  } else {
    bilinear_by_hand<<<grid, block, 0, stream>>>(image, out, width, height, fx, fy);
  }
  CUDA_CHECK_LAUNCH(how == Bilinear::kTexture ? "bilinear_texture" : "bilinear_by_hand");
}

}  // namespace mem_spaces
