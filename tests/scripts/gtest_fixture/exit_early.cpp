// A hostile test binary: a constructor that leaves with status 0 before any case runs (the
// self-test of scripts/gtest_batch.py's verdict channel; not part of the suite's build).
#include <gtest/gtest.h>
#include <unistd.h>

static const int leave_now = [] {
  std::fputs("[==========] 1 test from 1 test suite ran.\n[  PASSED  ] 1 test.\n", stdout);
  std::fflush(stdout);
  ::_exit(0);
  return 0;
}();

TEST(Early, Fails) { FAIL() << "never reached"; }
