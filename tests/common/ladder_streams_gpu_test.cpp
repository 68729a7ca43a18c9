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
// a device-wide synchronise sees it, and the result is suspect (never the best). The host's
// clock also counts time the GPU spent on other processes' work (ctest -j runs GPU tests side by
// side), so an honest rung may look suspect in one attempt; it must be clean in one of three,
// while the hidden work is seen in every attempt.
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
  std::string honest_suspect;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const cudalab::LadderResult ladder = cudalab::run_ladder(bench, {sneaky, honest});
    const auto& timing = ladder.rungs[0].result.timing;
    EXPECT_TRUE(ladder.rungs[0].result.correct);
    EXPECT_TRUE(timing.work_outside_the_timed_stream()) << timing.host_min_ms << " ms vs " << timing.max_ms;
    EXPECT_NE(ladder.rungs[0].result.suspect.find("outside the timed stream"), std::string::npos);
    EXPECT_NE(ladder.best, 0);
    EXPECT_GE(timing.host_samples_ms.size(), 5u);
    honest_suspect = ladder.rungs[1].result.suspect;
    if (honest_suspect.empty()) {
      EXPECT_EQ(ladder.best, 1);
      break;
    }
    honest_suspect += " (host " + std::to_string(ladder.rungs[1].result.timing.host_min_ms) + " ms, events " +
                      std::to_string(ladder.rungs[1].result.timing.max_ms) + " ms)";
  }
  EXPECT_TRUE(honest_suspect.empty()) << "honest rung suspect in 3 attempts: " << honest_suspect;
}

}  // namespace
