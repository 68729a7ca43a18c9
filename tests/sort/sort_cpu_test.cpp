// The sort lab's CPU side: the sort bits (floats' total order, -0.0 as +0.0), the CPU's stable
// radix sort against std::stable_sort, the inputs of every distribution, the check (a wrong key,
// an unstable pair, a changed bit, and the orders an unstable float sort may take), the variant
// table, and the merge sort's kernels run thread by thread on the CPU (merge.hpp's steps, as the
// GPU runs them) against the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "merge.hpp"
#include "reference.hpp"
#include "sort.hpp"

namespace {

using sort::KeyType;

std::uint32_t bits(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

TEST(SortBits, FloatsInTheirTotalOrderWithTheZerosEqual) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> ascending{-inf, -1e30f, -2.0f, -1.0f, -1e-30f, 0.0f, 1e-30f, 1.0f, 2.0f, 1e30f, inf};
  for (std::size_t i = 1; i < ascending.size(); ++i) {
    EXPECT_LT(sort::sort_bits(bits(ascending[i - 1]), KeyType::kFloat), sort::sort_bits(bits(ascending[i]), KeyType::kFloat))
        << ascending[i - 1] << " < " << ascending[i];
  }
  EXPECT_EQ(sort::sort_bits(bits(-0.0f), KeyType::kFloat), sort::sort_bits(bits(0.0f), KeyType::kFloat));
  EXPECT_GT(sort::sort_bits(0x7FC00000u, KeyType::kFloat), sort::sort_bits(bits(inf), KeyType::kFloat));   // +NaN last
  EXPECT_LT(sort::sort_bits(0xFFC00000u, KeyType::kFloat), sort::sort_bits(bits(-inf), KeyType::kFloat));  // -NaN first
  EXPECT_EQ(sort::sort_bits(0x7FFFFFFFu, KeyType::kFloat), 0xFFFFFFFFu);  // the bitonic pad: the largest
  EXPECT_EQ(sort::sort_bits(123u, KeyType::kU32), 123u);
}

TEST(SortReference, TheRadixOrderIsStdStableSortsForEveryDistribution) {
  for (KeyType t : {KeyType::kU32, KeyType::kFloat}) {
    for (sort::Dist d : {sort::Dist::kUniform, sort::Dist::kSorted, sort::Dist::kReversed, sort::Dist::kEqual, sort::Dist::kFew}) {
      const std::vector<std::uint32_t> k = sort::make_keys(5003, t, d, 17);
      const std::vector<std::uint32_t> order = sort::sorted_order(k, t);
      std::vector<std::uint32_t> expected(k.size());
      for (std::size_t i = 0; i < k.size(); ++i) expected[i] = static_cast<std::uint32_t>(i);
      std::stable_sort(expected.begin(), expected.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return sort::sort_bits(k[a], t) < sort::sort_bits(k[b], t); });
      EXPECT_EQ(order, expected) << sort::key_type_name(t) << " " << sort::dist_name(d);
    }
  }
}

TEST(SortReference, InputsOfEachDistribution) {
  const auto sorted = sort::make_keys(1000, KeyType::kU32, sort::Dist::kSorted, 3);
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  const auto reversed = sort::make_keys(1000, KeyType::kU32, sort::Dist::kReversed, 3);
  EXPECT_TRUE(std::is_sorted(reversed.rbegin(), reversed.rend()));
  const auto equal = sort::make_keys(1000, KeyType::kU32, sort::Dist::kEqual, 3);
  EXPECT_EQ(std::count(equal.begin(), equal.end(), equal[0]), 1000);
  auto few = sort::make_keys(1000, KeyType::kU32, sort::Dist::kFew, 3);
  std::sort(few.begin(), few.end());
  EXPECT_LE(std::unique(few.begin(), few.end()) - few.begin(), 16);
  const auto floats = sort::make_keys(20000, KeyType::kFloat, sort::Dist::kUniform, 5);
  int zeros = 0, negative_zeros = 0, nans = 0, infs = 0, negatives = 0;
  for (std::uint32_t b : floats) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    zeros += b == 0;
    negative_zeros += b == 0x80000000u;
    nans += std::isnan(f);
    infs += std::isinf(f);
    negatives += f < 0;
  }
  EXPECT_GT(zeros, 0);
  EXPECT_GT(negative_zeros, 0);
  EXPECT_GT(nans, 0);
  EXPECT_GT(infs, 0);
  EXPECT_GT(negatives, 5000);
}

TEST(SortCheck, CatchesAWrongKeyAnUnstablePairAndAChangedBit) {
  const std::vector<std::uint32_t> keys = sort::make_keys(3000, KeyType::kU32, sort::Dist::kFew, 9);
  std::vector<std::uint32_t> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint32_t>(i * 7 + 1);
  const sort::Answer want = sort::reference(keys, &values, KeyType::kU32);
  EXPECT_EQ(sort::first_mismatch(want, want.keys.data(), want.values.data(), KeyType::kU32, true, "t"), keys.size());
  std::vector<std::uint32_t> v = want.values;
  std::swap(v[10], v[11]);  // keys 10 and 11 are equal (16 distinct in 3000): the order of equals
  ASSERT_EQ(want.keys[10], want.keys[11]);
  EXPECT_EQ(sort::first_mismatch(want, want.keys.data(), v.data(), KeyType::kU32, true, "t"), 10u);
  std::vector<std::uint32_t> k = want.keys;
  k[2999] ^= 1;
  EXPECT_EQ(sort::first_mismatch(want, k.data(), nullptr, KeyType::kU32, false, "t"), 2999u);
}

TEST(SortCheck, AnUnstableFloatSortMaySwapTheZerosButNotChangeABit) {
  const std::vector<std::uint32_t> keys{bits(1.0f), 0x80000000u, 0u, bits(-1.0f), 0x80000000u};
  const sort::Answer want = sort::reference(keys, nullptr, KeyType::kFloat);
  ASSERT_EQ(want.keys, (std::vector<std::uint32_t>{bits(-1.0f), 0x80000000u, 0u, 0x80000000u, bits(1.0f)}));  // stable
  std::vector<std::uint32_t> swapped{bits(-1.0f), 0u, 0x80000000u, 0x80000000u, bits(1.0f)};
  EXPECT_EQ(sort::first_mismatch(want, swapped.data(), nullptr, KeyType::kFloat, false, "t"), 5u);  // keys only: fine
  EXPECT_LT(sort::first_mismatch(want, swapped.data(), nullptr, KeyType::kFloat, true, "t"), 5u);   // stable: not
  std::vector<std::uint32_t> changed{bits(-1.0f), 0u, 0u, 0x80000000u, bits(1.0f)};  // a -0.0 became +0.0
  EXPECT_LT(sort::first_mismatch(want, changed.data(), nullptr, KeyType::kFloat, false, "t"), 5u);
}

TEST(SortVariants, TableAndStability) {
  const auto& all = sort::all_variants();
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(sort::variant_name(all.front()), "bitonic");
  EXPECT_FALSE(sort::is_stable(sort::Variant::kBitonic));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kMerge));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kRadix1));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kRadix4));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kRadix8));
  EXPECT_TRUE(sort::is_stable(sort::Variant::kOnesweep));
  for (sort::Variant v : all) {
    sort::Variant parsed{};
    EXPECT_TRUE(sort::parse_variant(sort::variant_name(v), &parsed));
    EXPECT_EQ(parsed, v);
  }
}

}  // namespace

namespace {

// The fresh inputs of every timed launch (sort::Problem): the answer to rotated uint32 keys and
// values, and to float keys times 2^k, derived from the base's answer, is the CPU's sort of those
// keys themselves: for every distribution (ties, the equal and sorted ones), pairs too, and
// rotations that wrap none, some or all of the keys.
TEST(SortFreshInputs, TheAnswerToRotatedKeysIsTheBaseAnswerRotated) {
  for (sort::Dist d : {sort::Dist::kUniform, sort::Dist::kFew, sort::Dist::kEqual, sort::Dist::kSorted, sort::Dist::kReversed}) {
    for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{1023}, std::size_t{4099}}) {
      const std::vector<std::uint32_t> keys = sort::make_keys(n, KeyType::kU32, d, 11 + n);
      const std::vector<std::uint32_t> values = cudalab::random_vector<std::uint32_t>(n, 5 + n, 0u, 0xFFFFFFFFu);
      const sort::Answer base = sort::reference(keys, &values, KeyType::kU32);
      std::vector<std::uint32_t> rotations{0u, 1u, 0x80000001u, 0xFFFFFFFFu, 0u - keys[0], 0u - keys[n / 2]};
      for (int rep = 0; rep < 3; ++rep) rotations.push_back(static_cast<std::uint32_t>(cudalab::fresh_rotation(rep, 1ull << 32)));
      for (std::uint32_t c : rotations) {
        std::vector<std::uint32_t> k2 = keys, v2 = values;
        for (auto& x : k2) x += c;
        for (auto& x : v2) x += c;
        const sort::Answer want = sort::reference(k2, &v2, KeyType::kU32);
        const sort::Answer got = sort::rotated(base, c);
        EXPECT_EQ(got.keys, want.keys) << sort::dist_name(d) << " n " << n << " c " << c;
        EXPECT_EQ(got.values, want.values) << sort::dist_name(d) << " n " << n << " c " << c;
      }
    }
  }
  const sort::Answer keys_only = sort::reference({5u, 0xFFFFFFFEu, 1u}, nullptr, KeyType::kU32);
  const sort::Answer r = sort::rotated(keys_only, 3u);
  EXPECT_EQ(r.keys, (std::vector<std::uint32_t>{1u, 4u, 8u}));
  EXPECT_TRUE(r.values.empty());
}

TEST(SortFreshInputs, TheAnswerToShiftedFloatKeysIsTheBaseAnswerShifted) {
  for (sort::Dist d : {sort::Dist::kUniform, sort::Dist::kFew, sort::Dist::kReversed}) {
    const std::size_t n = 5003;
    const std::vector<std::uint32_t> keys = sort::make_keys(n, KeyType::kFloat, d, 23);
    const sort::Answer base = sort::reference(keys, nullptr, KeyType::kFloat);
    for (int rep = 0; rep < 40; ++rep) {
      const int k = cudalab::fresh_exponent_shift(rep);
      std::vector<std::uint32_t> shifted = keys;
      for (auto& x : shifted) x = cudalab::shift_exponent(x, k);
      const sort::Answer want = sort::reference(shifted, nullptr, KeyType::kFloat);
      const sort::Answer got = sort::exponent_shifted(base, k);
      EXPECT_EQ(got.keys, want.keys) << sort::dist_name(d) << " k " << k;
      EXPECT_NE(shifted, keys) << "rep " << rep << " must change the keys";
    }
  }
}

TEST(FreshExponentShift, ShiftsNormalFloatsExactlyAndKeepsTheSpecials) {
  std::vector<int> seen;
  for (int rep = 0; rep < 80; ++rep) {
    const int k = cudalab::fresh_exponent_shift(rep);
    EXPECT_NE(k, 0) << rep;
    EXPECT_GE(k, -20);
    EXPECT_LE(k, 20);
    EXPECT_NE(k, cudalab::fresh_exponent_shift(rep + 1)) << rep;
    if (rep < 40) seen.push_back(k);
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());  // 40 shifts before one repeats
  EXPECT_EQ(cudalab::fresh_exponent_shift(-1), 0);
  for (float f : {1.0f, -3.5f, 1e-30f, -7e20f}) {
    for (int k : {-20, -1, 1, 20}) {
      float g;
      const std::uint32_t b = cudalab::shift_exponent(bits(f), k);
      std::memcpy(&g, &b, sizeof g);
      EXPECT_EQ(g, std::ldexp(f, k)) << f << " k " << k;
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (std::uint32_t special : {bits(0.0f), bits(-0.0f), bits(inf), bits(-inf), 0x7FC00123u, 0xFFC00001u, 0x00000005u}) {
    EXPECT_EQ(cudalab::shift_exponent(special, 7), special);
  }
  EXPECT_EQ(cudalab::shift_exponent(bits(3e38f), 1), bits(3e38f));  // would leave the normals: kept
}

}  // namespace

namespace {

// The merge sort of sort.cu, run on the CPU: the same steps (merge.hpp) for every thread of every
// block, with each barrier of the kernels a point where every thread has finished the step before.
// A step that reads shared memory writes its outputs to the thread's registers (here an array per
// thread); the write-back comes after all threads have read, as the kernels' barrier orders it.
template <bool FLOAT, bool PAIRS>
struct MergeEmulation {
  using Regs = std::vector<std::array<std::uint32_t, sort::kMergeItems>>;
  using From = std::vector<std::array<int, sort::kMergeItems>>;
  std::vector<std::uint32_t> sk = std::vector<std::uint32_t>(sort::kMergeSlots),
                             sv = std::vector<std::uint32_t>(sort::kMergeSlots);
  Regs key = Regs(sort::kMergeThreads), value = Regs(sort::kMergeThreads);
  From from = From(sort::kMergeThreads);

  void write_back(int count) {
    for (int t = 0; t < sort::kMergeThreads; ++t) {
      for (int i = 0; i < sort::kMergeItems; ++i) {
        value[t][i] = PAIRS ? sv.at(static_cast<std::size_t>(sort::merge_slot(from[t][i]))) : 0u;
      }
    }
    for (int t = 0; t < sort::kMergeThreads; ++t) {
      for (int i = 0; i < sort::kMergeItems; ++i) {
        const int at = t * sort::kMergeItems + i;
        if (at >= count) continue;
        sk[sort::merge_slot(at)] = key[t][i];
        sv[sort::merge_slot(at)] = value[t][i];
      }
    }
  }
  template <typename Step>
  void each_thread(Step step) {
    for (int t = 0; t < sort::kMergeThreads; ++t) {
      std::uint32_t k[sort::kMergeItems];
      int f[sort::kMergeItems];
      step(t, k, f);
      std::copy(k, k + sort::kMergeItems, key[t].begin());
      std::copy(f, f + sort::kMergeItems, from[t].begin());
    }
  }

  void block_sort(const std::uint32_t* keys, const std::uint32_t* values, std::uint32_t* keys_out,
                  std::uint32_t* values_out, std::size_t n, std::size_t block) {
    const std::size_t base = block * sort::kMergeTile;
    const int count = static_cast<int>(std::min<std::size_t>(n - base, sort::kMergeTile));
    for (int e = 0; e < sort::kMergeTile; ++e) {
      sk[sort::merge_slot(e)] = e < count ? keys[base + e] : (FLOAT ? 0x7FFFFFFFu : 0xFFFFFFFFu);
      sv[sort::merge_slot(e)] = e < count && PAIRS ? values[base + e] : 0u;
    }
    for (int t = 0; t < sort::kMergeThreads; ++t) {
      std::uint32_t k[sort::kMergeItems], v[sort::kMergeItems];
      for (int i = 0; i < sort::kMergeItems; ++i) {
        k[i] = sk[sort::merge_slot(t * sort::kMergeItems + i)];
        v[i] = sv[sort::merge_slot(t * sort::kMergeItems + i)];
      }
      sort::sort_registers<FLOAT, PAIRS, sort::kMergeItems>(k, v);
      std::copy(k, k + sort::kMergeItems, key[t].begin());
      std::copy(v, v + sort::kMergeItems, value[t].begin());
    }
    for (int t = 0; t < sort::kMergeThreads; ++t) {
      for (int i = 0; i < sort::kMergeItems; ++i) {
        sk[sort::merge_slot(t * sort::kMergeItems + i)] = key[t][i];
        sv[sort::merge_slot(t * sort::kMergeItems + i)] = value[t][i];
      }
    }
    for (int width = sort::kMergeItems; width < sort::kMergeTile; width *= 2) {
      each_thread([&](int t, std::uint32_t(&k)[sort::kMergeItems], int(&f)[sort::kMergeItems]) {
        sort::block_merge_step<FLOAT, sort::kMergeItems>(sk.data(), width, t, k, f);
      });
      write_back(sort::kMergeTile);
    }
    for (int e = 0; e < count; ++e) {
      keys_out[base + e] = sk[sort::merge_slot(e)];
      if (PAIRS) values_out[base + e] = sv[sort::merge_slot(e)];
    }
  }

  void pass_block(const std::uint32_t* keys, const std::uint32_t* values, std::uint32_t* keys_out, std::uint32_t* values_out,
                  std::size_t n, std::size_t width, const std::size_t* parts, std::size_t block) {
    const sort::MergeTile m = sort::merge_tile_of(n, width, block, parts);
    const int count = static_cast<int>(m.count), la = static_cast<int>(m.a_hi - m.a_lo);
    ASSERT_EQ(m.count, (m.a_hi - m.a_lo) + (m.b_hi - m.b_lo)) << "block " << block << " width " << width;
    for (int e = 0; e < count; ++e) {
      const std::size_t at = e < la ? m.a + m.a_lo + e : m.b + m.b_lo + (e - la);
      sk[sort::merge_slot(e)] = keys[at];
      sv[sort::merge_slot(e)] = PAIRS ? values[at] : 0u;
    }
    each_thread([&](int t, std::uint32_t(&k)[sort::kMergeItems], int(&f)[sort::kMergeItems]) {
      sort::tile_merge_step<FLOAT, sort::kMergeItems>(sk.data(), la, count, t, k, f);
    });
    write_back(count);
    for (int e = 0; e < count; ++e) {
      keys_out[m.o + e] = sk[sort::merge_slot(e)];
      if (PAIRS) values_out[m.o + e] = sv[sort::merge_slot(e)];
    }
  }

  // The whole sort: the block sort, then per pass the partitions and the blocks; returns the passes.
  int run(std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& values) {
    const std::size_t n = keys.size();
    const std::size_t tiles = (n + sort::kMergeTile - 1) / sort::kMergeTile;
    std::vector<std::uint32_t> kb[2] = {std::vector<std::uint32_t>(n), std::vector<std::uint32_t>(n)};
    std::vector<std::uint32_t> vb[2] = {std::vector<std::uint32_t>(n), std::vector<std::uint32_t>(n)};
    for (std::size_t q = 0; q < tiles; ++q) block_sort(keys.data(), values.data(), kb[0].data(), vb[0].data(), n, q);
    int cur = 0, passes = 0;
    std::vector<std::size_t> parts(tiles + 1);
    for (std::size_t width = sort::kMergeTile; width < n; width *= 2, cur ^= 1, ++passes) {
      for (std::size_t q = 0; q <= tiles; ++q) parts[q] = sort::merge_partition<FLOAT>(kb[cur].data(), n, width, q);
      for (std::size_t q = 0; q < tiles; ++q) {
        pass_block(kb[cur].data(), vb[cur].data(), kb[cur ^ 1].data(), vb[cur ^ 1].data(), n, width, parts.data(), q);
      }
    }
    keys = kb[cur];
    if (PAIRS) values = vb[cur];
    return passes;
  }
};

template <bool FLOAT, bool PAIRS>
void expect_merge_sort_sorts(std::size_t n, sort::Dist d, int passes) {
  const KeyType t = FLOAT ? KeyType::kFloat : KeyType::kU32;
  const std::vector<std::uint32_t> keys = sort::make_keys(n, t, d, 1000 + n);
  const std::vector<std::uint32_t> values = cudalab::random_vector<std::uint32_t>(n, 2000 + n, 0u, 0xFFFFFFFFu);
  const sort::Answer want = sort::reference(keys, PAIRS ? &values : nullptr, t);
  std::vector<std::uint32_t> k = keys, v = values;
  MergeEmulation<FLOAT, PAIRS> emulation;
  EXPECT_EQ(emulation.run(k, v), passes) << n;
  const std::string what = std::string(sort::key_type_name(t)) + (PAIRS ? " pairs " : " keys ") + sort::dist_name(d) +
                           " n=" + std::to_string(n);
  EXPECT_EQ(sort::first_mismatch(want, k.data(), PAIRS ? v.data() : nullptr, t, true, what.c_str()), n) << what;
}

}  // namespace

// Sizes around the tile (4096) and the thread's 16 keys, last tiles nearly full (3 x 4096 - 1:
// the last block's threads past its outputs run off both runs' ends), and 70,001 keys (5 global
// passes with a short last pair); every distribution, float keys with their specials, pairs for stability.
TEST(MergeSortSteps, TheKernelsStepsRunThreadByThreadSortStably) {
  const std::size_t tile = sort::kMergeTile;
  const std::vector<std::pair<std::size_t, int>> sizes{{1, 0},        {2, 0},        {15, 0},           {16, 0},
                                                       {17, 0},       {4095, 0},     {4096, 0},         {4097, 1},
                                                       {2 * tile, 1}, {2 * tile + 1, 2}, {3 * tile + 5, 2}, {3 * tile - 1, 2},
                                                       {5 * tile - 3, 3}, {70001, 5}};
  for (const auto& [n, passes] : sizes) {
    for (sort::Dist d : {sort::Dist::kUniform, sort::Dist::kFew, sort::Dist::kSorted, sort::Dist::kReversed, sort::Dist::kEqual}) {
      expect_merge_sort_sorts<false, false>(n, d, passes);
      expect_merge_sort_sorts<true, false>(n, d, passes);
      expect_merge_sort_sorts<false, true>(n, d, passes);
    }
  }
}

// Merge path at the corners: an empty run, every key of a before b's (and after), ties (a first).
TEST(MergeSortSteps, MergePathTakesEqualKeysFromTheFirstRun) {
  const std::vector<std::uint32_t> a{1, 2, 2, 5}, b{2, 2, 3};
  const auto at_a = [&](int i) { return a[static_cast<std::size_t>(i)]; };
  const auto at_b = [&](int j) { return b[static_cast<std::size_t>(j)]; };
  // the stable merge: 1a 2a 2a 2b 2b 3b 5a
  const int from_a[] = {0, 1, 2, 3, 3, 3, 3, 4};
  for (int diag = 0; diag <= 7; ++diag) {
    EXPECT_EQ((sort::merge_path<false, int>(at_a, 4, at_b, 3, diag)), from_a[diag]) << diag;
  }
  EXPECT_EQ((sort::merge_path<false, int>(at_a, 4, at_b, 0, 3)), 3);
  EXPECT_EQ((sort::merge_path<false, int>(at_a, 0, at_b, 3, 2)), 0);
}

// The padded tile: a warp's 32 consecutive keys and its 32 threads' runs of 16 keys (the i-th of
// each) fall in 32 different banks.
TEST(MergeSortSteps, ThePaddedTileIsFreeOfBankConflicts) {
  for (int warp = 0; warp < sort::kMergeThreads / 32; ++warp) {
    for (int i = 0; i < sort::kMergeItems; ++i) {
      std::vector<bool> striped(32, false), blocked(32, false);
      for (int lane = 0; lane < 32; ++lane) {
        const int t = warp * 32 + lane;
        striped[static_cast<std::size_t>(sort::merge_slot(i * sort::kMergeThreads + t) % 32)] = true;
        blocked[static_cast<std::size_t>(sort::merge_slot(t * sort::kMergeItems + i) % 32)] = true;
      }
      EXPECT_EQ(std::count(striped.begin(), striped.end(), true), 32) << warp << " " << i;
      EXPECT_EQ(std::count(blocked.begin(), blocked.end(), true), 32) << warp << " " << i;
    }
  }
}
