#pragma once
// The sort lab's problem, stated once for every variant and for CUB (common/driver.hpp): the keys
// (and values) and the CPU's stable sort of them, the bytes a sort must move (read every key and
// value, write it once), the poisoned outputs, the check, and fresh inputs for every timed launch
// that catch a replayed or cached result: uint32 keys (and values) plus a rotation modulo 2^32
// (another order every launch: the keys that wrap sort first), float keys times 2^k (their
// exponents shifted: the same order, every key new). The answer to each follows from the base's.
#include <memory>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/variants.hpp"
#include "reference.hpp"
#include "sort.hpp"

namespace sort {

class Problem {
 public:
  Problem(std::size_t n, KeyType t, bool pairs, Dist d, std::uint64_t seed, cudalab::Replays replays)
      : t_(t), pairs_(pairs), keys_(make_keys(n, t, d, seed)),
        values_(pairs ? cudalab::random_vector<std::uint32_t>(n, seed + 1, 0u, 0xFFFFFFFFu) : std::vector<std::uint32_t>{}),
        d_keys_(keys_), d_values_(values_), ws_(n, pairs), cub_(t, d_keys_.data(), pairs ? d_values_.data() : nullptr, n) {
    want_ = reference(keys_, pairs ? &values_ : nullptr, t);
    if (replays == cudalab::Replays::kCaught) {
      sets_ = std::make_unique<cudalab::InputSets>();
      if (t == KeyType::kFloat) {
        sets_->add_exponent_shifted(d_keys_);
      } else {
        sets_->add_rotated(d_keys_, kKeyRange);
      }
      if (pairs) sets_->add_rotated(d_values_, kKeyRange);
    }
  }
  Problem(const Problem&) = delete;  // its rungs hold references to it
  Problem& operator=(const Problem&) = delete;

  double bytes() const { return (pairs_ ? 16.0 : 8.0) * static_cast<double>(keys_.size()); }
  double flops() const { return 0; }
  void poison() {
    ws_.poison();
    cub_.poison();
  }
  bool check(const std::string& variant) const {
    const std::size_t n = keys_.size();
    std::vector<std::uint32_t> keys(n), values(pairs_ ? n : 0);
    if (n > 0) {
      CUDA_CHECK(cudaMemcpy(keys.data(), last_.keys, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
      if (pairs_) CUDA_CHECK(cudaMemcpy(values.data(), last_.values, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    }
    return first_mismatch(current_answer(), keys.data(), pairs_ ? values.data() : nullptr, t_, pairs_, variant.c_str()) == n;
  }
  cudalab::InputSets* replay_sets() { return sets_.get(); }
  std::size_t size() const { return keys_.size(); }
  // The answer to the keys (and values) in the buffers now.
  Answer current_answer() const {
    if (!sets_ || sets_->current() < 0) return want_;
    if (t_ == KeyType::kFloat) return exponent_shifted(want_, sets_->exponent_shift());
    return rotated(want_, static_cast<std::uint32_t>(sets_->rotation(kKeyRange)));
  }

  // One rung per chosen variant that can sort this problem (pairs: the stable ones), its launches
  // and G keys/s as cells; then CUB's.
  std::vector<cudalab::Rung> rungs(const std::string& chosen) {
    std::vector<cudalab::Rung> rungs;
    for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
      if (pairs_ && !is_stable(v)) continue;
      const auto launches = std::make_shared<int>(0);
      cudalab::Rung r = cudalab::problem_rung(*this, variant_name(v), [this, v, launches] {
        last_ = sort::sort(v, t_, d_keys_.data(), pairs_ ? d_values_.data() : nullptr, keys_.size(), ws_);
        *launches = last_.launches;
      });
      r.cells = [launches] { return std::vector<cudalab::Cell>{{"launches", "launches", *launches}}; };
      rungs.push_back(std::move(r));
    }
    rungs.push_back(cudalab::baseline_rung(*this, pairs_ ? "cub::DeviceRadixSort::SortPairs" : "cub::DeviceRadixSort::SortKeys",
                                           [this] { last_ = cub_.run(); }));
    return rungs;
  }

 private:
  static constexpr std::uint64_t kKeyRange = std::uint64_t{1} << 32;
  KeyType t_;
  bool pairs_;
  std::vector<std::uint32_t> keys_, values_;
  Answer want_;  // the base keys' answer
  cudalab::DeviceBuffer<std::uint32_t> d_keys_, d_values_;
  Workspace ws_;
  CubSort cub_;
  Sorted last_;
  std::unique_ptr<cudalab::InputSets> sets_;
};

}  // namespace sort
