#pragma once
// The sort lab's CPU side: the inputs, the CPU's stable sort (an LSD radix sort by sort_bits, so
// the answer for 2^28 keys takes seconds, not the minutes of a comparison sort on one core), and
// the checks.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/ladder.hpp"
#include "common/random.hpp"
#include "sort.hpp"

namespace sort {

enum class Dist { kUniform, kSorted, kReversed, kEqual, kFew };
inline const char* dist_name(Dist d) {
  switch (d) {
    case Dist::kUniform: return "uniform";
    case Dist::kSorted: return "sorted";
    case Dist::kReversed: return "reversed";
    case Dist::kEqual: return "equal";
    case Dist::kFew: return "few";
  }
  return "?";
}

// The stable order of `keys` by sort_bits: a permutation (LSD radix, 8 bits a pass, on the CPU).
inline std::vector<std::uint32_t> sorted_order(const std::vector<std::uint32_t>& keys, KeyType t) {
  const std::size_t n = keys.size();
  std::vector<std::uint32_t> order(n), next(n), bits(n);
  for (std::size_t i = 0; i < n; ++i) {
    order[i] = static_cast<std::uint32_t>(i);
    bits[i] = sort_bits(keys[i], t);
  }
  for (int shift = 0; shift < 32; shift += 8) {
    std::size_t count[257] = {};
    for (std::size_t i = 0; i < n; ++i) ++count[((bits[order[i]] >> shift) & 0xFF) + 1];
    for (int d = 0; d < 256; ++d) count[d + 1] += count[d];
    for (std::size_t i = 0; i < n; ++i) next[count[(bits[order[i]] >> shift) & 0xFF]++] = order[i];
    order.swap(next);
  }
  return order;
}

// Keys (raw bits) of a distribution from `seed`: uniform over all 2^32 bit patterns for uint32;
// for float, finite values over many magnitudes and both signs, with -0.0, +0.0, the infinities
// and NaNs of both signs sprinkled in. sorted / reversed / equal / few (16 distinct keys) are
// the inputs that break naive sorts.
inline std::vector<std::uint32_t> make_keys(std::size_t n, KeyType t, Dist d, std::uint64_t seed) {
  std::vector<std::uint32_t> k = cudalab::random_vector<std::uint32_t>(n, seed, 0u, 0xFFFFFFFFu);
  if (t == KeyType::kFloat) {
    const std::uint32_t specials[] = {0x80000000u, 0x00000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00001u};
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t x = k[i];
      const std::uint32_t exponent = ((x >> 23) & 0x1F) + 112;  // 2^-15 .. 2^16: finite, most of them
      x = (x & 0x807FFFFFu) | (exponent << 23);
      if (k[i] % 97 == 0) x = specials[(k[i] / 97) % 6];
      k[i] = x;
    }
  }
  if (d == Dist::kEqual) {
    for (auto& x : k) x = k[0];
  } else if (d == Dist::kFew && n > 0) {
    const std::vector<std::uint32_t> pool(k.begin(), k.begin() + static_cast<std::ptrdiff_t>(n < 16 ? n : 16));
    for (auto& x : k) x = pool[x % pool.size()];
  } else if (d == Dist::kSorted || d == Dist::kReversed) {
    const std::vector<std::uint32_t> order = sorted_order(k, t);
    std::vector<std::uint32_t> s(n);
    for (std::size_t i = 0; i < n; ++i) s[i] = k[order[d == Dist::kSorted ? i : n - 1 - i]];
    k.swap(s);
  }
  return k;
}

// What a sort must leave: the keys (and values) in their stable order.
struct Answer {
  std::vector<std::uint32_t> keys, values;
};

inline Answer reference(const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>* values, KeyType t) {
  const std::vector<std::uint32_t> order = sorted_order(keys, t);
  Answer a;
  a.keys.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) a.keys[i] = keys[order[i]];
  if (values) {
    a.values.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) a.values[i] = (*values)[order[i]];
  }
  return a;
}

// The answer to the base keys plus c modulo 2^32 (uint32 keys; values, where there are, plus c too),
// from the base's answer: a key that wraps past 2^32 now sorts first, so the answer is the base's
// rotated at the first key >= 2^32 - c, every key and value plus c. Equal keys wrap together and
// keep their order: the stable answer stays stable.
inline Answer rotated(const Answer& base, std::uint32_t c) {
  const std::size_t n = base.keys.size();
  std::size_t wrap = n;  // the first base key that wraps (the keys are in order)
  if (c != 0) {
    std::size_t lo = 0, hi = n;
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (base.keys[mid] >= 0u - c) hi = mid; else lo = mid + 1;
    }
    wrap = lo;
  }
  Answer a;
  a.keys.resize(n);
  a.values.resize(base.values.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t from = (wrap + i) % n;
    a.keys[i] = base.keys[from] + c;
    if (!base.values.empty()) a.values[i] = base.values[from] + c;
  }
  return a;
}

// The answer to the base float keys times 2^k (cudalab::shift_exponent on every key): the order
// and its ties are the base's, every key shifted.
inline Answer exponent_shifted(const Answer& base, int k) {
  Answer a = base;
  for (auto& key : a.keys) key = cudalab::shift_exponent(key, k);
  return a;
}

// The index of the first wrong element (the size: none), printed on stderr with `what` first.
// Pairs and uint32 keys: every key and value bit for bit (the stable order is one answer). Float
// keys without values: the sort bits in order, and the same multiset of raw bits (an unstable sort
// may put -0.0 and +0.0, or NaNs of one sort key, in either order).
inline std::size_t first_mismatch(const Answer& want, const std::uint32_t* keys, const std::uint32_t* values, KeyType t,
                                  bool stable_required, const char* what) {
  const std::size_t n = want.keys.size();
  const bool exact = stable_required || t == KeyType::kU32;
  for (std::size_t i = 0; i < n; ++i) {
    const bool same = exact ? keys[i] == want.keys[i] : sort_bits(keys[i], t) == sort_bits(want.keys[i], t);
    if (!same) {
      std::fprintf(stderr, "%s: key %zu is 0x%08x, expected 0x%08x\n", what, i, keys[i], want.keys[i]);
      return i;
    }
    if (values && values[i] != want.values[i]) {
      std::fprintf(stderr, "%s: value %zu is %u, expected %u (the sort is not stable)\n", what, i, values[i], want.values[i]);
      return i;
    }
  }
  if (!exact) {  // the same raw keys, in whatever order equal sort keys took
    std::vector<std::uint32_t> got(keys, keys + n), expected = want.keys;
    const std::vector<std::uint32_t> a = sorted_order(got, KeyType::kU32), b = sorted_order(expected, KeyType::kU32);
    for (std::size_t i = 0; i < n; ++i) {
      if (got[a[i]] != expected[b[i]]) {
        std::fprintf(stderr, "%s: the keys are not the input's (a key's bits changed)\n", what);
        return i;
      }
    }
  }
  return n;
}

}  // namespace sort
