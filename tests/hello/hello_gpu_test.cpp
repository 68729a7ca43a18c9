// hello on the GPU: every thread's indices against the CPU, the SM it ran on and the order of its
// warp; the raw vecAdd at the notes' N and at odd sizes; and each deliberate mistake surfacing
// the way the README says.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "common/device_facts.hpp"
#include "gpu_test.hpp"
#include "hello.hpp"
#include "reference.hpp"

namespace {

void expect_records(dim3 grid, dim3 block) {
  const int sm_count = cudalab::query_device(0).sm_count;
  const auto got = hello::record_indices(grid, block);
  const auto want = hello::expected_indices(grid, block);
  ASSERT_EQ(got.size(), want.size());
  std::set<int> tickets;
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].block_x, want[i].block_x) << i;
    EXPECT_EQ(got[i].block_y, want[i].block_y) << i;
    EXPECT_EQ(got[i].thread_x, want[i].thread_x) << i;
    EXPECT_EQ(got[i].thread_y, want[i].thread_y) << i;
    EXPECT_EQ(got[i].linear, want[i].linear) << i;
    EXPECT_EQ(got[i].warp, want[i].warp) << i;
    EXPECT_EQ(got[i].lane, want[i].lane) << i;
    EXPECT_GE(got[i].smid, 0);
    EXPECT_LT(got[i].smid, sm_count);
    tickets.insert(got[i].ticket);
    if (i % 32 != 0 && want[i].warp == want[i - 1].warp && want[i].block_x == want[i - 1].block_x &&
        want[i].block_y == want[i - 1].block_y) {
      EXPECT_EQ(got[i].ticket, got[i - 1].ticket) << "one ticket per warp, thread " << i;
      EXPECT_EQ(got[i].smid, got[i - 1].smid) << "one SM per block, thread " << i;
    }
  }
  const int warps = static_cast<int>(grid.x * grid.y) * hello::warps_per_block(block);
  ASSERT_EQ(static_cast<int>(tickets.size()), warps);
  EXPECT_EQ(*tickets.begin(), 0);
  EXPECT_EQ(*tickets.rbegin(), warps - 1);
}

TEST(HelloGpu, IndicesOfTheNotesLaunch) {
  CUDALAB_REQUIRE_GPU();
  expect_records(dim3(4, 3), dim3(4, 2));
}

TEST(HelloGpu, IndicesOfA16x16BlockAndOfPartialWarps) {
  CUDALAB_REQUIRE_GPU();
  expect_records(dim3(1), dim3(16, 16));
  expect_records(dim3(3, 2), dim3(10, 5));
  expect_records(dim3(200), dim3(33, 1));  // more blocks than SMs on small GPUs
}

TEST(HelloGpu, VecAddRawMatchesTheCpu) {
  CUDALAB_REQUIRE_GPU();
  for (int n : {1, 255, 256, 257, 10000, 46340}) {
    // random values, not the notes' ramps: an answer worked out from the index alone fails
    const auto a = cudalab::random_vector<int>(static_cast<std::size_t>(n), cudalab::testing::seed(n), -1000000, 1000000);
    const auto b = cudalab::random_vector<int>(static_cast<std::size_t>(n), cudalab::testing::seed(n + 1), -1000000, 1000000);
    std::vector<int> c(static_cast<std::size_t>(n), -1);
    ASSERT_EQ(hello::vec_add_raw(a.data(), b.data(), c.data(), n), cudaSuccess) << n;
    for (int i = 0; i < n; ++i) {
      ASSERT_EQ(c[static_cast<std::size_t>(i)], a[static_cast<std::size_t>(i)] + b[static_cast<std::size_t>(i)])
          << "n = " << n << ", i = " << i;
    }
  }
}

TEST(HelloGpu, EachMistakeSurfacesAsTheReadmeSays) {
  CUDALAB_REQUIRE_GPU();
  const auto a = hello::notes_a(10000), b = hello::notes_b(10000);
  const auto big = hello::run_break(hello::Break::kTooManyThreads, a, b);
  // CUDA 13 reports a block over the limit as cudaErrorInvalidValue; older runtimes said
  // cudaErrorInvalidConfiguration. Either way, only cudaGetLastError sees it.
  EXPECT_TRUE(big.launch_error == cudaErrorInvalidValue || big.launch_error == cudaErrorInvalidConfiguration)
      << cudaGetErrorName(big.launch_error);
  EXPECT_EQ(big.sync_error, cudaSuccess);  // the failed launch left nothing to wait for
  EXPECT_EQ(big.wrong, 10000);
  const auto swapped = hello::run_break(hello::Break::kSwappedCopy, a, b);
  EXPECT_EQ(swapped.launch_error, cudaSuccess);
  EXPECT_EQ(swapped.wrong, 10000);  // C never came back
  const auto oob = hello::run_break(hello::Break::kOutOfBounds, a, b);
  EXPECT_EQ(oob.launch_error, cudaSuccess);
  EXPECT_EQ(oob.sync_error, cudaSuccess);  // silent
  EXPECT_EQ(oob.wrong, 0);
  const auto early = hello::run_break(hello::Break::kMissingSync, a, b);
  EXPECT_EQ(early.launch_error, cudaSuccess);
  EXPECT_EQ(early.wrong_after_sync, 0);  // after waiting, the copy has landed
  EXPECT_GT(early.wrong, 0);             // read 5 ms early, the copy had not run
  const auto race = hello::run_break(hello::Break::kRace, a, b);
  EXPECT_EQ(race.launch_error, cudaSuccess);
  EXPECT_EQ(race.sync_error, cudaSuccess);  // nothing reports a race
  EXPECT_EQ(race.checked, (10000 + 255) / 256);
  EXPECT_GT(race.wrong, 0);  // the late half's slots were read before they were written
  // The barrier inside a branch: the kernel ends (a hang ends the process) and nothing reports an
  // error; whether the sums are right is undefined.
  const auto divergent = hello::run_break(hello::Break::kDivergentBarrier, a, b);
  EXPECT_EQ(divergent.launch_error, cudaSuccess);
  EXPECT_EQ(divergent.sync_error, cudaSuccess);
  EXPECT_EQ(divergent.checked, (10000 + 255) / 256);
  EXPECT_LE(divergent.wrong, divergent.checked);
  // host_pointer is not run here: where the GPU cannot read pageable memory it ends the context
  // (an illegal address), and every later case of this process would fail; hello.break.host_pointer
  // runs it in a process of its own.
}

}  // namespace
