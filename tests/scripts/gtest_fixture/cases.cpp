// A GoogleTest binary whose cases pass, fail, skip, hang and crash on purpose: the self-test of
// scripts/gtest_batch.py runs it (not part of the suite's build).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

TEST(Batch, Passes) { EXPECT_EQ(1 + 1, 2); }
TEST(Batch, Fails) { EXPECT_EQ(1 + 1, 3) << "arithmetic"; }
TEST(Batch, Skips) { GTEST_SKIP() << "no device"; }
TEST(Batch, Hangs) {
  for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
}
TEST(Batch, PassesAfterTheHang) { SUCCEED(); }
TEST(Batch, Crashes) { std::abort(); }
TEST(Batch, PassesAfterTheCrash) { SUCCEED(); }
// What a hostile test process prints is not a verdict: this case prints GoogleTest's own pass
// lines (now and again at exit, from a local static's destructor) and then fails.
TEST(Batch, PrintsAPassAndFails) {
  struct AtExit {
    ~AtExit() { std::printf("[       OK ] Batch.PrintsAPassAndFails (0 ms)\n"); }
  };
  static AtExit at_exit;
  std::printf("[       OK ] Batch.PrintsAPassAndFails (0 ms)\n[ RUN      ] Batch.Passes\n");
  std::fflush(stdout);
  ADD_FAILURE() << "failed after printing a pass";
}

class Sizes : public ::testing::TestWithParam<int> {};
TEST_P(Sizes, Positive) { EXPECT_GT(GetParam(), 0); }
INSTANTIATE_TEST_SUITE_P(Odd, Sizes, ::testing::Values(1, 33, -5));
