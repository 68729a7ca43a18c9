// The variant driver without a GPU: a sweep stops before the first size that does not fit the
// budget, and its table has the same columns in every lab.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/bandwidth.hpp"
#include "common/ladder.hpp"

namespace {

TEST(SweepSizes, PowersUpToTheLastSize) {
  const auto all = cudalab::sweep_sizes(1, 1 << 20, 2, [](std::size_t) { return 1.0; }, 100.0);
  ASSERT_EQ(all.size(), 21u);
  EXPECT_EQ(all.front(), 1u);
  EXPECT_EQ(all.back(), std::size_t{1} << 20);
  EXPECT_EQ(cudalab::sweep_sizes(1024, 1 << 28, 4, [](std::size_t) { return 0.0; }, 1.0).size(), 10u);
}

TEST(SweepSizes, StopBeforeTheFirstSizeOverTheBudget) {
  const auto bytes = [](std::size_t n) { return 12.0 * static_cast<double>(n); };  // vec_add: 12 B per element
  const auto capped = cudalab::sweep_sizes(1024, 1 << 28, 2, bytes, 12.0 * 65536);
  EXPECT_EQ(capped.back(), 65536u);  // exactly at the budget still fits
  EXPECT_EQ(cudalab::sweep_sizes(1024, 1 << 28, 2, bytes, 12.0 * 65535).back(), 32768u);
  EXPECT_TRUE(cudalab::sweep_sizes(1024, 1 << 28, 2, bytes, 100.0).empty());
}

TEST(SweepSizes, CopyTableAndSweepOfTheTransfersLab) {
  const auto none = [](std::size_t) { return 0.0; };
  const auto sweep = cudalab::sweep_sizes(4096, std::size_t{1} << 30, 2, none, 1.0);
  ASSERT_EQ(sweep.size(), 19u);  // 2^12 .. 2^30
  EXPECT_EQ(sweep.front(), 4096u);
  EXPECT_EQ(sweep.back(), std::size_t{1} << 30);
  EXPECT_EQ(cudalab::sweep_sizes(4096, std::size_t{256} << 20, 16, none, 1.0),
            (std::vector<std::size_t>{4096, 65536, 1 << 20, 16 << 20, 256 << 20}));
  EXPECT_EQ(cudalab::sweep_sizes(1024, 1000, 4, none, 1.0).size(), 0u);
  EXPECT_EQ(cudalab::sweep_sizes(1024, 1024, 4, none, 1.0).size(), 1u);
}

TEST(SweepSizes, StopsBeforeOverflowingAndRefusesZero) {
  const auto none = [](std::size_t) { return 0.0; };
  EXPECT_EQ(cudalab::sweep_sizes(1, std::numeric_limits<std::size_t>::max(), 2, none, 1.0).size(), 64u);
  EXPECT_THROW(cudalab::sweep_sizes(0, 10, 2, none, 1.0), std::invalid_argument);
}

TEST(SweepSizes, AFactorBelowTwoGivesOneSize) {
  EXPECT_EQ(cudalab::sweep_sizes(5, 100, 1, [](std::size_t) { return 0.0; }, 1.0), (std::vector<std::size_t>{5}));
}

}  // namespace

namespace {
cudalab::RungResult measured(const char* name, double bytes, double ms, bool correct) {
  cudalab::RungResult r;
  r.result.name = name;
  r.result.bytes = bytes;
  r.result.timing = cudalab::summarize({ms});
  r.result.correct = correct;
  return r;
}

std::size_t column(const cudalab::Table& t, const std::string& key) {
  for (std::size_t c = 0; c < t.columns().size(); ++c) {
    if (t.columns()[c].key == key) return c;
  }
  ADD_FAILURE() << "no column " << key;
  return 0;
}
}  // namespace

TEST(MeasurementTable, SizeCellsThenTheVariantThenTheLabsCellsThenTheStandardColumns) {
  cudalab::MeasurementTable rows({10000, 8000});
  cudalab::LadderResult ladder;
  ladder.rungs.push_back(measured("slow", 4e9, 4.0, false));
  ladder.rungs.push_back(measured("fast", 4e9, 2.0, true));
  ladder.rungs[1].cells = {{"launches", "launches", 2}};
  auto base = measured("cub", 8e9, 4.0, true);
  base.baseline = true;
  ladder.rungs.push_back(base);
  rows.add(ladder, {{"width", "width", 7}, {"pixels", "pixels", 49}});
  const cudalab::Table t = rows.table();
  std::vector<std::string> keys;
  for (const auto& c : t.columns()) keys.push_back(c.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"width", "pixels", "variant", "launches", "median_ms", "min_ms", "max_ms",
                                            "gbps", "percent_of_peak", "percent_of_copy", "speedup", "over_baseline",
                                            "ok", "correct", "suspect", "baseline", "bytes", "flops", "fallback"}));
  ASSERT_EQ(t.rows().size(), 3u);
  const auto& fast = t.rows()[1];
  EXPECT_EQ(fast[0].text(), "7");
  EXPECT_EQ(fast[2].text(), "fast");
  EXPECT_EQ(fast[column(t, "launches")].text(), "2");
  EXPECT_TRUE(t.rows()[0][column(t, "launches")].is_null());  // a row without the cell: "-" / null
  EXPECT_EQ(t.rows()[0][column(t, "launches")].text(), "-");
  EXPECT_EQ(fast[column(t, "median_ms")].text(), "2.0000");
  EXPECT_EQ(fast[column(t, "gbps")].text(), "2000");       // 4e9 B in 2 ms
  EXPECT_EQ(fast[column(t, "percent_of_copy")].text(), "25.0");
  // the wrong row shows no speed
  EXPECT_TRUE(t.rows()[0][column(t, "gbps")].is_null());
  EXPECT_TRUE(t.rows()[0][column(t, "median_ms")].is_null());
  EXPECT_EQ(fast[column(t, "speedup")].text(), "2.00");     // the first row's 4 ms / 2 ms
  EXPECT_EQ(fast[column(t, "over_baseline")].text(), "2.000");
  EXPECT_EQ(fast[column(t, "ok")].text(), "yes");
  EXPECT_EQ(t.rows()[0][column(t, "ok")].text(), "NO");
  // JSON: booleans as booleans, and the text-only "ok" column left out
  EXPECT_TRUE(std::get<bool>(fast[column(t, "correct")].raw()));
  EXPECT_FALSE(std::get<bool>(t.rows()[0][column(t, "correct")].raw()));
  EXPECT_FALSE(t.columns()[column(t, "ok")].in_json);
  EXPECT_FALSE(t.columns()[column(t, "correct")].in_text);
  EXPECT_TRUE(std::get<bool>(t.rows()[2][column(t, "baseline")].raw()));
  // the text shows no JSON-only column
  const std::string text = t.render();
  EXPECT_EQ(text.find("fallback"), std::string::npos) << text;
  EXPECT_NE(text.find("launches"), std::string::npos) << text;
}

TEST(MeasurementTable, FlopColumnsOnlyWhenARowCountsFlops) {
  cudalab::LadderResult ladder;
  ladder.rungs.push_back(measured("bytes_only", 1e9, 1.0, true));
  cudalab::MeasurementTable plain({10000, 8000});
  plain.add(ladder);
  const cudalab::Table bytes_only = plain.table();
  for (const auto& c : bytes_only.columns()) EXPECT_NE(c.key, "gflops");
  ladder.rungs[0].result.flops = 2e9;  // 2 GFLOP in 1 ms
  cudalab::MeasurementTable rows({10000, 8000, 10000});
  rows.add(ladder);
  const auto t = rows.table();
  EXPECT_EQ(t.rows()[0][column(t, "gflops")].text(), "2000");
  EXPECT_EQ(t.rows()[0][column(t, "percent_of_peak_flops")].text(), "20.0");
  EXPECT_EQ(t.columns()[column(t, "percent_of_peak_flops")].title, "% FP32 peak");
  // A ladder against another peak names it (matmul's BF16 rungs), in the title and in a suspect's reason.
  cudalab::MeasurementTable bf16({10000, 8000, 1000, "BF16"});
  bf16.add(ladder);
  const auto tb = bf16.table();
  EXPECT_EQ(tb.columns()[column(tb, "percent_of_peak_flops")].title, "% BF16 peak");
  std::vector<cudalab::VariantResult> over{ladder.rungs[0].result};
  EXPECT_EQ(cudalab::mark_suspects(over, 10000, 8000, 1e6, 1000, "BF16"), 1);
  EXPECT_NE(over[0].suspect.find("above the theoretical BF16 peak of 1000"), std::string::npos) << over[0].suspect;
}

TEST(Ladder, TheBestIsNeverTheBaseline) {
  cudalab::LadderResult ladder;
  ladder.rungs.push_back(measured("variant", 1e9, 2.0, true));
  ladder.rungs.push_back(measured("cub", 1e9, 1.0, true));
  ladder.rungs[1].baseline = true;
  cudalab::choose_best(ladder);
  EXPECT_EQ(ladder.best, 0);
  ASSERT_NE(ladder.baseline(), nullptr);
  EXPECT_EQ(ladder.baseline()->result.name, "cub");
}

// Faster than physics is an error to explain: above the peak, above 1.10 x the copy ceiling for
// more bytes than the L2 holds, or timed by events that missed work the host waited for.
// The rule that catches work left on another stream, on timings made up here (the GPU test
// can only show its one direction: hidden work is seen; that an honest kernel is cleared needs
// one undisturbed repetition, which a GPU shared with other test processes may never give).
TEST(Suspects, WorkOutsideTheTimedStreamNeedsEveryHostRepetitionLong) {
  cudalab::Timing t;
  t.max_ms = 0.004;
  t.host_overhead_ms = 0.007;
  EXPECT_FALSE(t.work_outside_the_timed_stream());  // no host samples: no verdict
  t.host_samples_ms = {0.9, 0.87, 1.2};
  t.host_min_ms = 0.87;  // hidden work: the host's shortest wait is far past the events' longest
  EXPECT_TRUE(t.work_outside_the_timed_stream());
  t.host_samples_ms = {0.9, 0.02, 1.2};
  t.host_min_ms = 0.02;  // one undisturbed repetition clears an honest kernel
  EXPECT_FALSE(t.work_outside_the_timed_stream());
  t.host_min_ms = 2.0 * (t.max_ms + t.host_overhead_ms) + cudalab::Timing::kHostSlackMs;  // at the margin: cleared
  EXPECT_FALSE(t.work_outside_the_timed_stream());
  t.host_min_ms += 0.001;
  EXPECT_TRUE(t.work_outside_the_timed_stream());
}

TEST(Suspects, FasterThanPhysicsIsMarkedAndShownAsSuspect) {
  auto result = [](const char* name, double bytes, double ms, bool correct) {
    cudalab::VariantResult r;
    r.name = name;
    r.bytes = bytes;
    r.correct = correct;
    r.timing = cudalab::summarize({ms});
    return r;
  };
  // peak 1000 GB/s, copy ceiling 800 GB/s, an L2 of 1 MB; 1e9 bytes in 1 ms is 1000 GB/s
  std::vector<cudalab::VariantResult> rs{
      result("honest", 1e9, 1.25, true),             // 800 GB/s: at the copy ceiling
      result("a_little_over_copy", 1e9, 1.2, true),  // 833: 1.04 x copy, as vec_add reaches
      result("over_copy", 1e9, 1.05, true),          // 952: 1.19 x copy
      result("over_peak", 1e9, 0.9, true),           // 1111: above the peak
      result("in_l2", 5e5, 0.00055, true),           // 909: 1.14 x copy, but 500 kB fit the L2
      result("wrong", 1e9, 0.1, false),              // 10000, wrong: "NO", not marked
      result("other_stream", 1e9, 1.25, true)};      // 800, but the host waited 2.8 ms
  rs[6].timing.host_samples_ms = {2.8, 2.9, 3.0};
  rs[6].timing.host_median_ms = 2.9;
  rs[6].timing.host_min_ms = 2.8;  // > 2 x (1.25 + 0) + 0.1
  rs[0].timing.host_samples_ms = {2.6, 9.0, 9.0};  // a busy host: one undisturbed repetition clears it
  rs[0].timing.host_median_ms = 9.0;
  rs[0].timing.host_min_ms = 2.6;                  // 2.6 < 2 x 1.25 + 0.1
  rs[1].timing.host_samples_ms = {3.5};            // under a sanitizer the host adds 0.6 ms to any launch
  rs[1].timing.host_min_ms = rs[1].timing.host_median_ms = 3.5;
  rs[1].timing.host_overhead_ms = 0.6;             // 3.5 < 2 x (1.2 + 0.6) + 0.1
  EXPECT_EQ(cudalab::mark_suspects(rs, 1000, 800, 1e6), 3);
  EXPECT_EQ(rs[0].suspect, "");
  EXPECT_EQ(rs[1].suspect, "");
  EXPECT_NE(rs[2].suspect.find("x the copy ceiling"), std::string::npos) << rs[2].suspect;
  EXPECT_NE(rs[3].suspect.find("above the theoretical peak"), std::string::npos) << rs[3].suspect;
  EXPECT_EQ(rs[4].suspect, "");
  EXPECT_EQ(rs[5].suspect, "");
  EXPECT_NE(rs[6].suspect.find("outside the timed stream"), std::string::npos) << rs[6].suspect;
  cudalab::LadderResult ladder;
  for (const auto& r : rs) {
    cudalab::RungResult rr;
    rr.result = r;
    ladder.rungs.push_back(rr);
  }
  cudalab::MeasurementTable rows({1000, 800});
  rows.add(ladder);
  const cudalab::Table t = rows.table();
  const std::size_t ok = column(t, "ok"), suspect = column(t, "suspect");
  EXPECT_EQ(t.rows()[0][ok].text(), "yes");
  EXPECT_EQ(t.rows()[2][ok].text(), "suspect");
  EXPECT_TRUE(std::get<bool>(t.rows()[2][suspect].raw()));
  EXPECT_FALSE(std::get<bool>(t.rows()[0][suspect].raw()));
  EXPECT_EQ(t.rows()[5][ok].text(), "NO");
}

TEST(FreshInputs, MultipliersArePowersOfTwoOrOddAndNeverTheSameTwiceInARow) {
  std::set<double> reals;
  for (int rep = 0; rep < 82; ++rep) {
    const double m = cudalab::fresh_multiplier(rep);
    int exponent = 0;
    EXPECT_EQ(std::fabs(std::frexp(m, &exponent)), 0.5) << rep;  // a power of two
    EXPECT_GE(exponent - 1, -20);
    EXPECT_LE(exponent - 1, 20);
    EXPECT_NE(m, cudalab::fresh_multiplier(rep + 1)) << rep;
    reals.insert(m);
  }
  EXPECT_EQ(reals.size(), 82u);  // none repeated before the 83rd repetition
  EXPECT_EQ(cudalab::fresh_multiplier(-1), 1.0);
  std::set<std::int32_t> ints;
  for (int rep = 0; rep < 5000; ++rep) {
    const std::int32_t m = cudalab::fresh_int_multiplier(rep);
    EXPECT_NE(m % 2, 0) << rep;  // odd: a bijection modulo 2^32
    ints.insert(m);
  }
  EXPECT_EQ(ints.size(), 5000u);
  EXPECT_EQ(cudalab::fresh_int_multiplier(-1), 1);
  const cudalab::InputSets none;  // no scaled inputs: the answer as it is
  EXPECT_EQ(none.scale(7.5), 7.5);
  EXPECT_EQ(none.scale(std::int32_t{-3}), -3);
}
