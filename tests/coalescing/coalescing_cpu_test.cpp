// coalescing on the CPU: the sectors a warp's request touches for each experiment, and the
// references.
#include <gtest/gtest.h>

#include <vector>

#include "reference.hpp"

namespace {

TEST(Sectors, StridedFloats) {
  const std::size_t want[] = {4, 8, 16, 32, 32, 32};
  const int strides[] = {1, 2, 4, 8, 16, 32};
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(coalescing::sectors_per_request(0, 4 * static_cast<std::size_t>(strides[k])), want[k]) << strides[k];
  }
  EXPECT_DOUBLE_EQ(coalescing::read_amplification(0, 4), 1.0);
  EXPECT_DOUBLE_EQ(coalescing::read_amplification(0, 4 * 32), 8.0);  // a sector per 4 useful bytes
  // stride 1: 4 bytes read + 4 written per element; stride >= 8: 32 read + 4 written
  EXPECT_DOUBLE_EQ(coalescing::stride_bytes_moved(1024, 1), 8.0 * 1024);
  EXPECT_DOUBLE_EQ(coalescing::stride_bytes_moved(1024, 32), 36.0 * 1024);
}

TEST(Sectors, MisalignmentCostsOneSector) {
  EXPECT_EQ(coalescing::sectors_per_request(0, 4), 4u);
  for (std::size_t k = 1; k < 8; ++k) EXPECT_EQ(coalescing::sectors_per_request(4 * k, 4), 5u) << k;
  EXPECT_EQ(coalescing::sectors_per_request(32, 4), 4u);  // 8 floats: aligned to a sector again
}

TEST(Sectors, LayoutAndMapping) {
  EXPECT_EQ(coalescing::sectors_per_request(0, sizeof(coalescing::Particle)), 16u);  // x of 32 structs of 16 B
  EXPECT_EQ(coalescing::sectors_per_request(0, 4096 * 4), 32u);                       // down a column
}

TEST(References, StrideOffsetAndParticles) {
  const auto in = coalescing::make_input(64);
  const auto s = coalescing::reference_stride(in, 8, 8);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(s[i], in[i * 8]);
  const auto o = coalescing::reference_offset(in, 8, 3);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(o[i], in[i + 3]);
  EXPECT_EQ(coalescing::moved(1.0f, -6.0f, 0.5f), -2.0f);
  EXPECT_NE(in[1], in[2]);
}

}  // namespace
