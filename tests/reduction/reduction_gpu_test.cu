// Every reduction variant x int and float against the exact CPU sum, at sizes that break
// sloppy kernels, block sizes 64..1024, seeded random inputs and a poisoned result; the
// reproducibility claims; and a sum past 2^31 elements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/random.hpp"
#include "gpu_test.hpp"
#include "reduction.hpp"

namespace {

using reduction::Variant;

// Float inputs are integers in [-R, R] with R = min(1000, 2^24 / n) (at least 1): every partial
// sum is an integer of magnitude <= n R <= 2^24, which float represents exactly, so the expected
// float sum is exact whatever the order. R as large as that allows makes the sum of a small input
// unpredictable too: with -1, 0 and 1 alone, two elements sum to 1 often enough that a body
// writing the constant 1 passed the n = 2 case of a grading run. The total is never 0, so a
// kernel that writes 0 (or nothing) cannot pass by chance.
template <typename T>
std::vector<T> input(std::size_t n, std::uint64_t seed) {
  std::vector<T> x;
  if constexpr (std::is_floating_point_v<T>) {
    const int r = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(1000, (std::size_t{1} << 24) / std::max<std::size_t>(n, 1))));
    auto ints = cudalab::random_vector<int>(n, seed, -r, r);
    x.assign(ints.begin(), ints.end());
  } else {
    x = cudalab::random_vector<T>(n, seed, -1000, 1000);
  }
  long long sum = 0;
  for (T e : x) sum += static_cast<long long>(e);
  if (sum == 0 && !x.empty()) x[0] = x[0] == T(1) ? T(0) : static_cast<T>(x[0] + T(1));  // moves the sum by +-1
  return x;
}

// One case per size and type, made once and used by every variant and block size: the input and
// its exact sum (drawing 2^24 values takes about 0.15 s, about 20 s of the binary's time if every
// check drew them again; the block size needs no new data, what breaks a kernel at another block
// size is its geometry), a device copy of the input and a workspace. No check allocates: under a
// grader that runs many test processes on one GPU at once every cudaMalloc and cudaFree waits for
// the driver (on the H200, 16 processes at once: about 5 ms per 64 MiB allocate-and-free pair,
// against 0.1 ms alone), and with six of each per check this binary took 42 s instead of its
// 2.3 s alone. Before every check the input is uploaded again and the workspace reset (scratch,
// partials and result poisoned, the ticket counter zeroed), so a variant sees what a fresh one
// would: it cannot be handed a changed input, nor pass on partial sums a correct one left behind.
template <typename T>
struct Case {
  std::vector<T> x;
  long long exact = 0;
  cudalab::DeviceBuffer<T> in;
  reduction::Workspace<T> ws;
  explicit Case(std::size_t n) : x(input<T>(n, cudalab::testing::seed(7 * n + 1))), in(n), ws(n) {
    for (T e : x) exact += static_cast<long long>(e);
  }
};

template <typename T>
void check(Variant v, std::size_t n, int block) {
  auto& [x, exact, d, ws] = cudalab::testing::cached<Case<T>>(n);
  d.upload(x);
  ws.reset(0xAB);  // poison: far from any sum of these inputs
  reduction::reduce(v, d.data(), n, block, ws);
  T got{};
  CUDA_CHECK(cudaMemcpy(&got, ws.result(), sizeof(T), cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, static_cast<T>(exact)) << reduction::variant_name(v) << " n=" << n << " block=" << block;
}

class ReductionSizes : public ::testing::TestWithParam<std::tuple<Variant, std::size_t>> {};

TEST_P(ReductionSizes, IntExact) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  check<int>(v, n, 256);
}

TEST_P(ReductionSizes, FloatExact) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  check<float>(v, n, 256);
}

TEST_P(ReductionSizes, EveryBlockSize) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, n] = GetParam();
  for (int block : {64, 128, 512, 1024}) {
    check<int>(v, n, block);
    check<float>(v, n, block);
  }
}

std::string param_name(const ::testing::TestParamInfo<std::tuple<Variant, std::size_t>>& info) {
  return reduction::variant_name(std::get<0>(info.param)) + "_n" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(
    Variants, ReductionSizes,
    ::testing::Combine(::testing::ValuesIn(reduction::all_variants()),
                       ::testing::Values(std::size_t{1}, std::size_t{2}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                                         std::size_t{255}, std::size_t{256}, std::size_t{257}, std::size_t{1000},
                                         std::size_t{4097}, (std::size_t{1} << 20) + 1, std::size_t{1} << 24)),
    param_name);

TEST(ReductionGpu, ReproducibleVariantsGiveBitwiseTheSameFloatSum) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 20) + 1;
  const auto x = cudalab::random_vector<float>(n, 99, 0.f, 1.f);  // real values: order matters
  double reference = 0;
  for (float e : x) reference += e;  // about n / 2, far from 0
  cudalab::DeviceBuffer<float> d(x);
  reduction::Workspace<float> ws(n);
  for (Variant v : reduction::all_variants()) {
    if (!reduction::traits(v).reproducible) continue;
    float first = 0;
    for (int run = 0; run < 5; ++run) {
      reduction::reduce(v, d.data(), n, 256, ws);
      float got = 0;
      CUDA_CHECK(cudaMemcpy(&got, ws.result(), sizeof got, cudaMemcpyDeviceToHost));
      if (run == 0) {
        first = got;
        // reproducible and right: within 1e-5 relative of the double-precision sum
        EXPECT_NEAR(got, reference, 1e-5 * reference) << reduction::variant_name(v);
      }
      EXPECT_EQ(std::memcmp(&got, &first, sizeof got), 0) << reduction::variant_name(v) << " run " << run;
    }
  }
}

TEST(ReductionGpu, MisalignedInputFallsBackToScalarLoads) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t n = 100001;
  const auto x = input<int>(n + 1, 5);
  long long exact = 0;
  for (std::size_t i = 1; i <= n; ++i) exact += x[i];
  cudalab::DeviceBuffer<int> d(x);
  reduction::Workspace<int> ws(n);
  for (Variant v : {Variant::kVectorized, Variant::kSinglePass, Variant::kSinglePassAtomic}) {
    reduction::reduce(v, d.data() + 1, n, 256, ws);
    int got = 0;
    CUDA_CHECK(cudaMemcpy(&got, ws.result(), sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, static_cast<int>(exact)) << reduction::variant_name(v);
  }
}

__global__ void fill_past_2g(int* x, std::size_t n) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    // -1, 1, -1, 1 ... below 2^31 (sums to 0), then +1: an index that wraps at 2^31 would
    // re-read the alternating part instead and change the sum.
    x[i] = i < (std::size_t{1} << 31) ? ((i & 1) ? 1 : -1) : 1;
  }
}

TEST(ReductionGpu, PastTwoToTheThirtyOneElements) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t n = (std::size_t{1} << 31) + 3;
  std::size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  if (2.2 * static_cast<double>(n) * sizeof(int) > static_cast<double>(free_bytes)) GTEST_SKIP() << "not enough GPU memory";
  cudalab::DeviceBuffer<int> d(n);
  fill_past_2g<<<4096, 256>>>(d.data(), n);
  CUDA_CHECK_LAUNCH("fill_past_2g");
  reduction::Workspace<int> ws(n);
  for (Variant v : reduction::all_variants()) {
    CUDA_CHECK(cudaMemset(ws.result(), 0xFF, sizeof(int)));
    reduction::reduce(v, d.data(), n, 256, ws);
    int got = 0;
    CUDA_CHECK(cudaMemcpy(&got, ws.result(), sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(got, 3) << reduction::variant_name(v);
  }
}

}  // namespace
