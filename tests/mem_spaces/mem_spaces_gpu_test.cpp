// mem_spaces on the GPU: both rounds against the CPU model, the symbol read-back, every
// atomic and array variant, and the attribute report.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/random.hpp"
#include "gpu_test.hpp"
#include "mem_spaces.hpp"

namespace {

void check_round(int n, int block, const std::array<float, 4>& w) {
  mem_spaces::write_weights(w);
  EXPECT_EQ(mem_spaces::read_weights(), w);  // the symbol read-back
  const auto in = cudalab::random_vector<float>(static_cast<std::size_t>(n), cudalab::testing::seed(3 + n), -4.f, 4.f);
  cudalab::DeviceBuffer<float> d_in(in), d_out(static_cast<std::size_t>(n));
  d_out.fill_bytes(0xFF);
  const int blocks = (n + block - 1) / block;
  mem_spaces::reset_globals(blocks);
  mem_spaces::launch_demo(d_in.data(), d_out.data(), n, block);
  const auto model = mem_spaces::reference(in, block, w);
  const auto r = cudalab::check_exact(model.out, d_out.download());
  EXPECT_TRUE(r.ok()) << "n=" << n << " block=" << block << ": " << r.summary();
  const auto scratch = mem_spaces::read_scratch(blocks);
  for (int b = 0; b < blocks; ++b) {
    // Atomic float adds in any order: at most one rounding per addition.
    const double bound = block * std::ldexp(1.0, -24) * model.scratch_abs[b] + 1e-30;
    EXPECT_NEAR(scratch[b], model.scratch[b], bound) << "block " << b;
  }
  EXPECT_EQ(mem_spaces::read_block_count(), blocks);
}

// First in this file, and ctest runs every test in its own process: nothing has written
// c_weight yet, so it must hold the values of its declaration.
TEST(MemSpacesGpu, ConstantHoldsItsCompileTimeInitialiser) {
  CUDALAB_REQUIRE_GPU();
  EXPECT_EQ(mem_spaces::read_weights(), mem_spaces::kInitialWeights);
}

TEST(MemSpacesGpu, BothRoundsAtAwkwardSizes) {
  CUDALAB_REQUIRE_GPU();
  for (int block : {32, 128, 256, 1024}) {
    for (int n : {1, 31, block - 1, block, block + 1, 1000, 4096, 10007}) {
      if (n < 1) continue;
      check_round(n, block, mem_spaces::kInitialWeights);
      check_round(n, block, {1.f, 2.f, 3.f, 4.f});
    }
  }
}

TEST(MemSpacesGpu, EveryAtomicVariantSumsExactly) {
  CUDALAB_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1000}, std::size_t{1} << 20}) {
    for (int block : {32, 256, 1024}) {
      const auto v = cudalab::random_vector<int>(n, cudalab::testing::seed(n + block), -1000, 1000);
      long long expect = 0;
      for (int x : v) expect += x;
      cudalab::DeviceBuffer<int> d(v);
      cudalab::DeviceBuffer<unsigned long long> total(1);
      for (auto variant : mem_spaces::atomic_variants()) {
        total.fill_bytes(0);
        mem_spaces::launch_sum(variant, d.data(), n, total.data(), block);
        EXPECT_EQ(static_cast<long long>(total.download()[0]), expect)
            << mem_spaces::atomic_name(variant) << " n=" << n << " block=" << block;
      }
    }
  }
}

TEST(MemSpacesGpu, ArrayVariantsMatchTheReference) {
  CUDALAB_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{1000}, std::size_t{65537}}) {
    const auto in = cudalab::random_vector<unsigned>(n, cudalab::testing::seed(n), 0u, 0xFFFFFFFFu);
    cudalab::DeviceBuffer<unsigned> d_in(in), d_out(n);
    for (auto v : {mem_spaces::ArrayVariant::kLocalMemory, mem_spaces::ArrayVariant::kRegisters}) {
      d_out.fill_bytes(0xAB);
      mem_spaces::launch_array(v, d_in.data(), d_out.data(), n, 128);
      const auto out = d_out.download();
      std::vector<unsigned> expected(n);
      for (std::size_t i = 0; i < n; ++i) expected[i] = mem_spaces::array_reference(in, i);
      const auto r = cudalab::check_exact(expected, out);
      EXPECT_TRUE(r.ok()) << mem_spaces::array_name(v) << " n=" << n << ": " << r.summary();
    }
  }
}

TEST(MemSpacesGpu, AttributeReport) {
  CUDALAB_REQUIRE_GPU();
  EXPECT_GT(mem_spaces::array_attributes(mem_spaces::ArrayVariant::kLocalMemory).localSizeBytes, 0u);
  EXPECT_EQ(mem_spaces::array_attributes(mem_spaces::ArrayVariant::kRegisters).localSizeBytes, 0u);
  const auto demo = mem_spaces::demo_attributes();
  EXPECT_EQ(demo.localSizeBytes, 0u);
  EXPECT_EQ(demo.sharedSizeBytes, mem_spaces::kMaxBlock * sizeof(float));  // the static s_data array
  for (auto v : mem_spaces::atomic_variants()) EXPECT_EQ(mem_spaces::atomic_attributes(v).localSizeBytes, 0u);
}

TEST(MemSpacesGpu, SpreadSumsAreExactForEveryCountOfAddresses) {
  CUDALAB_REQUIRE_GPU();
  for (std::size_t n : {std::size_t{1}, std::size_t{31}, std::size_t{1000003}}) {
    const std::vector<int> values = cudalab::random_vector<int>(n, cudalab::testing::seed(n), -1000, 1000);
    cudalab::DeviceBuffer<int> d_values(values);
    for (int addresses : {1, 7, 32, 1024, 32768}) {
      cudalab::DeviceBuffer<unsigned long long> counters(static_cast<std::size_t>(addresses));
      counters.fill_bytes(0);
      mem_spaces::launch_spread_sum(d_values.data(), n, counters.data(), addresses, 128);
      const auto got = counters.download();
      const auto want = mem_spaces::spread_sum_reference(values, addresses);
      for (int a = 0; a < addresses; ++a) {
        ASSERT_EQ(static_cast<long long>(got[static_cast<std::size_t>(a)]), want[static_cast<std::size_t>(a)])
            << "n " << n << ", " << addresses << " addresses, counter " << a;
      }
    }
  }
  cudalab::DeviceBuffer<unsigned long long> one(1);
  EXPECT_THROW(mem_spaces::launch_spread_sum(nullptr, 1, one.data(), 0, 128), std::invalid_argument);
}

TEST(MemSpacesGpu, TableReadsFromConstantAndLdgMatchTheReference) {
  CUDALAB_REQUIRE_GPU();
  const std::vector<unsigned> words = cudalab::random_vector<unsigned>(mem_spaces::kTableWords, cudalab::testing::seed(9), 0u, 0xFFFFFFFFu);
  mem_spaces::write_table(words);
  for (std::size_t threads : {std::size_t{1}, std::size_t{33}, std::size_t{100003}}) {
    cudalab::DeviceBuffer<unsigned> out(threads);
    for (auto how : {mem_spaces::TableRead::kConstant, mem_spaces::TableRead::kLdg, mem_spaces::TableRead::kConstantKnown}) {
      for (int distinct : {1, 2, 4, 8, 16, 32}) {
        if (how == mem_spaces::TableRead::kConstantKnown && distinct != 1) continue;
        out.fill_bytes(0xAB);
        mem_spaces::launch_table_reads(how, distinct, out.data(), threads, 256);
        const auto got = out.download();
        for (std::size_t i = 0; i < threads; ++i) {
          ASSERT_EQ(got[i], how == mem_spaces::TableRead::kConstantKnown
                                ? mem_spaces::table_read_known_reference(words)
                                : mem_spaces::table_read_reference(words, distinct, static_cast<unsigned>(i % 32)))
              << mem_spaces::table_read_name(how) << ", " << distinct << " words, thread " << i << " of " << threads;
        }
      }
    }
  }
  cudalab::DeviceBuffer<unsigned> out(32);
  EXPECT_THROW(mem_spaces::launch_table_reads(mem_spaces::TableRead::kConstant, 3, out.data(), 32, 32), std::invalid_argument);
  EXPECT_THROW(mem_spaces::launch_table_reads(mem_spaces::TableRead::kConstantKnown, 2, out.data(), 32, 32),
               std::invalid_argument);
  EXPECT_THROW(mem_spaces::write_table(std::vector<unsigned>(5)), std::invalid_argument);
}

TEST(MemSpacesGpu, BilinearSamplesByHandAndByTheTextureUnitMatchTheCpu) {
  CUDALAB_REQUIRE_GPU();
  // one texel, a row, a column, odd shapes, edges clamped on every side
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {5, 1}, {1, 7}, {33, 17}, {1000, 3}}) {
    const auto image = cudalab::random_vector<float>(static_cast<std::size_t>(w) * h, cudalab::testing::seed(77), -4.0f, 4.0f);
    const mem_spaces::BilinearTexture tex(image, w, h);
    cudalab::DeviceBuffer<float> d_image(image), d_out(image.size());
    for (const auto& [fx, fy] : std::vector<std::pair<float, float>>{{0.0f, 0.0f}, {0.37f, 0.61f}, {0.9f, 0.05f}}) {
      for (auto how : {mem_spaces::Bilinear::kByHand, mem_spaces::Bilinear::kTexture}) {
        const bool texture = how == mem_spaces::Bilinear::kTexture;
        d_out.fill_bytes(0xAB);
        mem_spaces::launch_bilinear(how, tex, d_image.data(), d_out.data(), w, h, fx, fy);
        const auto got = d_out.download();
        for (int y = 0; y < h; ++y) {
          for (int x = 0; x < w; ++x) {
            const double want = mem_spaces::bilinear_reference(image, w, h, x, y, fx, fy);
            ASSERT_LE(std::fabs(got[static_cast<std::size_t>(y) * w + x] - want),
                      mem_spaces::bilinear_tolerance(image, w, h, x, y, texture))
                << (texture ? "tex2D" : "by hand") << " " << w << " x " << h << " at (" << x << ", " << y << "), f = " << fx << ", " << fy;
          }
        }
      }
    }
  }
  EXPECT_THROW(mem_spaces::BilinearTexture(std::vector<float>(5), 2, 2), std::invalid_argument);
}

}  // namespace
