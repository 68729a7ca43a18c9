// divergence kernels. The two paths are long (`iters` dependent FMAs, a loop the compiler
// cannot unroll away because iters is a run-time value) and live in separate non-inlined
// functions, so the compiler can neither predicate them nor merge them into one loop: a warp
// whose threads disagree must run one path, then the other.
//
// Napkin math: path cost ~ iters x 4 cycles of FMA latency per warp, hidden by the other
// resident warps; a divergent warp issues both paths, so the model predicts 2x the uniform
// time, minus what does not double (launch, the store, the branch itself).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "common/cuda_check.hpp"
#include "common/variants.hpp"
#include "divergence.hpp"

namespace divergence {

namespace {

__device__ __noinline__ float path_a(float x, int iters) {
  for (int k = 0; k < iters; ++k) x = fmaf(x, kEvenScale, kEvenShift);
  return x;
}

__device__ __noinline__ float path_b(float x, int iters) {
  for (int k = 0; k < iters; ++k) x = fmaf(x, kOddScale, kOddShift);
  return x;
}

// The notes' divergent kernel: neighbouring threads take different paths.
__global__ void divergent(float* out, int iters) {
  // STUDENT-BEGIN(divergence.divergent): a branch that splits every warp
  // TASK: Start from x = threadIdx.x. Even threads (threadIdx.x % 2 == 0) run path_a, odd
  // threads path_b; store x in out at the global index.
  // HINT: about 5 lines.
  // STUB: (void)out; (void)iters;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float x = static_cast<float>(threadIdx.x);
  if (threadIdx.x % 2 == 0) x = path_a(x, iters);
  else x = path_b(x, iters);
  out[i] = x;
  // STUDENT-END(divergence.divergent)
}

// The notes' uniform kernel: the condition is the same for all 32 threads of a warp.
__global__ void uniform(float* out, int iters) {
  // STUDENT-BEGIN(divergence.uniform): the same work, one path per warp
  // TASK: As divergent(), but branch on the warp number, (threadIdx.x / 32) % 2 == 0 -> path_a,
  // so all 32 threads of a warp take the same path.
  // HINT: about 5 lines.
  // STUB: (void)out; (void)iters;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float x = static_cast<float>(threadIdx.x);
  if ((threadIdx.x / 32) % 2 == 0) x = path_a(x, iters);
  else x = path_b(x, iters);
  out[i] = x;
  // STUDENT-END(divergence.uniform)
}

// The divergent kernel's computation without a branch: the per-thread difference moves from
// control flow into data (which constants to use), so every warp runs one loop.
__global__ void branch_free(float* out, int iters) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool odd = threadIdx.x % 2 != 0;
  const float scale = odd ? kOddScale : kEvenScale;  // a select, not a branch
  const float shift = odd ? kOddShift : kEvenShift;
  float x = static_cast<float>(threadIdx.x);
  for (int k = 0; k < iters; ++k) x = fmaf(x, scale, shift);
  out[i] = x;
}

// Divergence decided by data: the branch is the same code, whether warps diverge depends on
// how the signs are laid out.
__global__ void data_dependent(const float* data, float* out, int iters) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  float x = static_cast<float>(threadIdx.x);
  if (data[i] > 0.f) x = path_a(x, iters);
  else x = path_b(x, iters);
  out[i] = x;
}

// The inputs a variant branches on: none (it branches on threadIdx.x), or data of some kind.
enum class Data { kNone, kRandom, kSorted, kPositive };

using Launcher = void (*)(const float* data, float* out, int grid, int block, int iters, cudaStream_t stream);

template <void (*Kernel)(float*, int)>
void launch_index(const float*, float* out, int grid, int block, int iters, cudaStream_t stream) {
  Kernel<<<grid, block, 0, stream>>>(out, iters);
}
void launch_data(const float* data, float* out, int grid, int block, int iters, cudaStream_t stream) {
  data_dependent<<<grid, block, 0, stream>>>(data, out, iters);
}

// The warps of a launch whose threads take both sides of the variant's branch (CPU arithmetic).
using DivergentWarps = std::size_t (*)(const std::vector<float>& data, int grid, int block);
std::size_t on_index_mod2(const std::vector<float>&, int grid, int block) {
  return static_cast<std::size_t>(grid) * static_cast<std::size_t>(divergent_warps_mod2(block));
}
std::size_t on_warp_index(const std::vector<float>&, int grid, int block) {
  return static_cast<std::size_t>(grid) * static_cast<std::size_t>(divergent_warps_warp_uniform(block));
}
std::size_t no_branch(const std::vector<float>&, int, int) { return 0; }
std::size_t on_data(const std::vector<float>& data, int, int) { return divergent_warps_in_data(data); }

struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  Launcher launch;
  Data data;
  DivergentWarps divergent;
};

// The ladder, described once: a row is the whole variant (name, what it changes, its launcher,
// the data it branches on). Adding a variant is its kernel, its enum value and its row.
const std::vector<Row>& ladder() {
  static const std::vector<Row> rows{
      {Variant::kDivergent, "divergent", "the notes' branch on threadIdx.x % 2: both paths inside every warp",
       launch_index<divergent>, Data::kNone, on_index_mod2},
      {Variant::kUniform, "uniform", "the notes' branch on (threadIdx.x / 32) % 2: one path per warp",
       launch_index<uniform>, Data::kNone, on_warp_index},
      {Variant::kBranchFree, "branch_free", "no branch: each thread picks its constants arithmetically",
       launch_index<branch_free>, Data::kNone, no_branch},
      {Variant::kDataRandom, "data_random", "branch on x[i] > 0, random signs: nearly every warp diverges",
       launch_data, Data::kRandom, on_data},
      {Variant::kDataSorted, "data_sorted", "the same branch on sorted data: one warp diverges", launch_data,
       Data::kSorted, on_data},
      {Variant::kDataPositive, "data_positive", "all positive: no warp diverges", launch_data, Data::kPositive, on_data},
  };
  return rows;
}

const Row& row_of(Variant v) { return cudalab::row_of(ladder(), v, "divergence"); }

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder())

bool is_data_dependent(Variant v) { return row_of(v).data != Data::kNone; }

std::size_t divergent_warps(Variant v, const std::vector<float>& data, int grid, int block) {
  return row_of(v).divergent(data, grid, block);
}

std::vector<float> make_data(Variant v, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> d(n);
  for (auto& x : d) {
    x = dist(gen);
    if (x == 0.f) x = 0.5f;
  }
  const Data kind = row_of(v).data;
  if (kind == Data::kSorted) std::sort(d.begin(), d.end());
  if (kind == Data::kPositive) {
    for (auto& x : d) x = std::fabs(x);
  }
  return d;
}

void launch(Variant v, const float* data, float* out, int grid, int block, int iters, cudaStream_t stream) {
  const Row& row = row_of(v);
  row.launch(data, out, grid, block, iters, stream);
  CUDA_CHECK_LAUNCH(row.name);
}

int divergent_warps_mod2(int block) {
  // Every warp holding at least two threads has an even and an odd one.
  return block / 32 + (block % 32 >= 2 ? 1 : 0);
}

int divergent_warps_warp_uniform(int block) {
  (void)block;
  return 0;  // (t / 32) % 2 is constant over t = 32w .. 32w + 31
}

std::size_t divergent_warps_in_data(const std::vector<float>& data) {
  std::size_t warps = 0;
  for (std::size_t w = 0; w < data.size(); w += 32) {
    bool any_pos = false, any_neg = false;
    for (std::size_t i = w; i < std::min(data.size(), w + 32); ++i) (data[i] > 0.f ? any_pos : any_neg) = true;
    warps += any_pos && any_neg;
  }
  return warps;
}

}  // namespace divergence
