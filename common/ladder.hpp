#pragma once
// The one variant driver of the ladder labs (vec_add, rgba_split, reduction, divergence).
//
// A lab describes each variant once, bound to its problem, as a Rung: how to poison the output,
// how to launch, how to check the result against the CPU reference, the bytes one launch must
// move. run_ladder then does for every lab what each main() used to write by hand:
//
//   for each rung:  poison -> launch -> check (first mismatch on stderr) -> time (Benchmarker),
//                   the output poisoned again before the last timed launch -> check again
//   then:           GB/s, % of peak, % of the copy ceiling, the best correct variant; a result
//                   faster than physics is "suspect" (mark_suspects), never the best
//
// and report_ladder prints the standard table and the best_* fields (text or --json). A variant
// that cannot run as asked (a vector kernel given misaligned pointers) carries its reason in
// Rung::fallback and is reported with it: never silently replaced.
//
// Sweeps (bandwidth over N for the plots) call run_ladder once per size; sweep_sizes is the one
// place that decides how far a sweep may go in device memory.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "common/bandwidth.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"

namespace cudalab {

// One variant of a lab, bound to one problem.
struct Rung {
  std::string name;                 // the variant's name, as --variant takes it
  double bytes = 0;                 // bytes one launch must read + write (the napkin minimum)
  std::function<void()> poison;     // makes every output element wrong (unwritten ones then fail)
  std::function<void()> launch;     // enqueues one run on the default stream
  std::function<bool()> check;      // compares with the CPU reference; prints why not on stderr
  std::string fallback;             // non-empty: why a different kernel runs (reported, not hidden)
  bool time_first_launch = false;   // also time the very first launch (module load included)
  // Optional: called before timed repetition i (outside the timing) to give it inputs the one
  // before did not see (InputSets::use(i % 2)); `check` must then judge the inputs last given.
  std::function<void(int)> refresh{};
};

// Two contents for the inputs of a problem, swapped into the same device buffers before each
// timed repetition (Rung::refresh): a kernel that caches its result, or replays an earlier
// call's, is wrong on the next repetition, and the check after timing sees it. Each input keeps
// both contents in device memory beside itself (twice its size again); set 0 is what the buffer
// held when added, and is what it holds again after use(0).
class InputSets {
 public:
  // `device`: an input buffer the kernels read, holding set 0 now; `second`: set 1, on the host.
  void add(void* device, std::size_t bytes, const void* second);
  template <typename T>
  void add(DeviceBuffer<T>& device, const std::vector<T>& second) {
    add(device.data(), device.bytes(), second.data());
  }
  void use(int set);  // 0 or 1: copies that set into every input (device to device)
  int current() const { return current_; }
  // The refresh of a rung: set rep % 2 before repetition rep.
  std::function<void(int)> refresh() {
    return [this](int rep) { use(rep % 2); };
  }

 private:
  struct Input {
    void* device;
    std::size_t bytes;
    DeviceBuffer<unsigned char> sets[2];
  };
  std::vector<Input> inputs_;
  int current_ = 0;
};

// What a result's "ok" column says: "yes", "NO" (wrong), or "suspect" (right, but faster than
// physics: VariantResult::suspect).
const char* verdict(const VariantResult& r);

struct RungResult {
  VariantResult result;             // name, timing, bytes, correct
  double first_launch_ms = -1;      // with Rung::time_first_launch
  std::string fallback;
  bool wrong_after_timing = false;  // right before timing, wrong after the last timed launch
};

struct LadderResult {
  std::vector<RungResult> rungs;    // in ladder order
  bool all_ok = true;               // every rung matched the reference
  int best = -1;                    // the fastest correct rung (highest GB/s, or least time); -1: none
  std::vector<VariantResult> results() const;
  const VariantResult& best_result() const { return rungs.at(static_cast<std::size_t>(best)).result; }
};

// The first fields of a ladder lab's report, in this order: device, element type, threads per
// block, theoretical DRAM bandwidth.
void report_setup(Report& report, const DeviceFacts& facts, const std::string& type, int block);

// Runs every rung: first launch (timed when asked), poison, launch, check, then `bench.run` with
// the output poisoned before its last timed launch, and the check again after it: a kernel that
// computes only on its first launches is wrong, not fast.
LadderResult run_ladder(Benchmarker& bench, const std::vector<Rung>& rungs);

// The fastest correct rung that is not suspect (LadderResult::best; -1 when none).
void choose_best(LadderResult& ladder);

// Marks the rungs faster than physics (mark_suspects with this run's peak, copy ceiling and the
// device's L2) and chooses the best again without them. report_ladder calls it.
void judge_physics(LadderResult& ladder, double peak_gbps, double copy_gbps);

// The standard report of a bandwidth ladder: heading, the "variants" table (bandwidth_table),
// a note per fallback, and the fields best_variant, best_gbps, best_over_copy.
void report_ladder(Report& report, const LadderResult& ladder, double peak_gbps, double copy_gbps, int repeat);

// One line per rung that fell back: "vectorized: ran grid_stride (pointers not 16-byte aligned)".
std::vector<std::string> fallback_notes(const LadderResult& ladder);

// The table of a sweep: the size columns, then variant, median_us, gbps, the lab's yardstick
// (`versus`: % of the copy ceiling, x CUB) and correct ("yes"/"NO"), one row per variant and size.
Table sweep_table(std::vector<Column> size_columns, Column versus);
// One row: a rung's result, or a baseline that is not a rung (CUB).
void add_sweep_row(Table& table, std::vector<Value> size_cells, const VariantResult& r, Value versus);
// One row per rung of `ladder`, all at the size `size_cells`.
void add_sweep_rows(Table& table, const std::vector<Value>& size_cells, const LadderResult& ladder,
                    const std::function<Value(const VariantResult&)>& versus);

// Prints the sweep table under `heading` (JSON key "sweep"); returns the exit code: success
// when every rung at every size was correct, kExitWrongResult otherwise.
int report_sweep(Report& report, const std::string& heading, const Table& table, bool all_ok);

// The sizes of a sweep: first, first*factor, ... <= last, stopping before the first size whose
// bytes_needed(size) exceeds budget_bytes (by default usable_device_memory(), the one memory
// cap of every lab). Never empty when `first` fits; stops before a size that would overflow.
// Throws std::invalid_argument for first == 0.
std::vector<std::size_t> sweep_sizes(std::size_t first, std::size_t last, std::size_t factor,
                                     const std::function<double(std::size_t)>& bytes_needed,
                                     double budget_bytes = usable_device_memory());

}  // namespace cudalab
