// The variant driver on the GPU: every rung is poisoned, launched, checked and timed in order;
// a wrong rung makes the ladder fail and is never the best; fallbacks are reported.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/ladder.hpp"
#include "common/memset_rung.hpp"
#include "gpu_test.hpp"

namespace {

using cudalab_test::memset_rung;

// The best rung a correct ladder must report when rung `right` is its only correct one: that
// rung, or none when the host's clock marked it suspect (a rule the streams test checks).
int honest_best(const cudalab::LadderResult& ladder, int right) {
  return ladder.rungs[static_cast<std::size_t>(right)].result.suspect.empty() ? right : -1;
}

TEST(Ladder, PoisonsChecksAndPicksTheFastestCorrectRung) {
  CUDALAB_REQUIRE_GPU();
  cudalab::Benchmarker bench({1, 3, false});
  cudalab::DeviceBuffer<unsigned char> buf(1 << 20);
  std::vector<std::string> log;
  std::vector<cudalab::Rung> rungs{memset_rung("right", buf, 0x11, log), memset_rung("wrong", buf, 0x22, log)};
  rungs[1].fallback = "ran something else";
  const cudalab::LadderResult ladder = cudalab::run_ladder(bench, rungs);
  // each rung: poison, check, and again before the last timed launch and after it (a rung wrong
  // before timing is not checked again)
  EXPECT_EQ(log, (std::vector<std::string>{"poison right", "check right", "poison right", "check right", "poison wrong",
                                           "check wrong", "poison wrong"}));
  ASSERT_EQ(ladder.rungs.size(), 2u);
  EXPECT_TRUE(ladder.rungs[0].result.correct);
  EXPECT_FALSE(ladder.rungs[1].result.correct);
  EXPECT_FALSE(ladder.all_ok);
  // The wrong rung is never the best, however fast. The right one is, unless the host's clock
  // marked it suspect (its shortest repetition far longer than the events saw: a host descheduled
  // in every repetition, as under ctest -j16 beside the grading tests), and then nothing is.
  EXPECT_EQ(ladder.best, honest_best(ladder, 0)) << ladder.rungs[0].result.suspect;
  EXPECT_GT(ladder.rungs[0].result.timing.median_ms, 0.0);
  EXPECT_EQ(ladder.rungs[0].result.timing.samples_ms.size(), 3u);
  std::vector<std::string> notes;
  if (!ladder.rungs[0].result.suspect.empty()) notes.push_back("right: suspect, not ranked: " + ladder.rungs[0].result.suspect);
  notes.push_back("wrong: ran something else");
  EXPECT_EQ(cudalab::fallback_notes(ladder), notes);
  EXPECT_EQ(ladder.rungs[0].first_launch_ms, -1.0);
  // the GPU's state read after each rung's timing (NVML ships with the driver, as nvidia-smi)
  EXPECT_TRUE(ladder.gpu.known) << ladder.gpu.why_unknown;
  EXPECT_GT(ladder.gpu.sm_min_mhz, 0u);
  EXPECT_LE(ladder.gpu.sm_min_mhz, ladder.gpu.sm_max_mhz);
}

TEST(Ladder, AWrongPoisonIsCaughtAndNothingCorrectMeansNoBest) {
  CUDALAB_REQUIRE_GPU();
  cudalab::Benchmarker bench({0, 1, false});
  cudalab::DeviceBuffer<unsigned char> buf(4096);
  std::vector<std::string> log;
  auto skip = memset_rung("skips_the_last_byte", buf, 0x11, log);
  skip.launch = [&buf] { CUDA_CHECK(cudaMemset(buf.data(), 0x11, buf.size() - 1)); };
  skip.time_first_launch = true;
  const cudalab::LadderResult ladder = cudalab::run_ladder(bench, {skip});
  EXPECT_FALSE(ladder.all_ok);  // the poisoned last byte shows through
  EXPECT_EQ(ladder.best, -1);
  EXPECT_GE(ladder.rungs[0].first_launch_ms, 0.0);
}

// A kernel that computes only on its first launch (a hostile student's, or a cache of results)
// passes a check made once before timing; the check after the last timed launch catches it.
TEST(Ladder, AKernelThatComputesOnlyOnItsFirstLaunchIsWrongNotFast) {
  CUDALAB_REQUIRE_GPU();
  cudalab::Benchmarker bench({2, 5, true});
  cudalab::DeviceBuffer<unsigned char> buf(1 << 20);
  std::vector<std::string> log;
  int launches = 0;
  auto lazy = memset_rung("lazy", buf, 0x11, log);
  lazy.launch = [&buf, &launches] {
    if (launches++ == 0) CUDA_CHECK(cudaMemset(buf.data(), 0x11, buf.size()));
  };
  auto honest = memset_rung("honest", buf, 0x11, log);
  const cudalab::LadderResult ladder = cudalab::run_ladder(bench, {lazy, honest});
  EXPECT_EQ(launches, 1 + 2 + 5);
  EXPECT_FALSE(ladder.rungs[0].result.correct);
  EXPECT_TRUE(ladder.rungs[0].wrong_after_timing);
  EXPECT_TRUE(ladder.rungs[1].result.correct);
  EXPECT_FALSE(ladder.rungs[1].wrong_after_timing);
  EXPECT_EQ(ladder.best, honest_best(ladder, 1)) << ladder.rungs[1].result.suspect;
  const auto notes = cudalab::fallback_notes(ladder);
  ASSERT_GE(notes.size(), 1u);
  EXPECT_EQ(notes[0], "lazy: right before timing, wrong after the last timed launch");
  EXPECT_EQ(notes.size(), ladder.rungs[1].result.suspect.empty() ? 1u : 2u);
}

// A kernel that does the work on some launches and skips others, where the inputs change between
// launches: the check after the last timed launch finds it right when that launch computed, so
// only a check after every timed launch (Rung::check_each, for problems whose check is cheap)
// catches it. Without that defence the same rung passes.
TEST(Ladder, AKernelThatSkipsSomeLaunchesIsWrongAtTheFirstItSkips) {
  CUDALAB_REQUIRE_GPU();
  cudalab::Benchmarker bench({1, 3, false});
  cudalab::DeviceBuffer<unsigned char> buf(4096);
  std::vector<std::string> log;
  int launches = 0, value = 0x11;
  const auto make = [&](const std::string& name, bool every) {
    auto r = memset_rung(name, buf, 0x11, log);
    r.refresh = [&value](int rep) { value = rep % 2 ? 0x22 : 0x11; };  // new inputs, a new answer
    r.launch = [&buf, &launches, &value] {
      if (launches++ % 2 == 0) CUDA_CHECK(cudaMemset(buf.data(), value, buf.size()));  // every other launch
    };
    r.check = [&buf, &value] {
      for (unsigned char b : buf.download()) {
        if (b != value) return false;
      }
      return true;
    };
    if (every) r.check_each = [check = r.check](int) { return check(); };
    return r;
  };
  // launches: 1 before timing (computes), 1 warm-up (skips), timed 3 (computes, skips, computes)
  launches = 0;
  value = 0x11;
  const cudalab::LadderResult caught = cudalab::run_ladder(bench, {make("skips_checked", true)});
  EXPECT_FALSE(caught.rungs[0].result.correct);
  EXPECT_EQ(caught.rungs[0].wrong_at_rep, 1);
  EXPECT_TRUE(caught.rungs[0].wrong_after_timing);
  EXPECT_EQ(cudalab::fallback_notes(caught)[0], "skips_checked: right before timing, wrong after timed launch 2");
  launches = 0;
  value = 0x11;
  const cudalab::LadderResult missed = cudalab::run_ladder(bench, {make("skips_unchecked", false)});
  EXPECT_TRUE(missed.rungs[0].result.correct);  // the last timed launch computed: the old check passes
  EXPECT_EQ(missed.rungs[0].wrong_at_rep, -1);
}

}  // namespace
