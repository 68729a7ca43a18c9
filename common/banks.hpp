#pragma once
// Shared-memory bank arithmetic: 32 banks of 4-byte words. A warp's shared-memory request takes
// as many passes (wavefronts) as the largest number of *distinct* words any one bank must serve;
// lanes that read the same word are served together (a broadcast), so bytes of one word never
// conflict. Used by the tests that check the notes' conflict claims, and by the labs that teach them.
#include <algorithm>
#include <cstddef>
#include <set>
#include <vector>

namespace cudalab {

inline constexpr int kSharedBanks = 32;
inline constexpr std::size_t kBankWordBytes = 4;

// The bank of a byte address in shared memory.
inline int bank_of(std::size_t byte_address) {
  return static_cast<int>((byte_address / kBankWordBytes) % kSharedBanks);
}

// The conflict degree of one warp-wide request: for each bank, the number of distinct words the
// lanes touch in it; the maximum over banks (1 = conflict-free; 32 = every lane its own word in
// one bank). `byte_addresses` holds one address per active lane; empty -> 0.
inline int conflict_degree(const std::vector<std::size_t>& byte_addresses) {
  std::vector<std::set<std::size_t>> words(kSharedBanks);
  for (std::size_t a : byte_addresses) words[static_cast<std::size_t>(bank_of(a))].insert(a / kBankWordBytes);
  std::size_t degree = 0;
  for (const auto& w : words) degree = std::max(degree, w.size());
  return static_cast<int>(degree);
}

// The byte addresses of lanes 0..lanes-1 reading element[index(t)] of an array of `element_bytes`.
template <typename IndexFn>
std::vector<std::size_t> lane_addresses(int lanes, std::size_t element_bytes, IndexFn index) {
  std::vector<std::size_t> a;
  for (int t = 0; t < lanes; ++t) a.push_back(static_cast<std::size_t>(index(t)) * element_bytes);
  return a;
}

}  // namespace cudalab
