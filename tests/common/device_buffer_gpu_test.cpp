#include "common/device_buffer.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "gpu_test.hpp"

namespace {

using cudalab::DeviceBuffer;
using cudalab::PinnedBuffer;

TEST(DeviceBuffer, RoundTripOddSize) {
  CUDALAB_REQUIRE_GPU();
  std::vector<int> host(1025);
  std::iota(host.begin(), host.end(), -512);
  DeviceBuffer<int> d(host);
  EXPECT_EQ(d.size(), 1025u);
  EXPECT_EQ(d.bytes(), 1025u * sizeof(int));
  EXPECT_EQ(d.download(), host);
}

TEST(DeviceBuffer, FillBytesPoisons) {
  CUDALAB_REQUIRE_GPU();
  DeviceBuffer<unsigned char> d(33);
  d.fill_bytes(0xAB);
  for (unsigned char b : d.download()) ASSERT_EQ(b, 0xAB);
}

TEST(DeviceBuffer, MoveTransfersOwnership) {
  CUDALAB_REQUIRE_GPU();
  DeviceBuffer<float> a(std::vector<float>{1.f, 2.f, 3.f});
  const float* p = a.data();
  DeviceBuffer<float> b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): checking the moved-from state
  EXPECT_EQ(a.size(), 0u);
  DeviceBuffer<float> c;
  c = std::move(b);
  EXPECT_EQ(c.download(), (std::vector<float>{1.f, 2.f, 3.f}));
}

TEST(DeviceBuffer, CopyLargerThanTheBufferThrows) {
  CUDALAB_REQUIRE_GPU();
  DeviceBuffer<int> d(4);
  std::vector<int> big(5, 1);
  EXPECT_THROW(d.upload(big), std::length_error);
}

TEST(DeviceBuffer, EmptyBufferIsHarmless) {
  CUDALAB_REQUIRE_GPU();
  DeviceBuffer<int> d(0);
  EXPECT_EQ(d.data(), nullptr);
  d.fill_bytes(0);
  EXPECT_TRUE(d.download().empty());
}

// CudaErrorPaths.*: provokes a CUDA error on purpose (excluded from sanitizer runs).
TEST(CudaErrorPaths, ImpossibleDeviceBufferThrowsCudaError) {
  CUDALAB_REQUIRE_GPU();
  try {
    DeviceBuffer<char> d(std::size_t{1} << 50);  // 1 PiB
    FAIL() << "allocation of 1 PiB succeeded";
  } catch (const cudalab::CudaError& e) {
    EXPECT_EQ(e.code(), cudaErrorMemoryAllocation);
  }
  // The error was cleared: the next call works.
  DeviceBuffer<int> ok(std::vector<int>{5});
  EXPECT_EQ(ok.download()[0], 5);
}

TEST(PinnedBuffer, HoldsDataAndMoves) {
  CUDALAB_REQUIRE_GPU();
  PinnedBuffer<int> p(100);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<int>(i);
  DeviceBuffer<int> d(100);
  d.upload(p.data(), p.size());
  PinnedBuffer<int> q(std::move(p));
  EXPECT_EQ(p.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  std::vector<int> back = d.download();
  for (std::size_t i = 0; i < q.size(); ++i) ASSERT_EQ(back[i], q[i]);
}

}  // namespace
