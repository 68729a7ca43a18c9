// matmul on the GPU: every variant against the FP64 CPU product at sizes that are not multiples
// of any tile (1, 2, 17, 31, 33, 127, 1025, 4097 mixed; K = 1; tall and wide), at tile multiples
// (the 16-byte paths) and with misaligned operands (the one-float paths), C poisoned with NaN
// before every launch; cuBLAS likewise; and a kernel that rounds its inputs to TF32 or BF16
// fails the FP32 check at every K (the inputs make lower precisions' roundings add up).
#include <gtest/gtest.h>

#include <cuda_bf16.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "gpu_test.hpp"
#include "matmul.hpp"
#include "reference.hpp"
#include "tensor.hpp"

namespace {

struct Shape {
  int m, n, k;
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s{
      {1, 1, 1},      {2, 2, 2},      {17, 31, 33},    {31, 33, 17},   {33, 17, 1},  {127, 127, 127},
      {128, 128, 128}, {256, 128, 64}, {1, 4097, 33},  {4097, 1, 33},  {2, 1025, 17}, {1025, 31, 2},
      {129, 65, 1025}, {64, 4097, 4},  {33, 127, 4097}, {257, 260, 36},
  };
  return s;
}

// A shape's inputs and their FP64 product, made once per shape and kept for every variant and
// tile that runs at it (the CPU's product is most of a case's time otherwise).
struct Inputs {
  std::vector<float> a, b;
  matmul::Product ref;
};
const Inputs& inputs_for(const Shape& s) {
  static std::map<std::tuple<int, int, int>, Inputs> made;
  const auto key = std::make_tuple(s.m, s.n, s.k);
  auto it = made.find(key);
  if (it == made.end()) {
    // inputs a kernel computing in TF32, FP16 or BF16 cannot pass with at any K (reference.hpp)
    Inputs in{matmul::fp32_exposing_matrix(s.m, s.k, cudalab::testing::seed(100 + s.m), true),
              matmul::fp32_exposing_matrix(s.k, s.n, cudalab::testing::seed(200 + s.n), false), {}};
    in.ref = matmul::reference(in.a, in.b, s.m, s.n, s.k);
    it = made.emplace(key, std::move(in)).first;
  }
  return it->second;
}

// Runs `launch` on the inputs of shape s (offset floats into each buffer: 1 misaligns the
// 16-byte paths), C poisoned first, and compares every element with the CPU.
template <typename Launch>
void expect_matches_cpu(const Shape& s, int offset, const std::string& what, Launch launch) {
  const Inputs& in = inputs_for(s);
  const std::vector<float>& a = in.a;
  const std::vector<float>& b = in.b;
  const matmul::Product& ref = in.ref;
  const std::size_t mn = static_cast<std::size_t>(s.m) * s.n;
  cudalab::DeviceBuffer<float> d_a(a.size() + offset), d_b(b.size() + offset), d_c(mn + offset);
  CUDA_CHECK(cudaMemcpy(d_a.data() + offset, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b.data() + offset, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
  d_c.fill_bytes(0xFF);  // NaN: an element never written fails
  launch(d_a.data() + offset, d_b.data() + offset, d_c.data() + offset);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> c(mn);
  CUDA_CHECK(cudaMemcpy(c.data(), d_c.data() + offset, mn * 4, cudaMemcpyDeviceToHost));
  const cudalab::CheckResult r = matmul::check_product(ref, c, s.k);
  EXPECT_TRUE(r.ok()) << what << " at " << s.m << " x " << s.n << " x " << s.k << " (offset " << offset
                      << "): " << r.summary();
}

class MatmulVariants : public ::testing::TestWithParam<matmul::Variant> {};

TEST_P(MatmulVariants, EveryShapeMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const matmul::Variant v = GetParam();
  for (const Shape& s : shapes()) {
    expect_matches_cpu(s, 0, matmul::variant_name(v), [&](const float* a, const float* b, float* c) {
      matmul::launch(v, a, b, c, s.m, s.n, s.k);
    });
  }
}

TEST_P(MatmulVariants, MisalignedOperandsTakeTheOneFloatPath) {
  CUDALAB_REQUIRE_GPU();
  const matmul::Variant v = GetParam();
  for (const Shape& s : {Shape{256, 128, 64}, Shape{130, 260, 36}}) {
    expect_matches_cpu(s, 1, matmul::variant_name(v), [&](const float* a, const float* b, float* c) {
      EXPECT_FALSE(matmul::vector_path(v, a, b, c, s.n, s.k));
      matmul::launch(v, a, b, c, s.m, s.n, s.k);
    });
  }
}

TEST_P(MatmulVariants, RepeatedLaunchesGiveTheSameBits) {
  CUDALAB_REQUIRE_GPU();
  const matmul::Variant v = GetParam();
  const int m = 300, n = 200, k = 100;
  const auto a = matmul::make_matrix(m, k, 1), b = matmul::make_matrix(k, n, 2);
  cudalab::DeviceBuffer<float> d_a(a), d_b(b), d_c(static_cast<std::size_t>(m) * n);
  matmul::launch(v, d_a.data(), d_b.data(), d_c.data(), m, n, k);
  const auto first = d_c.download();
  for (int i = 0; i < 3; ++i) {
    d_c.fill_bytes(0xFF);
    matmul::launch(v, d_a.data(), d_b.data(), d_c.data(), m, n, k);
    EXPECT_EQ(d_c.download(), first) << matmul::variant_name(v) << ": a race changes bits between runs";
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, MatmulVariants, ::testing::ValuesIn(matmul::all_variants()),
                         [](const auto& variant) { return matmul::variant_name(variant.param); });

TEST(MatmulAsyncTiles, EveryTileAtEveryShapeAndMisaligned) {
  CUDALAB_REQUIRE_GPU();
  for (const matmul::Tile t : matmul::async_tiles()) {
    const std::string what = "async_pipeline " + std::to_string(t.m) + "x" + std::to_string(t.n) + ", K in " +
                             std::to_string(t.splits) + (t.fringe ? ", fringe" : "");
    for (const Shape& s : shapes()) {
      expect_matches_cpu(s, 0, what, [&](const float* a, const float* b, float* c) {
        matmul::launch_async_tile(t, a, b, c, s.m, s.n, s.k);
      });
    }
    expect_matches_cpu({300, 260, 36}, 1, what, [&](const float* a, const float* b, float* c) {
      matmul::launch_async_tile(t, a, b, c, 300, 260, 36);
    });
  }
}

TEST(MatmulAsyncTiles, TheTileFollowsTheProblem) {
  CUDALAB_REQUIRE_GPU();
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // many blocks of the largest tile: the largest; one block of anything: the smallest
  const matmul::Tile big = matmul::tile(matmul::Variant::kAsyncPipeline, 128 * 4 * sms, 256 * 4, 4096);
  EXPECT_EQ(big.m * big.n, 128 * 256);
  EXPECT_EQ(big.splits, 1);
  const matmul::Tile small = matmul::tile(matmul::Variant::kAsyncPipeline, 17, 17, 17);
  EXPECT_EQ(small.m * small.n, 64 * 64);
  EXPECT_EQ(small.splits, 1);  // K too short to split
  const matmul::Tile deep = matmul::tile(matmul::Variant::kAsyncPipeline, 64, 64, 8192);
  EXPECT_GT(deep.splits, 1);  // one tile of C, a long K: split it
  EXPECT_EQ(matmul::tile(matmul::Variant::kSmem32, 17, 17, 17).m, 32);
  // one row and column past whole tiles: those go to the fringe kernel; none past: no fringe;
  // C smaller than every tile: tiles as before (a fringe would be all of C)
  EXPECT_TRUE(matmul::tile(matmul::Variant::kAsyncPipeline, 2049, 2049, 2049).fringe);  // 16 x 128 + 1
  EXPECT_FALSE(matmul::tile(matmul::Variant::kAsyncPipeline, 1024, 1024, 1024).fringe);
  EXPECT_FALSE(small.fringe);
  EXPECT_FALSE(matmul::tile(matmul::Variant::kAsyncPipeline, 1100, 1100, 1100).fringe);  // 76 rows past: tiles
  if (sms >= 128 && sms < 256) {  // (H100, H200: 132) 64 tiles of 128 x 128 fill at most one block an SM
    // K long enough: 4 parts of 1024, two blocks on each SM; 1025: parts of 288 would be too
    // short, so 2 parts and one block an SM
    const matmul::Tile co = matmul::tile(matmul::Variant::kAsyncPipeline, 1024, 1024, 4096);
    EXPECT_EQ(co.m * co.n, 128 * 128);
    EXPECT_EQ(co.splits, 4);
    const matmul::Tile short_k = matmul::tile(matmul::Variant::kAsyncPipeline, 1025, 1025, 1025);
    EXPECT_EQ(short_k.m * short_k.n, 128 * 128);
    EXPECT_EQ(short_k.splits, 2);
    EXPECT_TRUE(short_k.fringe);
  }
}

TEST(MatmulVariantPaths, TileMultiplesTakeTheSixteenBytePath) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<float> a(64 * 64), b(64 * 64), c(64 * 64);
  EXPECT_TRUE(matmul::vector_path(matmul::Variant::kAsyncPipeline, a.data(), b.data(), c.data(), 64, 64));
  EXPECT_TRUE(matmul::vector_path(matmul::Variant::kVectorized, a.data(), b.data(), c.data(), 64, 64));
  EXPECT_FALSE(matmul::vector_path(matmul::Variant::kVectorized, a.data(), b.data(), c.data(), 63, 64));
  EXPECT_FALSE(matmul::vector_path(matmul::Variant::kVectorized, a.data(), b.data(), c.data(), 64, 62));
  EXPECT_FALSE(matmul::vector_path(matmul::Variant::kRegTile2d, a.data(), b.data(), c.data(), 64, 64));
  EXPECT_EQ(matmul::fallback(matmul::Variant::kWarpTile), "");
}

TEST(MatmulCublas, MatchesTheCpuAtOddShapes) {
  CUDALAB_REQUIRE_GPU();
  matmul::Cublas blas;
  for (const Shape& s : shapes()) {
    expect_matches_cpu(s, 0, "cublas", [&](const float* a, const float* b, float* c) { blas.sgemm(a, b, c, s.m, s.n, s.k); });
  }
}

// The naive product with its inputs rounded first, as a Tensor Core in TF32 or BF16 would take them.
enum class Rounding { kNone, kTf32, kBf16 };
__global__ void rounded_product(const float* a, const float* b, float* c, int m, int n, int k, Rounding rounding) {
  const int col = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x), row = static_cast<int>(blockIdx.y);
  if (row >= m || col >= n) return;
  float acc = 0;
  for (int p = 0; p < k; ++p) {
    float x = a[static_cast<std::size_t>(row) * k + p], y = b[static_cast<std::size_t>(p) * n + col];
    if (rounding == Rounding::kTf32) {
      // 10 mantissa bits, the 13 dropped rounded half away from zero (as cvt.rna.tf32.f32, sm_80+)
      x = __uint_as_float((__float_as_uint(x) + 0x1000u) & ~0x1FFFu);
      y = __uint_as_float((__float_as_uint(y) + 0x1000u) & ~0x1FFFu);
    } else if (rounding == Rounding::kBf16) {
      x = __bfloat162float(__float2bfloat16(x));
      y = __bfloat162float(__float2bfloat16(y));
    }
    acc = fmaf(x, y, acc);
  }
  c[static_cast<std::size_t>(row) * n + col] = acc;
}

TEST(MatmulPrecision, Tf32AndBf16InputsFailTheFp32Check) {
  CUDALAB_REQUIRE_GPU();
  // the task tests' inputs (fp32_exposing_matrix), at every K they use and past it
  for (int k : {1, 64, 127, 256, 1025, 4097, 16384}) {
    const int m = 64, n = 64;
    const auto a = matmul::fp32_exposing_matrix(m, k, cudalab::testing::seed(11 + k), true);
    const auto b = matmul::fp32_exposing_matrix(k, n, cudalab::testing::seed(12 + k), false);
    const matmul::Product ref = matmul::reference(a, b, m, n, k);
    cudalab::DeviceBuffer<float> d_a(a), d_b(b), d_c(static_cast<std::size_t>(m) * n);
    for (Rounding r : {Rounding::kNone, Rounding::kTf32, Rounding::kBf16}) {
      d_c.fill_bytes(0xFF);
      rounded_product<<<dim3(1, m), 64>>>(d_a.data(), d_b.data(), d_c.data(), m, n, k, r);
      CUDA_CHECK_LAUNCH("rounded_product");
      const bool ok = matmul::check_product(ref, d_c.download(), k).ok();
      EXPECT_EQ(ok, r == Rounding::kNone) << "k = " << k << ", rounding " << static_cast<int>(r);
    }
  }
}

// ---- the Tensor Core rungs (BF16 inputs) ------------------------------------------------------

// Runs `launch` on fresh BF16 inputs of shape s (offset elements into each buffer: 1 misaligns
// the 16-byte copies) and compares every element with the FP64 product of the rounded inputs,
// within the Tensor Core bound (reference.hpp).
template <typename Launch>
void expect_bf16_matches_cpu(const Shape& s, int offset, const std::string& what, Launch launch) {
  const auto a = matmul::rounded_to_bf16(matmul::make_matrix(s.m, s.k, cudalab::testing::seed(300 + s.m)));
  const auto b = matmul::rounded_to_bf16(matmul::make_matrix(s.k, s.n, cudalab::testing::seed(400 + s.n)));
  const matmul::Product ref = matmul::reference(a, b, s.m, s.n, s.k);
  const auto ha = matmul::bf16_bits_of(a), hb = matmul::bf16_bits_of(b);
  const std::size_t mn = static_cast<std::size_t>(s.m) * s.n;
  cudalab::DeviceBuffer<std::uint16_t> d_a(ha.size() + offset), d_b(hb.size() + offset);
  cudalab::DeviceBuffer<float> d_c(mn);
  CUDA_CHECK(cudaMemcpy(d_a.data() + offset, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b.data() + offset, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
  d_c.fill_bytes(0xFF);  // NaN: an element never written fails
  launch(d_a.data() + offset, d_b.data() + offset, d_c.data());
  CUDA_CHECK(cudaDeviceSynchronize());
  const cudalab::CheckResult r = matmul::check_product(ref, d_c.download(), s.k, matmul::bf16_dot_error_bound(s.k));
  EXPECT_TRUE(r.ok()) << what << " at " << s.m << " x " << s.n << " x " << s.k << " (offset " << offset
                      << "): " << r.summary();
}

class TensorVariants : public ::testing::TestWithParam<matmul::tensor::Variant> {};

TEST_P(TensorVariants, EveryShapeMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const auto v = GetParam();
  if (const std::string why = matmul::tensor::unavailable(v); !why.empty()) GTEST_SKIP() << why;  // sm_75
  for (const Shape& s : shapes()) {
    expect_bf16_matches_cpu(s, 0, matmul::tensor::variant_name(v), [&](const std::uint16_t* a, const std::uint16_t* b, float* c) {
      matmul::tensor::launch(v, a, b, c, s.m, s.n, s.k);
    });
  }
}

TEST_P(TensorVariants, MisalignedOperandsTakeTheOneElementPath) {
  CUDALAB_REQUIRE_GPU();
  const auto v = GetParam();
  if (const std::string why = matmul::tensor::unavailable(v); !why.empty()) GTEST_SKIP() << why;  // sm_75
  for (const Shape& s : {Shape{256, 128, 64}, Shape{130, 264, 40}}) {
    expect_bf16_matches_cpu(s, 1, matmul::tensor::variant_name(v), [&](const std::uint16_t* a, const std::uint16_t* b, float* c) {
      EXPECT_FALSE(matmul::tensor::vector_path(a, b, s.n, s.k));
      matmul::tensor::launch(v, a, b, c, s.m, s.n, s.k);
    });
  }
}

// Shapes that take the 16-byte copies (N and K multiples of 8) with edges in M, N and K: a last
// K slice of 8, a single partial slice, and a K of 17 slices of 64 (the stage ring wraps many
// times), each with C's last tile row and column partly outside.
TEST_P(TensorVariants, SixteenByteShapesWithEdgesMatchTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const auto v = GetParam();
  if (const std::string why = matmul::tensor::unavailable(v); !why.empty()) GTEST_SKIP() << why;  // sm_75
  for (const Shape& s : {Shape{8, 8, 8}, Shape{136, 264, 200}, Shape{72, 48, 40}, Shape{264, 520, 1032}}) {
    expect_bf16_matches_cpu(s, 0, matmul::tensor::variant_name(v), [&](const std::uint16_t* a, const std::uint16_t* b, float* c) {
      EXPECT_TRUE(matmul::tensor::vector_path(a, b, s.n, s.k));
      matmul::tensor::launch(v, a, b, c, s.m, s.n, s.k);
    });
  }
}

TEST_P(TensorVariants, RepeatedLaunchesGiveTheSameBits) {
  CUDALAB_REQUIRE_GPU();
  const auto v = GetParam();
  if (const std::string why = matmul::tensor::unavailable(v); !why.empty()) GTEST_SKIP() << why;  // sm_75
  const int m = 300, n = 264, k = 136;
  const auto a = matmul::bf16_bits_of(matmul::make_matrix(m, k, 5)), b = matmul::bf16_bits_of(matmul::make_matrix(k, n, 6));
  cudalab::DeviceBuffer<std::uint16_t> d_a(a), d_b(b);
  cudalab::DeviceBuffer<float> d_c(static_cast<std::size_t>(m) * n);
  EXPECT_TRUE(matmul::tensor::vector_path(d_a.data(), d_b.data(), n, k));
  matmul::tensor::launch(v, d_a.data(), d_b.data(), d_c.data(), m, n, k);
  const auto first = d_c.download();
  for (int i = 0; i < 3; ++i) {
    d_c.fill_bytes(0xFF);
    matmul::tensor::launch(v, d_a.data(), d_b.data(), d_c.data(), m, n, k);
    EXPECT_EQ(d_c.download(), first) << matmul::tensor::variant_name(v) << ": a race changes bits between runs";
  }
  EXPECT_THROW(matmul::tensor::launch(v, d_a.data(), d_b.data(), d_c.data(), 0, n, k), std::invalid_argument);
}

// Stream-K's runs at the shapes where they start and end inside tiles (on a 132-SM GPU):
// 1536 x 3072 x 136 is 144 tiles, a full round and 12 tiles' 36 slices over 132 runs, most of
// them empty; 1025^3 45 tiles of 17 slices, no full round, runs of 5 or 6 slices; 200 x 520 x
// 4096 6 tiles of 64 slices, each split over 22 blocks whose partials the last one adds in
// order; 130 x 262 x 1000 the same with C stored from registers (N not a multiple of 4), after
// launches that stored through the copy engine (the two kinds share the workspace's flags);
// 1280 x 2560 x 200 is 100 tiles, a round more than half full: whole tiles, 32 blocks idle.
TEST(MatmulStreamK, RunsThatSplitTilesMatchTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const auto v = matmul::tensor::Variant::kWgmmaStreamK;
  if (const std::string why = matmul::tensor::unavailable(v); !why.empty()) GTEST_SKIP() << why;
  for (const Shape& s : {Shape{1536, 3072, 136}, Shape{1025, 1025, 1025}, Shape{200, 520, 4096}, Shape{130, 262, 1000},
                         Shape{1280, 2560, 200}}) {
    expect_bf16_matches_cpu(s, 0, "wgmma_stream_k", [&](const std::uint16_t* a, const std::uint16_t* b, float* c) {
      matmul::tensor::launch(v, a, b, c, s.m, s.n, s.k);
    });
  }
}

// The cluster rung's pairs of tile rows: 4224 x 2304 x 200 is 33 tile rows (the last pair's
// second tile lies below C: zeros in, nothing stored) by 9 columns, 153 pairs, more than the
// clusters a GPU holds at once, so each cluster walks several and its stage ring runs on across
// them; 1100 x 1030 x 520 the same with N neither a multiple of 8 (A and B padded first) nor of 4
// (C stored from registers); 130 x 264 x 1000 one pair, K in 16 slices.
TEST(MatmulCluster, PairsOfTileRowsMatchTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const auto v = matmul::tensor::Variant::kWgmmaCluster;
  if (const std::string why = matmul::tensor::unavailable(v); !why.empty()) GTEST_SKIP() << why;
  for (const Shape& s : {Shape{4224, 2304, 200}, Shape{1100, 1030, 520}, Shape{130, 264, 1000}}) {
    expect_bf16_matches_cpu(s, 0, "wgmma_cluster", [&](const std::uint16_t* a, const std::uint16_t* b, float* c) {
      matmul::tensor::launch(v, a, b, c, s.m, s.n, s.k);
    });
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, TensorVariants, ::testing::ValuesIn(matmul::tensor::all_variants()),
                         [](const auto& variant) { return matmul::tensor::variant_name(variant.param); });

TEST(MatmulCublas, Bf16MatchesTheCpuAtOddShapes) {
  CUDALAB_REQUIRE_GPU();
  if (const std::string why = matmul::tensor::unavailable(matmul::tensor::Variant::kWmma); !why.empty()) GTEST_SKIP() << why;
  matmul::Cublas blas;
  for (const Shape& s : shapes()) {
    expect_bf16_matches_cpu(s, 0, "cublas_bf16", [&](const std::uint16_t* a, const std::uint16_t* b, float* c) {
      blas.gemm_bf16(a, b, c, s.m, s.n, s.k);
    });
  }
  // The FP32 product still runs in FP32 after a BF16 call (the handle's math mode goes back).
  expect_matches_cpu({129, 65, 1025}, 0, "cublas after gemm_bf16", [&](const float* a, const float* b, float* c) {
    blas.sgemm(a, b, c, 129, 65, 1025);
  });
}

}  // namespace
