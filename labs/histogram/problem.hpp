#pragma once
// The histogram lab's problem, stated once for every variant and for CUB (common/driver.hpp):
// the keys and the CPU's histogram of them, the device bins, the bytes a count must move, the
// poison, the check of every bin, and fresh keys for every timed launch: the keys plus a
// rotation modulo their range, a new one each launch (InputSets::add_rotated), whose histogram
// the CPU derives from its count of every key value, so each launch's bins are checked.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/variants.hpp"
#include "histogram.hpp"
#include "reference.hpp"

namespace histogram {

template <typename K>
class Problem {
 public:
  Problem(std::size_t n, unsigned bins, Dist dist, std::uint64_t seed, cudalab::Replays replays)
      : bins_(bins), keys_(make_keys<K>(n, bins, dist, seed)), in_(keys_), hist_(bins), cub_(in_.data(), n, bins, hist_.data()) {
    values_ = value_counts(keys_, bins);
    if (replays == cudalab::Replays::kCaught) {
      sets_ = std::make_unique<cudalab::InputSets>();
      sets_->add_rotated(in_, key_range<K>(bins));
    }
  }
  Problem(const Problem&) = delete;  // its rungs hold references to it
  Problem& operator=(const Problem&) = delete;

  double bytes() const { return static_cast<double>(keys_.size()) * sizeof(K) + 4.0 * bins_; }  // read keys, write bins
  double flops() const { return 0; }
  void poison() { hist_.fill_bytes(0x7F); }  // every launch zeroes the bins first: poison is never a count
  // The check reads the bins (at most 65,536): cheap enough after every timed launch.
  static constexpr bool kCheckEveryLaunch = true;
  bool check(const std::string& variant) const {
    const std::vector<unsigned> got = hist_.download();
    const std::vector<unsigned> want = current_answer();
    return first_wrong_bin(want, got.data(), variant.c_str()) == want.size();
  }
  cudalab::InputSets* replay_sets() { return sets_.get(); }

  // One rung per chosen variant (its cells: the plan's blocks, shared memory, private copies and
  // cluster size; a fallback when the plan runs another kernel), then CUB's.
  std::vector<cudalab::Rung> rungs(const std::string& chosen) {
    std::vector<cudalab::Rung> rungs;
    for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
      const Launch launch = plan(v, in_.data(), keys_.size(), bins_);
      cudalab::Rung r = cudalab::problem_rung(*this, variant_name(v), [this, v] {
        count(v, in_.data(), keys_.size(), bins_, hist_.data());
      });
      r.fallback = launch.fallback;
      r.cells = [launch] {
        return std::vector<cudalab::Cell>{{"blocks", "blocks", static_cast<long long>(launch.blocks)},
                                          {"smem_kb", "smem KB", static_cast<double>(launch.smem_bytes) / 1024.0},
                                          {"copies", "copies", static_cast<long long>(launch.copies)},
                                          {"cluster", "cluster", static_cast<long long>(launch.cluster)}};
      };
      rungs.push_back(std::move(r));
    }
    rungs.push_back(cudalab::baseline_rung(*this, "cub::DeviceHistogram::HistogramEven", [this] { cub_.run(); }));
    return rungs;
  }

 private:
  // The bins of the keys in the buffer now: the base keys' values, rotated.
  std::vector<unsigned> current_answer() const {
    return rotated_histogram<K>(values_, bins_, sets_ ? sets_->rotation(values_.size()) : 0);
  }

  unsigned bins_;
  std::vector<K> keys_;
  std::vector<unsigned> values_;  // how many keys have each value in [0, key_range)
  cudalab::DeviceBuffer<K> in_;
  cudalab::DeviceBuffer<unsigned> hist_;
  CubHistogram<K> cub_;
  std::unique_ptr<cudalab::InputSets> sets_;
};

}  // namespace histogram
