// matmul on the CPU: the FP64 reference, the derived tolerance (it accepts FP32 rounding and
// refuses TF32 and BF16 inputs at the sizes the README names), the sampled check the lab uses at
// large sizes, and the notes' reuse arithmetic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "matmul.hpp"
#include "reference.hpp"
#include "tile_order.cuh"
#include "tensor.hpp"

namespace {

// x rounded to a float with `bits` mantissa bits (round to nearest even): TF32 10, BF16 7.
float round_mantissa(float x, int bits) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  const int drop = 23 - bits;
  const std::uint32_t half = (1u << (drop - 1)) - 1 + ((u >> drop) & 1u);
  u = (u + half) & ~((1u << drop) - 1);
  std::memcpy(&x, &u, 4);
  return x;
}

// C in FP32 with FMAs in the order a kernel uses (p = 0 .. k-1), inputs optionally rounded first.
std::vector<float> fp32_product(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
                                int mantissa_bits = 23) {
  std::vector<float> c(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0;
      for (int p = 0; p < k; ++p) {
        float x = a[static_cast<std::size_t>(i) * k + p], y = b[static_cast<std::size_t>(p) * n + j];
        if (mantissa_bits < 23) {
          x = round_mantissa(x, mantissa_bits);
          y = round_mantissa(y, mantissa_bits);
        }
        acc = std::fma(x, y, acc);
      }
      c[static_cast<std::size_t>(i) * n + j] = acc;
    }
  }
  return c;
}

TEST(MatmulReference, SmallProductByHand) {
  // [1 2; 3 4] [5 6; 7 8] = [19 22; 43 50]; sum |a||b| of element (0,0): 5 + 14
  const matmul::Product p = matmul::reference({1, 2, 3, 4}, {5, 6, 7, 8}, 2, 2, 2);
  EXPECT_EQ(p.c, (std::vector<double>{19, 22, 43, 50}));
  EXPECT_EQ(p.abs[0], 19.0);
  const matmul::Product q = matmul::reference({1, -2, 3}, {4, 5, 6}, 1, 1, 3);  // 4 - 10 + 18
  EXPECT_EQ(q.c[0], 12.0);
  EXPECT_EQ(q.abs[0], 32.0);
}

TEST(MatmulReference, RectangularAndKEqualsOne) {
  const matmul::Product p = matmul::reference({2, 3, 4}, {1, -1}, 3, 2, 1);  // outer product, 3 x 2
  EXPECT_EQ(p.c, (std::vector<double>{2, -2, 3, -3, 4, -4}));
}

TEST(MatmulTolerance, TheSmallerOfTheWorstCaseAndTheProbabilisticBound) {
  const double u = std::ldexp(1.0, -24);
  EXPECT_DOUBLE_EQ(matmul::dot_error_bound(1), u / (1 - u));                     // K < 64: K u / (1 - K u)
  EXPECT_DOUBLE_EQ(matmul::dot_error_bound(4096), 8.0 * 64.0 * u);               // 8 sqrt(K) u
  EXPECT_LT(matmul::dot_error_bound(4096), 4096 * u);
  EXPECT_NEAR(matmul::dot_error_bound(63), 63 * u / (1 - 63 * u), 1e-20);
}

TEST(MatmulTolerance, AcceptsFp32RoundingAtEveryOrderOfSummation) {
  for (int k : {1, 2, 17, 64, 127, 1025}) {
    const int m = 9, n = 7;
    const auto a = matmul::make_matrix(m, k, 1), b = matmul::make_matrix(k, n, 2);
    const matmul::Product ref = matmul::reference(a, b, m, n, k);
    EXPECT_TRUE(matmul::check_product(ref, fp32_product(a, b, m, n, k), k).ok()) << "k = " << k;
    // the same sums added backwards and pairwise: other orders, the same bound
    std::vector<float> backwards(static_cast<std::size_t>(m) * n);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        float acc = 0;
        for (int p = k - 1; p >= 0; --p) acc = std::fma(a[static_cast<std::size_t>(i) * k + p], b[static_cast<std::size_t>(p) * n + j], acc);
        backwards[static_cast<std::size_t>(i) * n + j] = acc;
      }
    }
    EXPECT_TRUE(matmul::check_product(ref, backwards, k).ok()) << "k = " << k;
  }
}

TEST(MatmulTolerance, RefusesTf32AndBf16Inputs) {
  const int m = 32, n = 32;
  for (int k : {64, 127, 256}) {
    const auto a = matmul::make_matrix(m, k, 3), b = matmul::make_matrix(k, n, 4);
    const matmul::Product ref = matmul::reference(a, b, m, n, k);
    EXPECT_FALSE(matmul::check_product(ref, fp32_product(a, b, m, n, k, 10), k).ok()) << "TF32, k = " << k;
    EXPECT_FALSE(matmul::check_product(ref, fp32_product(a, b, m, n, k, 7), k).ok()) << "BF16, k = " << k;
  }
}

// Random signs let TF32's roundings cancel, so past K ~ 1000 it passes on make_matrix's inputs; on
// fp32_exposing_matrix's it fails at every K the tests use, and FP32 in either order still passes.
TEST(MatmulTolerance, ExposingInputsRefuseLowerPrecisionsAtEveryK) {
  const int m = 4, n = 4;
  for (int k : {1, 2, 64, 1025, 4097, 16384}) {
    const auto a = matmul::fp32_exposing_matrix(m, k, 5 + k, true), b = matmul::fp32_exposing_matrix(k, n, 6 + k, false);
    const matmul::Product ref = matmul::reference(a, b, m, n, k);
    EXPECT_TRUE(matmul::check_product(ref, fp32_product(a, b, m, n, k), k).ok()) << "FP32, k = " << k;
    for (int bits : {10, 7}) {  // TF32 and FP16 keep 10 bits, BF16 7
      const cudalab::CheckResult r = matmul::check_product(ref, fp32_product(a, b, m, n, k, bits), k);
      EXPECT_GE(r.mismatches, static_cast<std::size_t>(m * n) * 9 / 10) << bits << " bits, k = " << k;
    }
  }
  // a random walk of roundings: the same sizes with inputs in [-1, 1) let TF32 through at large K
  const int k = 16384;
  const auto a = matmul::make_matrix(m, k, 7), b = matmul::make_matrix(k, n, 8);
  EXPECT_TRUE(matmul::check_product(matmul::reference(a, b, m, n, k), fp32_product(a, b, m, n, k, 10), k).ok());
}

TEST(MatmulTolerance, ExposingInputsRoundTowardsZeroWithOneSignPerProduct) {
  const std::size_t rows = 37, cols = 41;
  const auto a = matmul::fp32_exposing_matrix(rows, cols, 11, true), b = matmul::fp32_exposing_matrix(rows, cols, 11, false);
  EXPECT_NE(a, matmul::fp32_exposing_matrix(rows, cols, 12, true));
  int negative_rows = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    negative_rows += a[i * cols] < 0;
    for (std::size_t j = 0; j < cols; ++j) {
      const float x = a[i * cols + j], y = b[i * cols + j];
      EXPECT_EQ(std::signbit(x), std::signbit(a[i * cols])) << "one sign per row of A";
      EXPECT_EQ(std::signbit(y), std::signbit(b[j])) << "one sign per column of B";
      EXPECT_GE(std::fabs(x), 0.5f / 16);
      EXPECT_LT(std::fabs(x), 16.0f);
      for (int bits : {10, 7}) {
        EXPECT_LT(std::fabs(round_mantissa(x, bits)), std::fabs(x)) << "rounds towards zero: " << bits << " bits";
      }
      EXPECT_LT(std::fabs(matmul::from_bf16_bits(matmul::to_bf16_bits(x))), std::fabs(x));
    }
  }
  EXPECT_GT(negative_rows, 0);
  EXPECT_LT(negative_rows, static_cast<int>(rows));
}

TEST(MatmulTolerance, NanAndOneWrongElementFail) {
  const int m = 5, n = 6, k = 7;
  const auto a = matmul::make_matrix(m, k, 5), b = matmul::make_matrix(k, n, 6);
  const matmul::Product ref = matmul::reference(a, b, m, n, k);
  auto c = fp32_product(a, b, m, n, k);
  ASSERT_TRUE(matmul::check_product(ref, c, k).ok());
  c[13] = std::nanf("");
  EXPECT_EQ(matmul::check_product(ref, c, k).mismatches, 1u);
  c = fp32_product(a, b, m, n, k);
  c[29] = std::nextafter(std::nextafter(c[29], 1e9f), 1e9f) * 1.001f;
  EXPECT_EQ(matmul::check_product(ref, c, k).mismatches, 1u);
}

TEST(MatmulSampledReference, FirstLastAndSpreadLinesOnce) {
  const auto a = matmul::make_matrix(100, 8, 7), b = matmul::make_matrix(8, 3, 8);
  const matmul::SampledReference ref(a, b, 100, 3, 8, 5);
  EXPECT_EQ(ref.rows(), (std::vector<int>{0, 24, 49, 74, 99}));
  EXPECT_EQ(ref.cols(), (std::vector<int>{0, 1, 2}));  // 3 columns: each once
  const matmul::SampledReference one(a, b, 1, 1, 8, 16);
  EXPECT_EQ(one.rows(), (std::vector<int>{0}));
}

TEST(MatmulSampledReference, CatchesASampledErrorAndAnyElementAgainstTheTrustedResult) {
  const int m = 40, n = 36, k = 50;
  const auto a = matmul::make_matrix(m, k, 9), b = matmul::make_matrix(k, n, 10);
  const matmul::SampledReference ref(a, b, m, n, k, 4);
  const auto good = fp32_product(a, b, m, n, k);
  EXPECT_TRUE(ref.check_sampled(good).ok());
  EXPECT_TRUE(ref.check_against(good, good).ok());
  auto bad = good;
  bad[static_cast<std::size_t>(m - 1) * n + 5] += 0.5f;  // the last row is sampled
  EXPECT_FALSE(ref.check_sampled(bad).ok());
  bad = good;
  bad[static_cast<std::size_t>(7) * n + 6] += 0.01f;  // row 7, column 6: not sampled ...
  EXPECT_TRUE(ref.check_sampled(bad).ok());
  EXPECT_FALSE(ref.check_against(bad, good).ok());  // ... but every element meets the trusted one
}

TEST(MatmulArithmetic, TiledLoadsAre2NCubedOverTNotNSquared) {
  // errata: the hardware note's "O(N^3) -> O(N^2)"; a fixed T x T tile loads 2 N^3 / T elements
  for (long long n : {256LL, 1024LL, 4096LL}) {
    for (long long t : {16LL, 32LL}) {
      const double nd = static_cast<double>(n), td = static_cast<double>(t);
      EXPECT_DOUBLE_EQ(matmul::tiled_global_loads(n, n, n, t), 2.0 * nd * nd * nd / td);
    }
  }
  // doubling N multiplies the loads by 8, as N^3 does, not by 4
  EXPECT_DOUBLE_EQ(matmul::tiled_global_loads(2048, 2048, 2048, 32) / matmul::tiled_global_loads(1024, 1024, 1024, 32), 8.0);
  // partial tiles load whole tiles: 33^3 with T = 32 is 2 x 2 x 2 blocks x steps of 2 x 32^2
  EXPECT_DOUBLE_EQ(matmul::tiled_global_loads(33, 33, 33, 32), 8.0 * 2 * 32 * 32);
}

TEST(MatmulArithmetic, TheNotesBandwidthBound) {
  EXPECT_DOUBLE_EQ(matmul::flops_bound_by_bandwidth(150e9, 4), 37.5e9);        // "150 GB/s implies 37.5 GFLOPs"
  EXPECT_DOUBLE_EQ(matmul::flops_bound_by_bandwidth(1555e9, 4), 388.75e9);     // the A100: 2 % of 19.5 TFLOP/s
  EXPECT_NEAR(matmul::flops(4096, 4096, 4096), 137.4e9, 0.1e9);
  EXPECT_DOUBLE_EQ(matmul::min_bytes(2, 3, 4), 4.0 * (8 + 12 + 6));
  // y = W x: about b / 2 FLOP per byte while W dominates the bytes
  EXPECT_NEAR(matmul::batched_gemv_intensity(8192, 8192, 1), 0.5, 0.001);
  EXPECT_NEAR(matmul::batched_gemv_intensity(8192, 8192, 32), 15.9, 0.1);
}

TEST(MatmulArithmetic, TheKneeIsWhereEveryDoublingCostsTime) {
  // flat with a dip at b = 2 (a library's kernel change), then growing from b = 32
  EXPECT_EQ(matmul::knee_of({{1, 0.09}, {2, 0.24}, {4, 0.14}, {8, 0.14}, {16, 0.14}, {32, 0.14}, {64, 0.20},
                             {128, 0.34}, {256, 0.72}, {512, 1.35}}),
            32);
  EXPECT_EQ(matmul::knee_of({{1, 1.0}, {2, 1.0}, {4, 1.0}}), 0);       // never rises
  // the predicted knee: the first batch (to 1 %) whose intensity reaches the ridge
  for (double ridge : {1.0, 14.0, 60.0}) {
    const double knee = matmul::predicted_knee(8192, 8192, ridge);
    EXPECT_GE(matmul::batched_gemv_intensity(8192, 8192, knee), ridge) << ridge;
    EXPECT_LT(matmul::batched_gemv_intensity(8192, 8192, knee / 1.01), ridge) << ridge;
  }
  EXPECT_EQ(matmul::predicted_knee(8192, 8192, 0.1), 1.0);  // reached by one vector
  EXPECT_EQ(matmul::knee_of({{1, 1.0}, {2, 2.0}, {4, 4.0}}), 1);       // rising from the start
  EXPECT_EQ(matmul::knee_of({{1, 1.0}}), 0);
  EXPECT_EQ(matmul::knee_of({{1, 1.0}, {2, 2.0}, {4, 2.1}}), 0);       // the last doubling is flat
}

TEST(MatmulTable, EveryVariantHasANameTraitsAndAPredictedReuse) {
  const auto& all = matmul::all_variants();
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(matmul::variant_name(all.front()), "naive");
  EXPECT_EQ(matmul::variant_name(all.back()), "async_pipeline");
  double previous = 3;
  for (auto v : all) {
    const matmul::Traits& t = matmul::traits(v);
    const double loads = matmul::Tile{t.block_m, t.block_n}.loads_per_fma();
    EXPECT_LE(loads, previous) << matmul::variant_name(v) << ": each rung reuses at least as much";
    previous = loads;
    EXPECT_GT(t.threads, 0);
    EXPECT_LE(t.threads, 1024);
    matmul::Variant parsed{};
    EXPECT_TRUE(matmul::parse_variant(matmul::variant_name(v), &parsed));
    EXPECT_EQ(parsed, v);
  }
  const auto loads_of = [](matmul::Variant v) {
    return matmul::Tile{matmul::traits(v).block_m, matmul::traits(v).block_n}.loads_per_fma();
  };
  EXPECT_DOUBLE_EQ(loads_of(matmul::Variant::kNaive), 2.0);
  EXPECT_DOUBLE_EQ(loads_of(matmul::Variant::kSmem32), 2.0 / 32);
  EXPECT_DOUBLE_EQ(loads_of(matmul::Variant::kRegTile2d), 1.0 / 64);
}

// The grouped tile order (tile_order.cuh) is a bijection of the tile numbers onto the grid for
// every shape, the last group short or not, and hands out group_rows rows column by column.
TEST(TileOrder, GroupedOrderCoversEveryTileOnce) {
  for (int tiles_m : {1, 3, 8, 9, 64, 65}) {
    for (int tiles_n : {1, 2, 32, 33}) {
      for (int group : {1, 8, 16}) {
        std::vector<int> seen(static_cast<std::size_t>(tiles_m * tiles_n), 0);
        for (int id = 0; id < tiles_m * tiles_n; ++id) {
          const matmul::TileAt t = matmul::grouped_tile_of(id, tiles_n, tiles_m, group);
          ASSERT_GE(t.row, 0);
          ASSERT_LT(t.row, tiles_m);
          ASSERT_GE(t.col, 0);
          ASSERT_LT(t.col, tiles_n);
          ++seen[static_cast<std::size_t>(t.row * tiles_n + t.col)];
        }
        for (int x : seen) EXPECT_EQ(x, 1) << tiles_m << " x " << tiles_n << " in groups of " << group;
      }
    }
  }
  // 64 x 32 tiles in groups of 8: the first 8 go down column 0, the 9th starts column 1.
  EXPECT_EQ(matmul::grouped_tile_of(7, 32, 64, 8).row, 7);
  EXPECT_EQ(matmul::grouped_tile_of(7, 32, 64, 8).col, 0);
  EXPECT_EQ(matmul::grouped_tile_of(8, 32, 64, 8).row, 0);
  EXPECT_EQ(matmul::grouped_tile_of(8, 32, 64, 8).col, 1);
  EXPECT_EQ(matmul::grouped_tile_of(256, 32, 64, 8).row, 8);  // the second group of rows
}

// Stream-K's plan (tile_order.cuh), simulated on the host as the kernel walks it: every slice of
// every tile is done by exactly one block; each block leaves at most one partial sum (a piece that
// ends inside a tile), and it is the first piece of its run; each tile has exactly one piece that
// holds its last slice, and the partials that piece's block adds (first_block_of(tile) up to
// itself, skipping blocks with no slices) are exactly the tile's other pieces, all from blocks of
// a lower index, so no block waits on one launched after it.
TEST(TileOrder, StreamKCoversEverySliceOnceAndWaitsOnlyBackwards) {
  struct Piece {
    int block, i0, i1;
  };
  for (int sms : {1, 7, 132}) {
    for (int tiles : {1, 2, 45, 131, 132, 133, 144, 198, 199, 2048}) {
      for (int slices : {1, 2, 5, 17, 64, 128}) {
        const matmul::StreamK w = matmul::stream_k_plan(tiles, slices, sms);
        const std::string at = std::to_string(tiles) + " tiles of " + std::to_string(slices) + " on " + std::to_string(sms);
        ASSERT_GE(w.grid, 1) << at;
        ASSERT_LE(w.grid, sms) << at;
        ASSERT_LE(static_cast<long long>(w.grid), static_cast<long long>(tiles) * slices) << at;
        std::vector<std::vector<int>> done(static_cast<std::size_t>(tiles), std::vector<int>(slices, 0));
        std::vector<std::vector<Piece>> pieces(static_cast<std::size_t>(tiles));
        for (int b = 0; b < w.grid; ++b) {
          int order = 0, partials = 0;
          matmul::for_each_piece(w, b, [&](int tile, int i0, int i1) {
            ASSERT_GE(tile, 0);
            ASSERT_LT(tile, tiles);
            ASSERT_LT(i0, i1);
            ASSERT_LE(i1, slices);
            for (int i = i0; i < i1; ++i) ++done[tile][i];
            pieces[tile].push_back({b, i0, i1});
            if (i1 < slices) {
              ++partials;
              EXPECT_EQ(order, w.dp_rounds) << at << ": block " << b << "'s partial is not its run's first piece";
            }
            ++order;
          });
          EXPECT_LE(partials, 1) << at << ", block " << b;
        }
        for (int t = 0; t < tiles; ++t) {
          for (int i = 0; i < slices; ++i) ASSERT_EQ(done[t][i], 1) << at << ": tile " << t << ", slice " << i;
          int last = -1;
          std::vector<int> others;
          for (const Piece& p : pieces[t]) {
            if (p.i1 == slices) {
              EXPECT_EQ(last, -1) << at << ": tile " << t << " has two last pieces";
              last = p.block;
            } else {
              others.push_back(p.block);
            }
          }
          ASSERT_GE(last, 0) << at << ": tile " << t;
          std::vector<int> added;
          if (t >= w.dp_tiles() && pieces[t].size() > 1) {
            for (int j = w.first_block_of(t); j < last; ++j) {
              if (w.start(j) != w.start(j + 1)) added.push_back(j);
            }
          }
          std::sort(others.begin(), others.end());
          EXPECT_EQ(added, others) << at << ": tile " << t;
          for (int j : others) EXPECT_LT(j, last) << at << ": tile " << t;
        }
      }
    }
  }
  // On 132 SMs: 1025^3's 45 tiles of 17 slices are all split (765 slices over 132 runs); 8192^3's
  // 2,048 tiles (15 rounds and 68) and 4096^3's 512 (3 rounds and 116) fill the last round at
  // least half: 16 and 4 rounds of whole tiles, nothing split. 198 tiles leave 66 of 132 (split),
  // 199 leave 67 (whole).
  const matmul::StreamK small = matmul::stream_k_plan(45, 17, 132);
  EXPECT_EQ(small.grid, 132);
  EXPECT_EQ(small.dp_rounds, 0);
  EXPECT_EQ(small.sk_slices, 45LL * 17);
  const matmul::StreamK big = matmul::stream_k_plan(2048, 128, 132);
  EXPECT_EQ(big.dp_rounds, 16);
  EXPECT_EQ(big.sk_slices, 0);
  const matmul::StreamK mid = matmul::stream_k_plan(512, 64, 132);
  EXPECT_EQ(mid.dp_rounds, 4);
  EXPECT_EQ(mid.sk_slices, 0);
  const matmul::StreamK half = matmul::stream_k_plan(198, 64, 132);
  EXPECT_EQ(half.dp_rounds, 1);
  EXPECT_EQ(half.sk_slices, 66LL * 64);
  const matmul::StreamK more = matmul::stream_k_plan(199, 64, 132);
  EXPECT_EQ(more.dp_rounds, 2);
  EXPECT_EQ(more.sk_slices, 0);
}

TEST(Bf16, RoundsToNearestEvenAndBack) {
  EXPECT_EQ(matmul::to_bf16_bits(1.0f), 0x3F80);
  EXPECT_EQ(matmul::from_bf16_bits(0x3F80), 1.0f);
  EXPECT_EQ(matmul::to_bf16_bits(-2.0f), 0xC000);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: to the even one, 1. 1 + 3 * 2^-8: up.
  EXPECT_EQ(matmul::from_bf16_bits(matmul::to_bf16_bits(1.0f + 1.0f / 256)), 1.0f);
  EXPECT_EQ(matmul::from_bf16_bits(matmul::to_bf16_bits(1.0f + 3.0f / 256)), 1.0f + 1.0f / 64);
  EXPECT_EQ(matmul::from_bf16_bits(matmul::to_bf16_bits(1.0f + 1.0f / 512)), 1.0f);         // below half: down
  EXPECT_EQ(matmul::from_bf16_bits(matmul::to_bf16_bits(1.0f + 1.0f / 200)), 1.0f + 1.0f / 128);  // above: up
  EXPECT_TRUE(std::isnan(matmul::from_bf16_bits(matmul::to_bf16_bits(std::nanf("")))));
  EXPECT_TRUE(std::isinf(matmul::from_bf16_bits(matmul::to_bf16_bits(3.4e38f))));  // past BF16's largest: infinity
  // Rounded values are fixed points, and negation commutes with rounding (the -A input set).
  for (float x : matmul::rounded_to_bf16(matmul::make_matrix(1, 1000, 3))) {
    EXPECT_EQ(matmul::from_bf16_bits(matmul::to_bf16_bits(x)), x);
    EXPECT_EQ(matmul::from_bf16_bits(matmul::to_bf16_bits(-x)), -x);
  }
  EXPECT_EQ(matmul::bf16_bits_of({1.0f, -2.0f}), (std::vector<std::uint16_t>{0x3F80, 0xC000}));
}

TEST(Bf16, TensorCoreBoundIsTheWorstCaseAtTwiceTheUnit) {
  const double u2 = 2.0 / 16777216.0;
  EXPECT_DOUBLE_EQ(matmul::bf16_dot_error_bound(1), u2 / (1 - u2));
  EXPECT_NEAR(matmul::bf16_dot_error_bound(8192), 8192 * u2 / (1 - 8192 * u2), 1e-18);
  EXPECT_GT(matmul::bf16_dot_error_bound(4096), matmul::dot_error_bound(4096));  // looser than FP32's
  // A product of BF16 values is exact in FP32: 8 + 8 significant bits.
  const auto a = matmul::rounded_to_bf16(matmul::make_matrix(1, 100, 7)), b = matmul::rounded_to_bf16(matmul::make_matrix(1, 100, 8));
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_EQ(static_cast<double>(a[i] * b[i]), static_cast<double>(a[i]) * b[i]);
  // One element off by one product's size fails the check; the exact product passes.
  const int m = 3, n = 4, k = 100;
  const auto x = matmul::rounded_to_bf16(matmul::make_matrix(m, k, 9)), y = matmul::rounded_to_bf16(matmul::make_matrix(k, n, 10));
  const matmul::Product ref = matmul::reference(x, y, m, n, k);
  std::vector<float> got(ref.c.begin(), ref.c.end());
  EXPECT_TRUE(matmul::check_product(ref, got, k, matmul::bf16_dot_error_bound(k)).ok());
  got[5] += 0.25f;
  EXPECT_FALSE(matmul::check_product(ref, got, k, matmul::bf16_dot_error_bound(k)).ok());
}

TEST(Bf16, MinBytesCountTwoBytesAnInputElement) {
  EXPECT_DOUBLE_EQ(matmul::min_bytes_bf16(2, 3, 4), 2.0 * (8 + 12) + 4.0 * 6);
  EXPECT_LT(matmul::min_bytes_bf16(4096, 4096, 4096), matmul::min_bytes(4096, 4096, 4096));
}

TEST(TensorVariants, NamesRoundTripAndShapes) {
  for (auto v : matmul::tensor::all_variants()) {
    matmul::tensor::Variant back{};
    ASSERT_TRUE(matmul::tensor::parse_variant(matmul::tensor::variant_name(v), &back));
    EXPECT_EQ(back, v);
    const matmul::tensor::Shape s = matmul::tensor::shape(v);
    EXPECT_EQ(s.block_m % 16, 0);
    EXPECT_EQ(s.block_n % 16, 0);
    EXPECT_EQ(s.block_k % 16, 0);
    EXPECT_EQ(s.threads % 32, 0);
  }
  EXPECT_GE(matmul::tensor::all_variants().size(), 2u);  // grows with the table
  matmul::tensor::Variant none{};
  EXPECT_FALSE(matmul::tensor::parse_variant("naive", &none));  // the SIMT rungs are another table
}

TEST(TensorVariants, SixteenBytePathNeedsMultiplesOfEightAndAlignment) {
  alignas(16) static std::uint16_t buf[64];
  EXPECT_TRUE(matmul::tensor::vector_path(buf, buf, 64, 64));
  EXPECT_FALSE(matmul::tensor::vector_path(buf, buf, 60, 64));
  EXPECT_FALSE(matmul::tensor::vector_path(buf, buf, 64, 36));
  EXPECT_FALSE(matmul::tensor::vector_path(buf + 1, buf, 64, 64));
  EXPECT_FALSE(matmul::tensor::vector_path(buf, buf + 4, 64, 64));
}

TEST(TensorVariants, LayoutsPredictTheBankConflictsOfLdmatrix) {
  using matmul::tensor::Variant;
  // As they are: A's rows 64 bytes apart, 4 rows of a matrix in the same banks; B's 256 bytes apart,
  // all 8. Padded or swizzled: one pass. Every element in a place of its own.
  const auto plain = matmul::tensor::layout_check(Variant::kMmaSyncPlain);
  EXPECT_EQ(plain.a_passes, 4);
  EXPECT_EQ(plain.b_passes, 8);
  for (auto v : {Variant::kMmaSyncPadded, Variant::kMmaSyncSwizzled, Variant::kMmaSyncWide, Variant::kMmaSyncPipelined}) {
    const auto l = matmul::tensor::layout_check(v);
    EXPECT_EQ(l.a_passes, 1) << matmul::tensor::variant_name(v);
    EXPECT_EQ(l.b_passes, 1) << matmul::tensor::variant_name(v);
  }
  for (auto v : {Variant::kMmaSyncPlain, Variant::kMmaSyncPadded, Variant::kMmaSyncSwizzled, Variant::kMmaSyncWide, Variant::kMmaSyncPipelined}) {
    const auto l = matmul::tensor::layout_check(v);
    EXPECT_TRUE(l.a_one_to_one && l.b_one_to_one) << matmul::tensor::variant_name(v);
  }
  for (auto v : {Variant::kWmma, Variant::kWgmmaTma, Variant::kWgmmaWarpSpecialized, Variant::kWgmmaGrouped,
                 Variant::kWgmmaPersistent, Variant::kWgmmaTmaStore, Variant::kWgmmaStreamK,
                 Variant::kWgmmaCluster}) {
    EXPECT_THROW(matmul::tensor::layout_check(v), std::invalid_argument) << matmul::tensor::variant_name(v);
  }
}

}  // namespace
