// occupancy kernels: small kernels with deliberately different resource footprints, the
// memory-bound kernel for "bandwidth vs occupancy", and the fixed-duration kernel for the
// tail effect.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/math.hpp"
#include "common/variants.hpp"
#include "occupancy_lab.hpp"

namespace occupancy_lab {

namespace {

// The notes' light kernel.
__global__ void light_kernel(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 2.f + 1.f;
}

// The notes' shared-memory kernel: each block reverses its slice through dynamic shared memory.
// (The notes' version reads buf[blockDim.x - 1 - t] of the last, partial block, which holds the
// zeros it loaded for missing elements; so does this one, and the CPU reference models it.)
__global__ void smem_kernel(float* x, int n) {
  extern __shared__ float buf[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = (i < n) ? x[i] : 0.f;
  __syncthreads();
  if (i < n) x[i] = buf[blockDim.x - 1 - threadIdx.x];
}

// Keeps N values live per thread: loads N inputs, mixes them for a few rounds (each value
// depends on two others, so none can retire early), then writes their sum.
template <int N>
__device__ __forceinline__ void register_pressure_body(float* x, const float* in, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v[N];
#pragma unroll
  for (int j = 0; j < N; ++j) v[j] = in[(i + j * 97) % n];
#pragma unroll
  for (int round = 0; round < 3; ++round) {
#pragma unroll
    for (int j = 0; j < N; ++j) v[j] = fmaf(v[j], 0.5f, v[(j + 1) % N] * 0.25f + v[(j + 7) % N] * 0.125f);
  }
  float s = 0.f;
#pragma unroll
  for (int j = 0; j < N; ++j) s += v[j];
  x[i] = s;
}

template <int N>
__global__ void register_pressure(float* x, const float* in, int n) {
  register_pressure_body<N>(x, in, n);
}

// Same code; __launch_bounds__(256, 4) promises blocks of <= 256 threads and asks for at
// least 4 resident blocks per SM, so the compiler must fit in 65536 / (4 * 256) = 64 registers.
__global__ void __launch_bounds__(256, 4) register_pressure_bounded(float* x, const float* in, int n) {
  register_pressure_body<96>(x, in, n);
}

__global__ void stream_scale(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = 2.f * in[i];
  }
}

// Four 16-byte loads in flight per thread before the first store: the same bytes per thread
// as stream_scale moves in 16 iterations.
__global__ void stream_scale_ilp(const float4* __restrict__ in, float4* __restrict__ out, std::size_t n4) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    float4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = in[i + k * stride];
#pragma unroll
    for (int k = 0; k < 4; ++k) out[i + k * stride] = make_float4(2.f * v[k].x, 2.f * v[k].y, 2.f * v[k].z, 2.f * v[k].w);
  }
  for (; i < n4; i += stride) {
    const float4 v = in[i];
    out[i] = make_float4(2.f * v.x, 2.f * v.y, 2.f * v.z, 2.f * v.w);
  }
}

__global__ void spin(long long cycles, unsigned long long* sink) {
  const long long start = clock64();
  long long now = start;
  while (now - start < cycles) now = clock64();
  if (threadIdx.x == 0 && now == 0) *sink = static_cast<unsigned long long>(now);  // never true; keeps the loop
}

// The same wait split into items: each block takes items blockIdx.x, + gridDim.x, ... and waits
// `cycles` for each, so a grid of one wave spreads any number of items evenly over the SMs.
// `visits` (when given) counts each item's visits.
__global__ void spin_items(long long cycles, long long items, unsigned* visits, unsigned long long* sink) {
  for (long long item = blockIdx.x; item < items; item += gridDim.x) {
    const long long start = clock64();
    long long now = start;
    while (now - start < cycles) now = clock64();
    if (threadIdx.x == 0) {
      if (visits != nullptr) atomicAdd(&visits[item], 1u);
      if (now == 0) *sink = static_cast<unsigned long long>(now);  // never true; keeps the loop
    }
  }
}

// The smallest kernel there is: one thread adds one to a counter (which says how many ran).
__global__ void bump(unsigned* counter) { *counter += 1; }

template <int N>
void register_pressure_reference(std::vector<float>& x, const std::vector<float>& in, int /*block*/) {
  const int n = static_cast<int>(in.size());
  for (int i = 0; i < n; ++i) {
    float v[N];
    for (int j = 0; j < N; ++j) v[j] = in[static_cast<std::size_t>((static_cast<long long>(i) + j * 97) % n)];
    for (int round = 0; round < 3; ++round) {
      for (int j = 0; j < N; ++j) v[j] = std::fma(v[j], 0.5f, v[(j + 1) % N] * 0.25f + v[(j + 7) % N] * 0.125f);
    }
    float s = 0.f;
    for (int j = 0; j < N; ++j) s += v[j];
    x[static_cast<std::size_t>(i)] = s;
  }
}

void light_reference(std::vector<float>& x, const std::vector<float>& /*in*/, int /*block*/) {
  for (auto& v : x) v = v * 2.f + 1.f;
}

void smem_reference(std::vector<float>& x, const std::vector<float>& /*in*/, int block) {
  const int n = static_cast<int>(x.size());
  const std::vector<float> old = x;
  for (int i = 0; i < n; ++i) {
    const int base = i / block * block, t = i - base, src = base + block - 1 - t;
    x[static_cast<std::size_t>(i)] = src < n ? old[static_cast<std::size_t>(src)] : 0.f;
  }
}

// The register kernels launch the same way whatever N is: (x, in, n), no shared memory.
template <void (*K)(float*, const float*, int)>
void launch_registers(float* x, const float* in, int n, unsigned grid, int block, std::size_t /*smem*/) {
  K<<<grid, block>>>(x, in, n);
}

template <void (*K)(float*, const float*, int)>
Suggestion suggest_fixed() {
  Suggestion s;
  CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&s.min_grid, &s.block, K, 0, 0));
  return s;
}

// One row per kernel: its name, its function (for the attribute and occupancy queries), how it
// is launched, the block size CUDA suggests for it, and its CPU version.
struct Row {
  Kernel id;
  const char* name;
  const void* function;
  void (*launch)(float* x, const float* in, int n, unsigned grid, int block, std::size_t dynamic_smem);
  Suggestion (*suggest)();
  void (*reference)(std::vector<float>& x, const std::vector<float>& in, int block);
};

const std::vector<Row>& table() {
  static const std::vector<Row> rows{
      {Kernel::kLight, "light_kernel", reinterpret_cast<const void*>(light_kernel),
       [](float* x, const float*, int n, unsigned grid, int block, std::size_t) { light_kernel<<<grid, block>>>(x, n); },
       [] {
         Suggestion s;
         CUDA_CHECK(cudaOccupancyMaxPotentialBlockSize(&s.min_grid, &s.block, light_kernel, 0, 0));
         return s;
       },
       light_reference},
      {Kernel::kSharedMemory, "smem_kernel", reinterpret_cast<const void*>(smem_kernel),
       // At least one float per thread, more if asked for.
       [](float* x, const float*, int n, unsigned grid, int block, std::size_t smem) {
         const std::size_t need = static_cast<std::size_t>(block) * sizeof(float);
         smem_kernel<<<grid, block, smem < need ? need : smem>>>(x, n);
       },
       [] {
         // Shared memory grows with the block: one float per thread.
         Suggestion s;
         CUDA_CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&s.min_grid, &s.block, smem_kernel,
                                                                    [](int b) { return b * sizeof(float); }, 0));
         return s;
       },
       smem_reference},
      {Kernel::kRegisters16, "registers_16", reinterpret_cast<const void*>(register_pressure<16>),
       launch_registers<register_pressure<16>>, suggest_fixed<register_pressure<16>>, register_pressure_reference<16>},
      {Kernel::kRegisters48, "registers_48", reinterpret_cast<const void*>(register_pressure<48>),
       launch_registers<register_pressure<48>>, suggest_fixed<register_pressure<48>>, register_pressure_reference<48>},
      {Kernel::kRegisters96, "registers_96", reinterpret_cast<const void*>(register_pressure<96>),
       launch_registers<register_pressure<96>>, suggest_fixed<register_pressure<96>>, register_pressure_reference<96>},
      {Kernel::kRegisters96Bounded, "registers_96_bounded", reinterpret_cast<const void*>(register_pressure_bounded),
       launch_registers<register_pressure_bounded>, suggest_fixed<register_pressure_bounded>,
       register_pressure_reference<96>},
  };
  return rows;
}

const Row& row_of(Kernel k) { return cudalab::row_of(table(), k, "occupancy"); }

}  // namespace

const std::vector<Kernel>& all_kernels() {
  static const std::vector<Kernel> v = [] {
    std::vector<Kernel> ids;
    for (const Row& r : table()) ids.push_back(r.id);
    return ids;
  }();
  return v;
}

std::string kernel_name(Kernel k) { return row_of(k).name; }

cudaFuncAttributes attributes(Kernel k) {
  cudaFuncAttributes a{};
  CUDA_CHECK(cudaFuncGetAttributes(&a, row_of(k).function));
  return a;
}

void allow_max_dynamic_smem(Kernel k, const cudaFuncAttributes& attr, std::size_t optin) {
  const int max_dynamic = static_cast<int>(optin - attr.sharedSizeBytes);
  CUDA_CHECK(cudaFuncSetAttribute(row_of(k).function, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dynamic));
}

int api_blocks_per_sm(Kernel k, int block, std::size_t dynamic_smem) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, row_of(k).function, block, dynamic_smem));
  return blocks;
}

Suggestion suggest_block(Kernel k) { return row_of(k).suggest(); }

void run_kernel(Kernel k, float* x, const float* in, int n, int block, std::size_t dynamic_smem) {
  const Row& row = row_of(k);
  row.launch(x, in, n, static_cast<unsigned>(cudalab::ceil_div(n, block)), block, dynamic_smem);
  CUDA_CHECK_LAUNCH(row.name);
}

void reference(Kernel k, std::vector<float>& x, const std::vector<float>& in, int block) {
  row_of(k).reference(x, in, block);
}

std::vector<KernelSweep> runtime_sweep(const cudalab::occupancy::GpuSpec& g) {
  std::vector<KernelSweep> out;
  for (Kernel k : all_kernels()) {
    KernelSweep ks{k, attributes(k), 0, 0};
    allow_max_dynamic_smem(k, ks.attr, g.smem_per_block_optin);
    ks.attr = attributes(k);
    const auto max_dyn = static_cast<std::size_t>(ks.attr.maxDynamicSharedSizeBytes);
    for (int block = 32; block <= ks.attr.maxThreadsPerBlock; block += 32) {
      for (std::size_t smem = 0; smem <= max_dyn; smem += 4096) {
        for (std::size_t bytes : {smem, smem + 1}) {
          if (bytes > max_dyn) continue;
          const int api = api_blocks_per_sm(k, block, bytes);
          ks.agree += api == cudalab::occupancy::compute(g, cudalab::occupancy::spec_from_attributes(ks.attr, block, bytes)).resident_blocks;
          ++ks.configs;
        }
      }
    }
    out.push_back(ks);
  }
  return out;
}

void allow_stream_smem(std::size_t max_dynamic) {
  const int bytes = static_cast<int>(max_dynamic);
  CUDA_CHECK(cudaFuncSetAttribute(stream_scale, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
  CUDA_CHECK(cudaFuncSetAttribute(stream_scale_ilp, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

void launch_stream(bool ilp, const float* in, float* out, std::size_t n, int grid, int block,
                   std::size_t dynamic_smem, cudaStream_t stream) {
  if (ilp) {
    if (n % 4 != 0) throw std::invalid_argument("launch_stream: the ILP kernel needs n divisible by 4");
    stream_scale_ilp<<<grid, block, dynamic_smem, stream>>>(reinterpret_cast<const float4*>(in),
                                                            reinterpret_cast<float4*>(out), n / 4);
  } else {
    stream_scale<<<grid, block, dynamic_smem, stream>>>(in, out, n);
  }
  CUDA_CHECK_LAUNCH(ilp ? "stream_scale_ilp" : "stream_scale");
}

void launch_spin(long long cycles, int grid, int block, unsigned long long* sink, cudaStream_t stream,
                 std::size_t dynamic_smem) {
  spin<<<grid, block, dynamic_smem, stream>>>(cycles, sink);
  CUDA_CHECK_LAUNCH("spin");
}

void launch_spin_items(long long cycles, long long items, int grid, int block, unsigned* visits,
                       unsigned long long* sink, cudaStream_t stream, std::size_t dynamic_smem) {
  spin_items<<<grid, block, dynamic_smem, stream>>>(cycles, items, visits, sink);
  CUDA_CHECK_LAUNCH("spin_items");
}

int spin_items_blocks_per_sm(int block, std::size_t dynamic_smem) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, spin_items, block, dynamic_smem));
  return blocks;
}

double persistent_waves(long long work, long long full_wave, int split) {
  if (full_wave <= 0 || split <= 0) return 0;
  return static_cast<double>(cudalab::ceil_div(work * split, full_wave)) / split;
}

int stream_blocks_per_sm(int block) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stream_scale, block, 0));
  return blocks;
}

void launch_bumps(unsigned* counter, int launches, cudaStream_t stream) {
  for (int i = 0; i < launches; ++i) bump<<<1, 1, 0, stream>>>(counter);
  CUDA_CHECK_LAUNCH("bump");
}

BumpGraph::BumpGraph(unsigned* counter, int launches) {
  // Captured on a stream of its own (the legacy default stream cannot be captured): the
  // launches become the graph's nodes, one after the other.
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < launches; ++i) bump<<<1, 1, 0, s>>>(counter);
  const cudaError_t launched = cudaGetLastError();
  const cudaError_t ended = cudaStreamEndCapture(s, &graph_);
  cudaStreamDestroy(s);
  CUDA_CHECK(launched);
  CUDA_CHECK(ended);
  const cudaError_t made = cudaGraphInstantiate(&exec_, graph_, 0);
  if (made != cudaSuccess) cudaGraphDestroy(graph_);
  CUDA_CHECK(made);
}

BumpGraph::~BumpGraph() {
  cudaGraphExecDestroy(exec_);
  cudaGraphDestroy(graph_);
}

void BumpGraph::launch(cudaStream_t stream) { CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

std::size_t BumpGraph::nodes() const {
  std::size_t n = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph_, nullptr, &n));
  return n;
}

int spin_blocks_per_sm(int block, std::size_t dynamic_smem) {
  int blocks = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, spin, block, dynamic_smem));
  return blocks;
}

Exercise74 exercise_74(const cudalab::occupancy::GpuSpec& gpu, const cudalab::occupancy::KernelSpec& k) {
  using cudalab::occupancy::kUnlimited;
  Exercise74 r;
  // STUDENT-BEGIN(occupancy.calculator): the notes' exercise 74, an occupancy calculator
  // TASK: Fill in r: the blocks of k one SM of gpu holds by each resource alone, and the
  // smallest of them (resident_blocks). A block that breaks a per-block limit fits 0 blocks.
  //   threads: a block takes whole warps (ceil(k.block_threads / gpu.warp_size)); the SM holds
  //     max_threads_per_sm / warp_size warps; 0 when the block is empty or over max_threads_per_block.
  //   blocks: the hardware's cap, max_blocks_per_sm.
  //   registers: a warp's registers (regs_per_thread x warp_size) are allocated in multiples of
  //     reg_alloc_unit; the register file is split into sub_partitions equal parts, each holding
  //     whole warps; a block's warps spread evenly over the parts, so it needs its warps rounded up
  //     to a multiple of sub_partitions times a warp's registers, at most regs_per_block; 0 over
  //     that or over max_regs_per_thread; kUnlimited for a kernel without registers.
  //   shared memory: static_smem + dynamic_smem + smem_reserved_per_block, rounded up to
  //     smem_alloc_unit, out of smem_per_sm; 0 when that is over smem_per_block_optin +
  //     smem_reserved_per_block; kUnlimited when it is 0.
  // HINT: about 25 lines. Q2 of the notes: the A100 (sm_80), 256 threads and 40 registers give
  // 8 blocks by threads, 32 by the cap, 6 by registers: 6. Check yours with the what-if mode:
  // ./labs/occupancy --threads 256 --regs 40 --arch sm_80 prints both.
  // STUB: (void)gpu; (void)k; (void)kUnlimited;
  if (k.block_threads <= 0 || k.block_threads > gpu.max_threads_per_block || gpu.warp_size <= 0) return r;
  const int warps = cudalab::ceil_div(k.block_threads, gpu.warp_size);
  r.by_threads = gpu.max_threads_per_sm / gpu.warp_size / warps;
  r.by_blocks = gpu.max_blocks_per_sm;

  const int regs_per_warp = cudalab::round_up(k.regs_per_thread * gpu.warp_size, gpu.reg_alloc_unit);
  if (regs_per_warp == 0) {
    r.by_registers = kUnlimited;
  } else if (k.regs_per_thread > gpu.max_regs_per_thread ||
             regs_per_warp * cudalab::round_up(warps, gpu.sub_partitions) > gpu.regs_per_block) {
    r.by_registers = 0;
  } else {
    const int warps_per_part = gpu.regs_per_sm / gpu.sub_partitions / regs_per_warp;
    r.by_registers = warps_per_part * gpu.sub_partitions / warps;
  }

  const std::size_t smem =
      cudalab::round_up(k.static_smem + k.dynamic_smem + gpu.smem_reserved_per_block, gpu.smem_alloc_unit);
  if (smem > gpu.smem_per_block_optin + gpu.smem_reserved_per_block) {
    r.by_shared_memory = 0;
  } else if (smem == 0) {
    r.by_shared_memory = kUnlimited;
  } else {
    r.by_shared_memory = static_cast<int>(gpu.smem_per_sm / smem);
  }
  r.resident_blocks = std::min(std::min(r.by_threads, r.by_blocks), std::min(r.by_registers, r.by_shared_memory));
  // STUDENT-END(occupancy.calculator)
  return r;
}

long long waves(long long blocks, int sms, int per_sm) {
  const long long per_wave = static_cast<long long>(sms) * per_sm;
  return per_wave > 0 ? cudalab::ceil_div(blocks, per_wave) : 0;
}

std::optional<cudalab::occupancy::GpuSpec> parse_arch(const std::string& text) {
  std::string digits;
  for (char c : text) {
    if (c >= '0' && c <= '9') digits += c;
  }
  if (digits.empty()) return std::nullopt;
  const bool shaped = text == "sm_" + digits || text == digits ||
                      (text.size() >= 3 && text == digits.substr(0, digits.size() - 1) + "." + digits.back());
  if (!shaped) return std::nullopt;
  return cudalab::occupancy::spec_for_arch("sm_" + digits);
}

}  // namespace occupancy_lab
