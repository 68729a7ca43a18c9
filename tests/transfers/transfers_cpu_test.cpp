// transfers on the CPU: how N elements are cut into chunks and dealt to streams, the inputs and
// their check, and the arithmetic of the report.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

#include "reference.hpp"

namespace {

TEST(SplitChunks, EveryElementExactlyOnceInOrderAndBalanced) {
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, std::size_t{16},
                        std::size_t{17}, std::size_t{1000}, std::size_t{4099}, (std::size_t{1} << 20) + 3}) {
    for (int chunks : {1, 2, 3, 5, 8, 16, 4096}) {
      if (static_cast<std::size_t>(chunks) > n) continue;
      const auto parts = transfers::split_chunks(n, chunks);
      ASSERT_EQ(parts.size(), static_cast<std::size_t>(chunks));
      std::vector<int> seen(n, 0);
      std::size_t next = 0, smallest = n, largest = 0;
      for (const auto& c : parts) {
        EXPECT_EQ(c.offset, next) << "n " << n << ", chunks " << chunks;  // contiguous, in order
        for (std::size_t i = c.offset; i < c.offset + c.count && i < n; ++i) ++seen[i];
        next = c.offset + c.count;
        smallest = std::min(smallest, c.count);
        largest = std::max(largest, c.count);
      }
      EXPECT_EQ(next, n) << "n " << n << ", chunks " << chunks;
      EXPECT_GE(smallest, 1u);
      EXPECT_LE(largest - smallest, 1u);
      for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(seen[i], 1) << "element " << i << ", n " << n << ", chunks " << chunks;
    }
  }
}

TEST(SplitChunks, RefusesNoChunksAndMoreChunksThanElements) {
  EXPECT_THROW(transfers::split_chunks(10, 0), std::invalid_argument);
  EXPECT_THROW(transfers::split_chunks(10, -1), std::invalid_argument);
  EXPECT_THROW(transfers::split_chunks(10, 11), std::invalid_argument);
  EXPECT_THROW(transfers::split_chunks(0, 1), std::invalid_argument);
  EXPECT_EQ(transfers::split_chunks(10, 10).back().count, 1u);
}

TEST(StreamOf, RoundRobinGivesEveryStreamWorkAndNeighboursDifferentStreams) {
  for (int chunks : {1, 4, 5, 16, 17}) {
    for (int streams : {1, 2, 3, 4, 8}) {
      if (streams > chunks) continue;
      std::vector<int> per(static_cast<std::size_t>(streams), 0);
      for (int i = 0; i < chunks; ++i) {
        const int s = transfers::stream_of(i, streams);
        ASSERT_GE(s, 0);
        ASSERT_LT(s, streams);
        ++per[static_cast<std::size_t>(s)];
        if (streams > 1 && i > 0) {
          EXPECT_NE(s, transfers::stream_of(i - 1, streams));
        }
      }
      for (int count : per) {
        EXPECT_GE(count, chunks / streams);
        EXPECT_LE(count, chunks / streams + 1);
      }
    }
  }
}

TEST(Inputs, SumsAreExactAndTheCheckFindsTheFirstWrongElement) {
  const std::size_t n = 5000;
  std::vector<float> a(n), b(n), c(n);
  transfers::fill_inputs(a.data(), b.data(), n, 7);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(static_cast<double>(a[i]) + b[i], static_cast<double>(a[i] + b[i]));  // exact in float
  }
  transfers::cpu_add(a.data(), b.data(), c.data(), n);
  EXPECT_EQ(transfers::first_wrong(c.data(), a.data(), b.data(), n), n);
  c[4321] += 0.25f;
  EXPECT_EQ(transfers::first_wrong(c.data(), a.data(), b.data(), n), 4321u);
  std::memset(c.data(), 0xFF, n * sizeof(float));  // the poison: NaN
  EXPECT_EQ(transfers::first_wrong(c.data(), a.data(), b.data(), n), 0u);
  EXPECT_EQ(transfers::first_wrong(c.data(), a.data(), b.data(), 0), 0u);
  // drawn, not made from the index: the index formula matches almost none; another seed, another
  // draw; a shorter draw is a prefix of a longer one (the lab's sections share one)
  std::size_t like_the_index = 0, like_seed_8 = 0;
  std::vector<float> a8(n), b8(n), a_short(100), b_short(100);
  transfers::fill_inputs(a8.data(), b8.data(), n, 8);
  for (std::size_t i = 0; i < n; ++i) {
    like_the_index += a[i] + b[i] == transfers::input_a(i) + transfers::input_b(i);
    like_seed_8 += a[i] == a8[i] && b[i] == b8[i];
  }
  EXPECT_LT(like_the_index, n / 100);
  EXPECT_LT(like_seed_8, n / 100);
  transfers::fill_inputs(a_short.data(), b_short.data(), 100, 7);
  EXPECT_TRUE(std::equal(a_short.begin(), a_short.end(), a.begin()));
  EXPECT_TRUE(std::equal(b_short.begin(), b_short.end(), b.begin()));
}

TEST(CopyRepeats, ManyForSmallCopiesFewForLargeOnes) {
  EXPECT_EQ(transfers::copy_repeats(4096, 100), 100);
  EXPECT_EQ(transfers::copy_repeats(std::size_t{64} << 20, 100), 8);
  EXPECT_EQ(transfers::copy_repeats(std::size_t{1} << 30, 100), 3);
  EXPECT_EQ(transfers::copy_repeats(4096, 1), 3);  // never fewer than 3
}

TEST(Crossover, TheSizeFromWhichTheGpuStaysFaster) {
  const std::vector<long long> n{1, 2, 3, 4};
  EXPECT_EQ(transfers::crossover(n, {1, 2, 3, 4}, {5, 5, 1, 1}), 3);
  EXPECT_EQ(transfers::crossover(n, {9, 9, 9, 9}, {1, 1, 1, 1}), 1);   // always faster
  EXPECT_EQ(transfers::crossover(n, {1, 1, 1, 1}, {2, 2, 2, 2}), -1);  // never
  EXPECT_EQ(transfers::crossover(n, {5, 1, 5, 5}, {1, 2, 1, 1}), 3);   // faster, slower, then for good
  EXPECT_EQ(transfers::crossover(n, {5, 5, 5, 1}, {1, 1, 1, 1}), -1);  // equal is not faster
  EXPECT_THROW(transfers::crossover(n, {1}, {1, 2, 3, 4}), std::invalid_argument);
}

TEST(HalfRate, FixedCostTimesRate) {
  // 10 us of fixed cost at 50 GB/s: a 500 KB copy spends as long moving data as starting.
  EXPECT_DOUBLE_EQ(transfers::half_rate_bytes(10.0, 50.0), 500e3);
}

}  // namespace
