// Fresh inputs for every timed launch (InputSets::add_scaled) on the GPU: each repetition's inputs
// are the base times its multiplier, exactly, and the base comes back with use(0); and the cheat
// they defeat: a kernel that caches its answer by its input replays under two alternating sets
// (and passes every check), while under fresh inputs it has to compute on every launch.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/bf16.hpp"
#include "common/device_buffer.hpp"
#include "common/ladder.hpp"
#include "gpu_test.hpp"

namespace {

__global__ void twice(const float* in, float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = 2.0f * in[i];
}

TEST(FreshInputs, EachRepetitionIsTheBaseTimesItsMultiplier) {
  CUDALAB_REQUIRE_GPU();
  const std::vector<float> base{1.5f, -3.0f, 0.0f, 1e-3f, 7.25f};
  const std::vector<int> ints{1, -2, 2147483647, -2147483647 - 1, 12345};
  cudalab::DeviceBuffer<float> f(base);
  cudalab::DeviceBuffer<int> k(ints);
  cudalab::InputSets sets;
  sets.add_scaled(f);
  sets.add_scaled(k);
  EXPECT_TRUE(sets.scaled());
  EXPECT_EQ(sets.current(), -1);
  for (int rep : {0, 1, 2, 7, 40, 81, 82}) {
    sets.use_rep(rep);
    EXPECT_EQ(sets.current(), rep);
    const std::vector<float> got = f.download();
    const std::vector<int> got_ints = k.download();
    for (std::size_t i = 0; i < base.size(); ++i) {
      EXPECT_EQ(got[i], static_cast<float>(base[i] * cudalab::fresh_multiplier(rep))) << rep;
      const auto wrapped = static_cast<std::uint32_t>(ints[i]) * static_cast<std::uint32_t>(cudalab::fresh_int_multiplier(rep));
      EXPECT_EQ(static_cast<std::uint32_t>(got_ints[i]), wrapped) << rep;
    }
    EXPECT_EQ(sets.scale(3.0), 3.0 * cudalab::fresh_multiplier(rep));
  }
  sets.use(0);  // the base again
  EXPECT_EQ(f.download(), base);
  EXPECT_EQ(k.download(), ints);
  EXPECT_THROW(sets.use(1), std::invalid_argument);
  std::vector<float> second(base.size(), 0.0f);
  EXPECT_THROW(sets.add(f, second), std::invalid_argument);  // the two ways do not mix
}

// Rotated keys (InputSets::add_rotated, the histogram's fresh inputs): each repetition's keys are
// the base's plus its rotation modulo the range, uint8 and uint32 alike, and a range past a
// key's bits is refused.
TEST(FreshInputs, EachRepetitionsKeysAreTheBaseRotated) {
  CUDALAB_REQUIRE_GPU();
  const std::vector<unsigned char> bytes{0, 1, 127, 128, 200, 255, 3};
  const std::vector<unsigned> words{0, 1, 999, 500, 1000, 77};  // range 1001
  cudalab::DeviceBuffer<unsigned char> b(bytes);
  cudalab::DeviceBuffer<unsigned> w(words);
  cudalab::InputSets sets;
  sets.add_rotated(b, 256);
  sets.add_rotated(w, 1001);
  for (int rep : {0, 1, 2, 255, 256, 1000}) {
    sets.use_rep(rep);
    EXPECT_EQ(sets.rotation(256), cudalab::fresh_rotation(rep, 256));
    const std::vector<unsigned char> got = b.download();
    const std::vector<unsigned> got_words = w.download();
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      EXPECT_EQ(got[i], (bytes[i] + cudalab::fresh_rotation(rep, 256)) % 256) << rep;
    }
    for (std::size_t i = 0; i < words.size(); ++i) {
      EXPECT_EQ(got_words[i], (words[i] + cudalab::fresh_rotation(rep, 1001)) % 1001) << rep;
    }
  }
  sets.use(0);
  EXPECT_EQ(b.download(), bytes);
  EXPECT_EQ(w.download(), words);
  cudalab::InputSets bad;
  EXPECT_THROW(bad.add_rotated(b, 257), std::invalid_argument);
  EXPECT_THROW(bad.add_rotated(w, 0), std::invalid_argument);
}

// Float keys with shifted exponents (InputSets::add_exponent_shifted, the float sort's fresh
// inputs): each repetition's keys are shift_exponent of the base's, NaN payloads and the zeros'
// signs kept, and the base comes back with use(0).
TEST(FreshInputs, EachRepetitionsFloatKeysAreTheBaseShifted) {
  CUDALAB_REQUIRE_GPU();
  const std::vector<unsigned> keys{0x3F800000u, 0xC0600000u, 0x00000000u, 0x80000000u, 0x7F800000u,
                                   0x7FC00123u, 0xFFC00001u, 0x00000005u, 0x0D800000u};
  cudalab::DeviceBuffer<unsigned> w(keys);
  cudalab::InputSets sets;
  sets.add_exponent_shifted(w);
  for (int rep : {0, 1, 19, 20, 39, 40}) {
    sets.use_rep(rep);
    EXPECT_EQ(sets.exponent_shift(), cudalab::fresh_exponent_shift(rep));
    const std::vector<unsigned> got = w.download();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      EXPECT_EQ(got[i], cudalab::shift_exponent(keys[i], cudalab::fresh_exponent_shift(rep))) << rep << " key " << i;
    }
    EXPECT_NE(got[0], keys[0]) << rep;
  }
  sets.use(0);
  EXPECT_EQ(w.download(), keys);
}

// Rows rotated by columns (InputSets::add_row_rotated, the softmax's fresh inputs), 2- and 4-byte
// elements and an odd row length, and BF16 scaled by powers of two (add_scaled_bf16: V of the
// attention lab, A of the BF16 matmul), exactly.
TEST(FreshInputs, RowsRotateByColumnsAndBf16ScalesExactly) {
  CUDALAB_REQUIRE_GPU();
  const std::size_t rows = 3, cols = 7;
  std::vector<std::uint16_t> halves(rows * cols);
  std::vector<unsigned> words(rows * cols);
  for (std::size_t i = 0; i < rows * cols; ++i) {
    halves[i] = static_cast<std::uint16_t>(100 + i);
    words[i] = static_cast<unsigned>(1000 * i + 1);
  }
  const std::vector<std::uint16_t> bf16{0x3F80, 0xC040, 0x0000, 0x8000, 0x3C01, 0x4B7F};  // 1, -3, +-0, ...
  cudalab::DeviceBuffer<std::uint16_t> h(halves), b(bf16);
  cudalab::DeviceBuffer<unsigned> w(words);
  cudalab::InputSets sets;
  sets.add_row_rotated(h.data(), rows, cols, 2);
  sets.add_row_rotated(w.data(), rows, cols, 4);
  sets.add_scaled_bf16(b);
  for (int rep : {0, 1, 2, 5, 6, 40}) {
    sets.use_rep(rep);
    const std::size_t shift = static_cast<std::size_t>(cudalab::fresh_rotation(rep, cols));
    EXPECT_EQ(sets.rotation(cols), shift);
    const std::vector<std::uint16_t> got_h = h.download(), got_b = b.download();
    const std::vector<unsigned> got_w = w.download();
    for (std::size_t r = 0; r < rows; ++r) {
      for (std::size_t c = 0; c < cols; ++c) {
        EXPECT_EQ(got_h[r * cols + c], halves[r * cols + (c + shift) % cols]) << rep;
        EXPECT_EQ(got_w[r * cols + c], words[r * cols + (c + shift) % cols]) << rep;
      }
    }
    for (std::size_t i = 0; i < bf16.size(); ++i) {
      const float want = cudalab::from_bf16_bits(bf16[i]) * static_cast<float>(cudalab::fresh_multiplier(rep));
      EXPECT_EQ(cudalab::from_bf16_bits(got_b[i]), want) << rep << " element " << i;
    }
  }
  sets.use(0);
  EXPECT_EQ(h.download(), halves);
  EXPECT_EQ(w.download(), words);
  EXPECT_EQ(b.download(), bf16);
  cudalab::InputSets bad;
  EXPECT_THROW(bad.add_row_rotated(w.data(), rows, cols, 8), std::invalid_argument);
}

// A "kernel" that keeps the outputs it computed by its input's first element and replays one
// when it sees that element again; the rest of the rung checks every element against 2 x input.
struct Caching {
  cudalab::DeviceBuffer<float> in, out;
  std::map<float, std::vector<float>> seen;
  int computed = 0, replayed = 0;
  explicit Caching(const std::vector<float>& x) : in(x), out(x.size()) {}
  cudalab::Rung rung(cudalab::InputSets& sets) {
    cudalab::Rung r;
    r.name = "caching";
    r.bytes = 8.0 * static_cast<double>(in.size());
    r.poison = [this] { out.fill_bytes(0xFF); };
    r.launch = [this] {
      float key = 0;
      CUDA_CHECK(cudaMemcpy(&key, in.data(), sizeof key, cudaMemcpyDeviceToHost));
      if (auto hit = seen.find(key); hit != seen.end()) {
        out.upload(hit->second);
        ++replayed;
        return;
      }
      twice<<<static_cast<unsigned>((in.size() + 255) / 256), 256>>>(in.data(), out.data(), static_cast<int>(in.size()));
      CUDA_CHECK(cudaGetLastError());
      seen[key] = out.download();
      ++computed;
    };
    r.check = [this] {
      const std::vector<float> x = in.download(), y = out.download();
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (y[i] != 2.0f * x[i]) return false;
      }
      return true;
    };
    r.check_each = [check = r.check](int) { return check(); };
    r.refresh = sets.refresh();
    return r;
  }
};

TEST(FreshInputs, ACachingKernelReplaysUnderTwoSetsAndMustComputeUnderFreshOnes) {
  CUDALAB_REQUIRE_GPU();
  cudalab::Benchmarker bench({1, 20, false});
  std::vector<float> x(4099);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.5f + static_cast<float>(i % 97);
  {  // the gap: two alternating sets, every launch checked, and still it replays and passes
    Caching c(x);
    cudalab::InputSets two;
    std::vector<float> minus(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) minus[i] = -x[i];
    two.add(c.in, minus);
    const cudalab::LadderResult r = cudalab::run_ladder(bench, {c.rung(two)});
    EXPECT_TRUE(r.rungs[0].result.correct);
    EXPECT_GT(c.replayed, 15);  // it computed twice, one per set, and timed its replays
  }
  {  // the defence: every timed launch sees inputs no launch saw before
    Caching c(x);
    cudalab::InputSets fresh;
    fresh.add_scaled(c.in);
    const cudalab::LadderResult r = cudalab::run_ladder(bench, {c.rung(fresh)});
    EXPECT_TRUE(r.rungs[0].result.correct);
    // the one replay is the untimed warm-up, which sees the base inputs again; each of the 20
    // timed launches saw inputs never seen before and did the work
    EXPECT_LE(c.replayed, 1);
    EXPECT_EQ(c.computed, 1 + 20);
  }
}

}  // namespace
