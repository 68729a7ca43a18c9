// The variant driver on the GPU with work on a stream of the rung's own. Its own binary (label
// "streams"): it needs the driver's default hardware work queues, which ctest's other GPU test
// processes do without (CUDALAB_TEST_MAX_CONNECTIONS in cmake/CudaLab.cmake): with one queue,
// the work on the other stream is queued before the timer's last event and is timed after all.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/ladder.hpp"
#include "common/memset_rung.hpp"
#include "gpu_test.hpp"

namespace {

using cudalab_test::memset_rung;

// Work enqueued on a stream of its own is not inside the timer's events; the host's clock up to
// a device-wide synchronise sees it, and the result is suspect (never the best), in every
// attempt. Only this direction is asserted: the host's clock also counts time the GPU spent on
// other processes' work (ctest -j runs GPU tests side by side), which only makes the hidden work
// longer, but can make an honest rung look suspect as well, in any number of attempts (it did
// on an H200 under ctest -j16: host 0.87 ms against events 0.004 ms, three times). That an honest
// kernel is cleared is the rule's other side, tested on made-up timings in ladder_test.cpp
// (Suspects.WorkOutsideTheTimedStreamNeedsEveryHostRepetitionLong).
TEST(Ladder, WorkOnAnotherStreamIsSuspect) {
  CUDALAB_REQUIRE_GPU();
  cudalab::Benchmarker bench({1, 5, false});
  cudalab::DeviceBuffer<unsigned char> buf(1 << 20), hidden(std::size_t{4} << 30);
  std::vector<std::string> log;
  const cudalab::Stream stream;
  const cudaStream_t own = stream.get();
  auto sneaky = memset_rung("sneaky", buf, 0x11, log);
  sneaky.launch = [&] {
    CUDA_CHECK(cudaMemsetAsync(hidden.data(), 1, hidden.size(), own));  // the real work, untimed
    CUDA_CHECK(cudaMemsetAsync(buf.data(), 0x11, buf.size(), own));
  };
  auto honest = memset_rung("honest", buf, 0x11, log);
  for (int attempt = 0; attempt < 3; ++attempt) {
    const cudalab::LadderResult ladder = cudalab::run_ladder(bench, {sneaky, honest});
    const auto& timing = ladder.rungs[0].result.timing;
    EXPECT_TRUE(ladder.rungs[0].result.correct);
    EXPECT_TRUE(ladder.rungs[1].result.correct);
    EXPECT_TRUE(timing.work_outside_the_timed_stream()) << timing.host_min_ms << " ms vs " << timing.max_ms;
    EXPECT_NE(ladder.rungs[0].result.suspect.find("outside the timed stream"), std::string::npos);
    EXPECT_NE(ladder.best, 0);
    EXPECT_GE(timing.host_samples_ms.size(), 5u);
  }
}

}  // namespace
