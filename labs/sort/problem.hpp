#pragma once
// The sort lab's problem, stated once for every variant and for CUB (common/driver.hpp): the keys
// (and values) and the CPU's stable sort of them, the bytes a sort must move (read every key and
// value, write it once), the poisoned outputs, the check, and fresh inputs for every timed launch
// that catch a replayed or cached result: uint32 keys (and values) plus a rotation modulo 2^32
// (another order every launch: the keys that wrap sort first), float keys times 2^k (their
// exponents shifted: the same order, every key new). The answer to each follows from the base's.
#include <algorithm>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/timer.hpp"
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

  // The CPU's std::sort of the keys (std::stable_sort of the pairs), one core, in ms: the first
  // row of "does it pay?". Floats by their sort bits (the order the GPU sorts them in).
  double cpu_sort_ms() const {
    const auto t0 = std::chrono::steady_clock::now();
    if (pairs_) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> kv(keys_.size());
      for (std::size_t i = 0; i < kv.size(); ++i) kv[i] = {keys_[i], values_[i]};
      std::stable_sort(kv.begin(), kv.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    } else {
      std::vector<std::uint32_t> k = keys_;
      const KeyType t = t_;
      std::sort(k.begin(), k.end(), [t](std::uint32_t a, std::uint32_t b) { return sort_bits(a, t) < sort_bits(b, t); });
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  // A sort whose keys (and values) start and end in host memory: the copies in (pageable), the
  // variant's sort (or CUB's with `variant` empty), the sorted copies out; timed `repeat` times.
  // The base keys are in the buffers afterwards.
  cudalab::Timing end_to_end(const std::string& variant, int repeat) {
    Variant v{};
    const bool cub = variant.empty();
    if (!cub && !parse_variant(variant, &v)) throw std::invalid_argument("sort: no variant " + variant);
    std::vector<std::uint32_t> out_keys(keys_.size()), out_values(values_.size());
    cudalab::Benchmarker bench({1, repeat, false});
    const cudalab::Timing t = bench.run([&] {
      d_keys_.upload(keys_);
      if (pairs_) d_values_.upload(values_);
      last_ = cub ? cub_.run() : sort::sort(v, t_, d_keys_.data(), pairs_ ? d_values_.data() : nullptr, keys_.size(), ws_);
      if (!keys_.empty()) {
        CUDA_CHECK(cudaMemcpy(out_keys.data(), last_.keys, keys_.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
        if (pairs_) {
          CUDA_CHECK(cudaMemcpy(out_values.data(), last_.values, keys_.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
        }
      }
    });
    if (sets_) sets_->use(0);  // the buffers hold the base keys: say so
    const std::string what = cub ? "cub (end to end)" : variant + " (end to end)";
    if (first_mismatch(want_, out_keys.data(), pairs_ ? out_values.data() : nullptr, t_, pairs_, what.c_str()) !=
        keys_.size()) {
      throw std::runtime_error("sort: the end-to-end sort of " + (cub ? std::string("CUB") : variant) + " is wrong");
    }
    return t;
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
