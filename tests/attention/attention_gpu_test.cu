// Every attention variant against the CPU at odd sizes: softmax (FP32 and BF16) at row lengths
// around its pieces of 4, its 256- and 1,024-thread blocks and its limit; the prefill (fused SIMT,
// mma.sync, and the unfused cuBLAS path) at 1, 17, 64, 65 and 1,025 tokens, head dims 64 and 128,
// causal and not, every row of every head checked; the decode per head and split, at cache
// lengths around the split's 256 keys; into poisoned outputs, on inputs from the run's seed. And
// the checks themselves: a wrong element, a row left unwritten and a replayed result fail.
#include <gtest/gtest.h>

#include <initializer_list>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "attention.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/variants.hpp"
#include "gpu_test.hpp"
#include "problem.hpp"
#include "reference.hpp"

namespace {

using attention::Elem;
using attention::Kind;
using attention::Variant;

std::vector<Variant> of_kind(Kind k) {
  return cudalab::variants_where(attention::all_variants(), [k](Variant v) { return attention::kind_of(v) == k; });
}

// ---- softmax ----------------------------------------------------------------------------------

class SoftmaxSizes : public ::testing::TestWithParam<std::tuple<Variant, Elem, int>> {};

std::string softmax_name(const ::testing::TestParamInfo<SoftmaxSizes::ParamType>& p) {
  return attention::variant_name(std::get<0>(p.param)) + (std::get<1>(p.param) == Elem::kF32 ? "_f32_" : "_bf16_") +
         std::to_string(std::get<2>(p.param));
}

TEST_P(SoftmaxSizes, EveryRowMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, e, cols] = GetParam();
  const int rows = cols > 8192 ? 3 : 5;
  attention::SoftmaxProblem p(rows, cols, e, cudalab::testing::seed(static_cast<std::uint64_t>(cols)),
                              cudalab::Replays::kNotChecked, -1);
  p.poison();
  auto rungs = p.rungs({v});
  ASSERT_EQ(rungs.size(), 1u);
  rungs[0].launch();
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_TRUE(p.check(attention::variant_name(v)));
}

INSTANTIATE_TEST_SUITE_P(Variants, SoftmaxSizes,
                         ::testing::Combine(::testing::ValuesIn(of_kind(Kind::kSoftmax)),
                                            ::testing::Values(Elem::kF32, Elem::kBf16),
                                            ::testing::Values(1, 3, 17, 1000, 1024, 1029, 2000, 4096, 8192, 8193, 32768)),
                         softmax_name);

// On each repetition's fresh inputs the output of the base inputs is a replay the check refuses,
// and a launch on them matches their answer; then the base inputs and their output again.
template <typename Problem>
void expect_fresh_sets_catch_a_replay(Problem& p, const cudalab::Rung& rung, std::initializer_list<int> reps,
                                      const std::string& what) {
  for (int rep : reps) {
    p.replay_sets()->use_rep(rep);
    EXPECT_FALSE(p.check("replayed")) << what << ", repetition " << rep;
    rung.launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(p.check(what)) << what << ", repetition " << rep;
    p.replay_sets()->use(0);
    rung.launch();
    CUDA_CHECK(cudaDeviceSynchronize());
  }
}

TEST(SoftmaxCheck, ARowLeftUnwrittenAndAReplayedResultFail) {
  CUDALAB_REQUIRE_GPU();
  attention::SoftmaxProblem p(300, 257, Elem::kF32, cudalab::testing::seed(3), cudalab::Replays::kCaught);
  auto rungs = p.rungs({Variant::kSoftmaxRegisters});
  p.poison();
  rungs[0].launch();
  CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_TRUE(p.check("registers"));
  // The fresh rows of the timed launches (each row rotated by another number of columns): the
  // output of the base rows is a replay there, and a launch on them matches their own answer.
  testing::internal::CaptureStderr();
  expect_fresh_sets_catch_a_replay(p, rungs[0], {0, 1, 2, 7}, "registers on fresh rows");
  // One row left as the poison (NaN): wherever it is, the check's pass over every row sees it.
  CUDA_CHECK(cudaMemset(p.output_bytes() + 150 * 257 * sizeof(float), 0xFF, 257 * sizeof(float)));
  EXPECT_FALSE(p.check("a row unwritten"));
  testing::internal::GetCapturedStderr();
}

// ---- prefill ------------------------------------------------------------------------------------

struct PrefillCase {
  int heads, seq, d;
  bool causal;
};

class PrefillSizes : public ::testing::TestWithParam<std::tuple<Variant, PrefillCase>> {};

std::string prefill_name(const ::testing::TestParamInfo<PrefillSizes::ParamType>& p) {
  const PrefillCase& c = std::get<1>(p.param);
  return attention::variant_name(std::get<0>(p.param)) + "_h" + std::to_string(c.heads) + "_s" + std::to_string(c.seq) +
         "_d" + std::to_string(c.d) + (c.causal ? "_causal" : "_full");
}

void run_attention(Kind kind, const attention::Shape& s, Variant v, bool unfused, std::uint64_t seed) {
  if (const std::string why = attention::unavailable(v); !why.empty()) GTEST_SKIP() << why;
  attention::AttentionProblem p(kind, s, seed, cudalab::Replays::kNotChecked, unfused, -1);
  auto rungs = p.rungs({v});
  ASSERT_EQ(rungs.size(), unfused ? 2u : 1u);
  for (auto& r : rungs) {
    p.poison();
    r.launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    EXPECT_TRUE(p.check(r.name)) << r.name << " heads " << s.heads << " q " << s.q_len << " kv " << s.kv_len << " d "
                                 << s.d << (s.causal ? " causal" : "");
  }
}

TEST_P(PrefillSizes, EveryRowOfEveryHeadMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, c] = GetParam();
  const attention::Shape s{c.heads, c.seq, c.seq, c.d, c.causal};
  // The unfused path beside the first fused variant only (it is the same for every variant).
  const bool unfused = v == of_kind(Kind::kPrefill).front();
  run_attention(Kind::kPrefill, s, v, unfused, cudalab::testing::seed(static_cast<std::uint64_t>(c.seq * 131 + c.d)));
}

std::vector<PrefillCase> prefill_cases() {
  std::vector<PrefillCase> out;
  for (int d : {64, 128}) {
    for (bool causal : {false, true}) {
      for (int seq : {1, 17, 64, 65, 130}) out.push_back({3, seq, d, causal});
      out.push_back({1, 1025, d, causal});
    }
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Variants, PrefillSizes,
                         ::testing::Combine(::testing::ValuesIn(of_kind(Kind::kPrefill)), ::testing::ValuesIn(prefill_cases())),
                         prefill_name);

TEST(PrefillShape, ACausalPrefillOfMoreQueriesThanKeysAndADim96AreRefused) {
  CUDALAB_REQUIRE_GPU();
  cudalab::DeviceBuffer<std::uint16_t> buf(4096);
  const attention::Shape more{1, 8, 4, 64, true}, d96{1, 8, 8, 96, false};
  EXPECT_THROW(attention::attend(Variant::kPrefillFusedSimt, more, buf.data(), buf.data(), buf.data(), buf.data(), nullptr),
               std::invalid_argument);
  EXPECT_THROW(attention::attend(Variant::kPrefillMmaSync, d96, buf.data(), buf.data(), buf.data(), buf.data(), nullptr),
               std::invalid_argument);
  EXPECT_THROW(attention::attend(Variant::kSoftmaxOnline, d96, buf.data(), buf.data(), buf.data(), buf.data(), nullptr),
               std::invalid_argument);
}

TEST(PrefillCheck, AWrongElementAndAReplayFail) {
  CUDALAB_REQUIRE_GPU();
  const attention::Shape s{2, 70, 70, 64, true};
  attention::AttentionProblem p(Kind::kPrefill, s, cudalab::testing::seed(9), cudalab::Replays::kCaught, false, -1);
  auto rungs = p.rungs({Variant::kPrefillMmaSync});
  p.poison();
  rungs[0].launch();
  CUDA_CHECK(cudaDeviceSynchronize());
  ASSERT_TRUE(p.check("mma"));
  testing::internal::CaptureStderr();
  expect_fresh_sets_catch_a_replay(p, rungs[0], {0, 1, 2, 9}, "mma on a fresh V");  // V times +-2^k
  testing::internal::GetCapturedStderr();
}

// ---- decode -------------------------------------------------------------------------------------

class DecodeSizes : public ::testing::TestWithParam<std::tuple<Variant, int, int>> {};

std::string decode_name(const ::testing::TestParamInfo<DecodeSizes::ParamType>& p) {
  return attention::variant_name(std::get<0>(p.param)) + "_d" + std::to_string(std::get<1>(p.param)) + "_kv" +
         std::to_string(std::get<2>(p.param));
}

TEST_P(DecodeSizes, EveryHeadMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  const auto [v, d, kv] = GetParam();
  const attention::Shape s{3, 1, kv, d, false};
  run_attention(Kind::kDecode, s, v, false, cudalab::testing::seed(static_cast<std::uint64_t>(kv * 7 + d)));
}

INSTANTIATE_TEST_SUITE_P(Variants, DecodeSizes,
                         ::testing::Combine(::testing::ValuesIn(of_kind(Kind::kDecode)), ::testing::Values(64, 128),
                                            ::testing::Values(1, 17, 255, 256, 257, 1000, 5000, 70001)),
                         decode_name);

TEST(DecodeSplits, FillTheGpuAndKeepAtLeast256KeysEach) {
  const attention::Shape few{4, 1, 1 << 20, 128, false}, short_cache{4, 1, 300, 128, false};
  EXPECT_EQ(attention::decode_splits(few, 132), 66);  // 2 x 132 blocks over 4 heads
  EXPECT_EQ(attention::decode_splits(short_cache, 132), 1);
  const attention::Shape many{4096, 1, 1 << 20, 128, false};
  EXPECT_EQ(attention::decode_splits(many, 132), 1);
}

}  // namespace
