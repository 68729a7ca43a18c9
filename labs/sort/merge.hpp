#pragma once
// sort: the merge sort's steps as functions of a thread's index, shared by the kernels (sort.cu)
// and the CPU test that runs them thread by thread (sort_cpu_test.cpp), so that the indexing the
// GPU runs is the indexing the CPU checks.
//
// A tile of kMergeTile keys lives in shared memory at padded positions (one word skipped every 32:
// `merge_slot`), so that both a warp's 32 consecutive keys and its 32 threads' runs of
// kMergeItems keys (thread t's at t * kMergeItems) fall in 32 different banks.
#include <cstddef>
#include <cstdint>

#include "common/math.hpp"
#include "sort.hpp"

namespace sort {

constexpr int kMergeThreads = 256, kMergeItems = 16, kMergeTile = kMergeThreads * kMergeItems;  // 4096 keys a block
constexpr int kMergeSlots = kMergeTile + kMergeTile / 32;  // the padded tile, in words

CUDALAB_HD inline int merge_slot(int e) { return e + (e >> 5); }

// Merge path (PMPP chapter 12's co-rank): of the first `diag` outputs of the stable merge of
// a[0..la) and b[0..lb) (equal keys from a first), how many come from a. A binary search on the
// cross diagonal: a[mid] goes before b[diag - 1 - mid] unless b's key is smaller. `a(i)`, `b(j)`
// read a key (from global or shared memory); Index is the type of the positions.
template <bool FLOAT, typename Index, typename A, typename B>
CUDALAB_HD Index merge_path(A a, Index la, B b, Index lb, Index diag) {
  Index lo = diag > lb ? diag - lb : 0;
  Index hi = diag < la ? diag : la;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    if (bits_of(b(diag - 1 - mid), FLOAT) < bits_of(a(mid), FLOAT)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return lo;
}

// ITEMS outputs of a merge of two runs of one padded shared tile s: a from position a to a_end,
// b from b to b_end (positions in the tile, before padding). Writes each output's key and its
// position in the tile (to gather its value). Past both ends it repeats the last position; the
// caller keeps only the outputs it has.
template <bool FLOAT, int ITEMS>
CUDALAB_HD inline void serial_merge(const std::uint32_t* s, int a, int a_end, int b, int b_end, std::uint32_t (&key)[ITEMS],
                                    int (&from)[ITEMS]) {
  const int last = kMergeTile - 1;
  std::uint32_t ka = s[merge_slot(a < last ? a : last)], kb = s[merge_slot(b < last ? b : last)];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 0; i < ITEMS; ++i) {
    const bool take_a = b >= b_end || (a < a_end && !(bits_of(kb, FLOAT) < bits_of(ka, FLOAT)));
    key[i] = take_a ? ka : kb;
    from[i] = take_a ? a : b;
    if (take_a) {
      ++a;
      ka = s[merge_slot(a < last ? a : last)];
    } else {
      ++b;
      kb = s[merge_slot(b < last ? b : last)];
    }
  }
}

// Sorts ITEMS keys in registers, stably: odd-even transposition (ITEMS rounds of compare-exchanges
// of neighbours, swapped only when strictly out of order), the values moved alike when PAIRS.
template <bool FLOAT, bool PAIRS, int ITEMS>
CUDALAB_HD inline void sort_registers(std::uint32_t (&key)[ITEMS], std::uint32_t (&value)[ITEMS]) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int r = 0; r < ITEMS; ++r) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = r & 1; i + 1 < ITEMS; i += 2) {
      if (bits_of(key[i + 1], FLOAT) < bits_of(key[i], FLOAT)) {
        const std::uint32_t k = key[i];
        key[i] = key[i + 1];
        key[i + 1] = k;
        if (PAIRS) {
          const std::uint32_t v = value[i];
          value[i] = value[i + 1];
          value[i + 1] = v;
        }
      }
    }
  }
}

// Thread t's step of a merge round inside a block's tile: the tile holds sorted runs of `width`
// keys (all kMergeTile positions: the last tile is padded); thread t makes outputs t * ITEMS ..
// of the merge of its pair of runs.
template <bool FLOAT, int ITEMS>
CUDALAB_HD inline void block_merge_step(const std::uint32_t* s, int width, int t, std::uint32_t (&key)[ITEMS],
                                        int (&from)[ITEMS]) {
  const int o = t * ITEMS;
  const int pair = o / (2 * width) * (2 * width);
  const int a0 = pair, b0 = pair + width;
  const auto at_a = [&](int i) { return s[merge_slot(a0 + i)]; };
  const auto at_b = [&](int j) { return s[merge_slot(b0 + j)]; };
  const int i = merge_path<FLOAT, int>(at_a, width, at_b, width, o - pair);
  serial_merge<FLOAT, ITEMS>(s, a0 + i, b0, b0 + (o - pair - i), b0 + width, key, from);
}

// What a block of a global merge pass (runs of `width` keys, width a multiple of kMergeTile)
// merges: outputs o .. o + count of the whole array, from a[a_lo..a_hi) and b[b_lo..b_hi) of its
// pair of runs, which start at `a` and `b` in the array.
struct MergeTile {
  std::size_t o, count, a, b, a_lo, a_hi, b_lo, b_hi;
};

// The pair of runs output o belongs to: its first run starts at `pair` with m keys, its second
// at pair + m with nb keys (fewer at the array's end).
struct MergePair {
  std::size_t pair, m, nb;
};

CUDALAB_HD inline MergePair merge_pair_of(std::size_t n, std::size_t width, std::size_t o) {
  MergePair p;
  p.pair = o / (2 * width) * (2 * width);
  p.m = n - p.pair < width ? n - p.pair : width;
  const std::size_t b0 = p.pair + p.m;
  p.nb = b0 >= n ? 0 : (n - b0 < width ? n - b0 : width);
  return p;
}

// The merge path of tile boundary q (output q * kMergeTile, at most n): how many of the outputs
// of its pair before it come from the pair's first run. One thread per boundary, in global memory.
template <bool FLOAT>
CUDALAB_HD inline std::size_t merge_partition(const std::uint32_t* keys, std::size_t n, std::size_t width, std::size_t q) {
  std::size_t o = q * static_cast<std::size_t>(kMergeTile);
  if (o > n) o = n;
  const MergePair p = merge_pair_of(n, width, o);
  const std::uint32_t* a = keys + p.pair;
  const std::uint32_t* b = a + p.m;
  return merge_path<FLOAT, std::size_t>([a](std::size_t i) { return a[i]; }, p.m, [b](std::size_t j) { return b[j]; },
                                        p.nb, o - p.pair);
}

// Block q's part of a global merge pass, from the partitions at its two boundaries (a block that
// ends its pair takes all of both runs' rest: the next boundary belongs to the next pair).
CUDALAB_HD inline MergeTile merge_tile_of(std::size_t n, std::size_t width, std::size_t q, const std::size_t* parts) {
  MergeTile t;
  t.o = q * static_cast<std::size_t>(kMergeTile);
  const std::size_t end = n - t.o < static_cast<std::size_t>(kMergeTile) ? n : t.o + kMergeTile;
  t.count = end - t.o;
  const MergePair p = merge_pair_of(n, width, t.o);
  t.a = p.pair;
  t.b = p.pair + p.m;
  t.a_lo = parts[q];
  t.a_hi = end - p.pair == p.m + p.nb ? p.m : parts[q + 1];
  t.b_lo = t.o - p.pair - t.a_lo;
  t.b_hi = end - p.pair - t.a_hi;
  return t;
}

// Thread t's step of a global merge pass once its block's tile is in shared memory: the block's
// la keys of the first run at positions 0 .. la, its count - la of the second after them.
template <bool FLOAT, int ITEMS>
CUDALAB_HD inline void tile_merge_step(const std::uint32_t* s, int la, int count, int t, std::uint32_t (&key)[ITEMS],
                                       int (&from)[ITEMS]) {
  const int diag = t * ITEMS < count ? t * ITEMS : count;
  const auto at_a = [&](int i) { return s[merge_slot(i)]; };
  const auto at_b = [&](int j) { return s[merge_slot(la + j)]; };
  const int i = merge_path<FLOAT, int>(at_a, la, at_b, count - la, diag);
  serial_merge<FLOAT, ITEMS>(s, i, la, la + diag - i, count, key, from);
}

}  // namespace sort
