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
// The result is open rows: each RungResult has the standard fields (name, timing, bytes, FLOPs,
// correct, suspect, fallback) and the cells the lab names itself (Rung::cells: launches,
// divergent warps, sectors per request). One renderer, MeasurementTable, turns rows into the
// text table and the JSON rows of docs/schema/lab-report.schema.json; report_ladder prints it
// with the best_* fields. A baseline (CUB, cuBLAS) is a rung too (Rung::baseline): checked and
// timed the same way, never the best. A variant that cannot run as asked (a vector kernel given
// misaligned pointers) carries its reason in Rung::fallback and is reported with it: never
// silently replaced.
//
// Sweeps (bandwidth over N for the plots) call run_ladder once per size and add each to one
// MeasurementTable with the size as leading cells; sweep_sizes is the one place that decides how
// far a sweep may go in device memory.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/bandwidth.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/math.hpp"
#include "common/gpu_state.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"

namespace cudalab {

// A cell a lab adds to a row: its JSON key (with the unit in its name), its text title, its value.
struct Cell {
  std::string key;
  std::string title;
  Value value;
};

// One variant of a lab, bound to one problem.
struct Rung {
  std::string name;                 // the variant's name, as --variant takes it
  double bytes = 0;                 // bytes one launch must read + write (the napkin minimum)
  double flops{0};                  // FLOPs one launch does (0: not counted)
  std::function<void()> poison;     // makes every output element wrong (unwritten ones then fail)
  std::function<void()> launch;     // enqueues one run on the default stream
  std::function<bool()> check;      // compares with the CPU reference; prints why not on stderr
  std::string fallback;             // non-empty: why a different kernel runs (reported, not hidden)
  bool time_first_launch = false;   // also time the very first launch (module load included)
  // Optional: called before timed repetition i (outside the timing) to give it inputs the one
  // before did not see (InputSets::use(i % 2)); `check` must then judge the inputs last given.
  std::function<void(int)> refresh{};
  // Optional: checks what timed repetition `rep` wrote, after it and outside the timing, where the
  // check is cheap (one value, a histogram's bins): a kernel that does the work on some launches
  // and not on others is wrong at the first launch it skips, not only at the last.
  std::function<bool(int rep)> check_each{};
  // Optional: the lab's own cells of this row, read once after the check after timing.
  std::function<std::vector<Cell>()> cells{};
  bool baseline{false};             // a yardstick (CUB, cuBLAS): checked and timed, never the best
};

// The multiplier of timed repetition `rep` of a problem with fresh inputs (InputSets::add_scaled);
// rep -1 is the base inputs themselves (1). Floats: ±2^k, k = -20 .. 20, the sign alternating:
// 82 values, none repeated before the 83rd repetition, each scaling a linear answer (a sum, a
// scan, a transpose, a stencil) and every rounding on the way exactly. Ints: the odd 2 rep + 3,
// negated on odd repetitions, distinct for every rep, scaling sums exactly modulo 2^32.
double fresh_multiplier(int rep);
std::int32_t fresh_int_multiplier(int rep);
// Keys: the rotation of repetition rep in [0, range): (rep + 1) h modulo range, h the odd number
// nearest above range / 2 (1 for a range of 2 or 3), so consecutive repetitions' keys differ by
// about half the range (every key moves) and none repeats before `range` repetitions when h and
// range share no factor. 0 for rep < 0 (the base).
std::uint64_t fresh_rotation(int rep, std::uint64_t range);
// Float keys whose order must stay (a sort's): repetition rep's keys are the base's times
// 2^fresh_exponent_shift(rep), k in -20 .. -1 and 1 .. 20 (never the base's, consecutive
// repetitions never alike; 0 for rep < 0), made by adding k to the exponent of every normal float
// (shift_exponent): zeros, subnormals, infinities and NaNs keep their bits, so the keys' order and
// the ties in it are the base's, and a NaN keeps its payload (a multiply would make it canonical).
int fresh_exponent_shift(int rep);
// A float's bits times 2^k where its exponent stays normal; its own bits otherwise (keys within
// 2^-106 .. 2^107 keep their order under every shift of fresh_exponent_shift).
CUDALAB_HD inline std::uint32_t shift_exponent(std::uint32_t bits, int k) {
  const int e = static_cast<int>((bits >> 23) & 0xFFu);
  if (e == 0 || e == 0xFF || e + k < 1 || e + k > 0xFE) return bits;
  return (bits & ~(0xFFu << 23)) | (static_cast<std::uint32_t>(e + k) << 23);
}

// The inputs of a problem, changed in the same device buffers before each timed repetition
// (Rung::refresh): a kernel that caches its result, or replays an earlier call's, is wrong on
// the next repetition, and the check after timing sees it. Two ways:
//   add():        two contents, swapped (set rep % 2). Each input keeps both in device memory
//                 beside itself (twice its size again); set 0 is what the buffer held when
//                 added, and is what it holds again after use(0).
//   add_scaled(): fresh inputs for every repetition of a linear problem: repetition rep's inputs
//                 are the base (what the buffer held when added) times fresh_multiplier(rep),
//                 written by a device kernel outside the timing, and its answer is the base
//                 answer times the same multiplier (scale()). One more copy of each input.
//   add_rotated(): fresh keys for every repetition of a problem whose answer follows the keys'
//                 values (a histogram): repetition rep's keys, each in [0, range), are the
//                 base's plus fresh_rotation(rep, range), modulo range (rotation()), written by
//                 a device kernel outside the timing. One more copy of the keys.
//   add_exponent_shifted(): fresh float keys (raw bits) in the same order for every repetition:
//                 the base's times 2^fresh_exponent_shift(rep) (exponent_shift()), written by a
//                 device kernel outside the timing. One more copy of the keys.
//   add_row_rotated(): fresh rows for every repetition of a problem whose answer moves with a
//                 row's elements (a softmax): the base rows rotated by fresh_rotation(rep, cols)
//                 columns. One more copy of the rows.
// A problem uses one way for all its inputs (the scaled, rotated and shifted ways mix).
class InputSets {
 public:
  // `device`: an input buffer the kernels read, holding set 0 now; `second`: set 1, on the host
  // or the device (a problem that makes its inputs with a kernel makes set 1 so too).
  void add(void* device, std::size_t bytes, const void* second);
  template <typename T>
  void add(DeviceBuffer<T>& device, const std::vector<T>& second) {
    add(device.data(), device.bytes(), second.data());
  }
  // float, double or int32 elements (what the scaling kernel knows), or BF16 below.
  void add_scaled(DeviceBuffer<float>& device) { add_scaled(device.data(), device.size(), Element::kF32); }
  void add_scaled(DeviceBuffer<double>& device) { add_scaled(device.data(), device.size(), Element::kF64); }
  void add_scaled(DeviceBuffer<int>& device) { add_scaled(device.data(), device.size(), Element::kI32); }
  // BF16 elements (their 16 bits): times ±2^k exactly while they stay normal.
  void add_scaled_bf16(DeviceBuffer<std::uint16_t>& device) { add_scaled(device.data(), device.size(), Element::kBF16); }
  // uint8 or uint32 keys, each in [0, range) (range <= 2^8 or 2^32).
  void add_rotated(DeviceBuffer<unsigned char>& device, std::uint64_t range) {
    add_scaled(device.data(), device.size(), Element::kU8, range);
  }
  void add_rotated(DeviceBuffer<unsigned>& device, std::uint64_t range) {
    add_scaled(device.data(), device.size(), Element::kU32, range);
  }
  // Rows of `cols` elements of 2 or 4 bytes (an answer per row that follows its elements wherever
  // they stand: a softmax): repetition rep's rows are the base's rotated left by
  // fresh_rotation(rep, cols) columns (rotation(cols)): element c of a row is the base's c + that.
  void add_row_rotated(void* device, std::size_t rows, std::size_t cols, std::size_t element_bytes);
  // float keys as their raw bits, each kept normal under every shift (see shift_exponent).
  void add_exponent_shifted(DeviceBuffer<unsigned>& device) { add_scaled(device.data(), device.size(), Element::kF32Bits); }
  void use(int set);  // two sets: 0 or 1, copied into every input (device to device); scaled: 0 is the base
  void use_rep(int rep);  // scaled or rotated: the inputs of repetition rep (-1: the base)
  bool scaled() const { return scaled_; }
  int current() const { return current_; }  // two sets: 0 or 1; scaled: the repetition (-1: the base)
  // The answer to the inputs in the buffers now, from the base's (scaled: times the multiplier;
  // int wrapping modulo 2^32 as the GPU's adds do).
  double scale(double base_answer) const { return scaled_ ? base_answer * fresh_multiplier(current_) : base_answer; }
  std::int32_t scale(std::int32_t base_answer) const;
  // Rotated keys: the keys in the buffers now are the base's plus this, modulo `range`.
  std::uint64_t rotation(std::uint64_t range) const { return scaled_ ? fresh_rotation(current_, range) : 0; }
  // Exponent-shifted keys: the keys in the buffers now are the base's times 2^this.
  int exponent_shift() const { return scaled_ ? fresh_exponent_shift(current_) : 0; }
  // The refresh of a rung: set rep % 2, or the inputs of repetition rep, before repetition rep.
  std::function<void(int)> refresh() {
    if (scaled_) return [this](int rep) { use_rep(rep); };
    return [this](int rep) { use(rep % 2); };
  }

 private:
  enum class Element { kF32, kF64, kI32, kBF16, kU8, kU32, kF32Bits, kRows16, kRows32 };  // kRows*: rotated rows  // kU8, kU32: rotated keys; kF32Bits: shifted exponents
  void add_scaled(void* device, std::size_t count, Element e, std::uint64_t range = 0);
  struct Input {
    void* device;
    std::size_t bytes;
    DeviceBuffer<unsigned char> sets[2];
    std::size_t count = 0;      // scaled: elements
    Element element = Element::kF32;
    std::uint64_t range = 0;    // rotated keys: their range; rotated rows: their length
  };
  std::vector<Input> inputs_;
  int current_ = 0;
  bool scaled_ = false;
};

// What a result's "ok" column says in text: "yes", "NO" (wrong), or "suspect" (right, but
// faster than physics: VariantResult::suspect). JSON has the booleans correct and suspect.
const char* verdict(const VariantResult& r);

struct RungResult {
  VariantResult result;             // name, timing, bytes, FLOPs, correct, suspect
  double first_launch_ms = -1;      // with Rung::time_first_launch
  std::string fallback;
  bool wrong_after_timing = false;  // right before timing, wrong after the last timed launch (or one checked)
  int wrong_at_rep = -1;             // with Rung::check_each: the first timed repetition that was wrong
  std::vector<Cell> cells{};        // Rung::cells
  bool baseline{false};             // Rung::baseline
};

struct LadderResult {
  std::vector<RungResult> rungs;    // in ladder order
  GpuStateRange gpu;                // the clocks, power and heat read after each rung's timing
  bool all_ok = true;               // every rung matched the reference
  int best = -1;                    // the fastest correct variant (highest GB/s, or least time); -1: none
  std::vector<VariantResult> results() const;
  const VariantResult& best_result() const { return rungs.at(static_cast<std::size_t>(best)).result; }
  const RungResult* baseline() const;  // the first baseline rung; nullptr when none
};

// What a lab's measurements are compared with, measured or looked up in the same run.
struct Yardsticks {
  double peak_gbps = 0;    // theoretical DRAM bandwidth
  double copy_gbps = 0;    // the copy ceiling measured in this run (0: not measured)
  double peak_gflops{0};   // theoretical FP32 FLOP/s in GFLOP/s (0: FLOPs not compared)
  std::string peak_name{"FP32"};  // what peak_gflops is the peak of: the "% <name> peak" column
};

// The optional columns of a MeasurementTable.
struct RowsShape {
  bool min_max = true;            // min and max ms beside the median
  std::string baseline_title{};   // title of over_baseline (the baseline's median / this row's), e.g. "x CUB"
};

// The first fields of a ladder lab's report, in this order: device, element type, threads per
// block (left out for block <= 0: a lab whose variants differ reports it per variant),
// theoretical DRAM bandwidth.
void report_setup(Report& report, const DeviceFacts& facts, const std::string& type, int block);

// The copy ceiling's field, under the one key every lab uses: copy_ceiling_gbps.
void report_copy_ceiling(Report& report, double copy_gbps);

// The yardsticks of a memory-bound ladder: the copy ceiling measured with `bench` in this run
// (and reported: report_copy_ceiling) and the device's theoretical DRAM bandwidth.
Yardsticks measure_yardsticks(Benchmarker& bench, const DeviceFacts& facts, Report& report);

// Runs every rung: first launch (timed when asked), poison, launch, check, then `bench.run` with
// the output poisoned before its last timed launch, and the check again after it: a kernel that
// computes only on its first launches is wrong, not fast. Each rung's launches are named after
// it for Nsight (an NVTX range "variant"), and its cells are read last.
LadderResult run_ladder(Benchmarker& bench, const std::vector<Rung>& rungs);

// The fastest correct variant that is not suspect and not a baseline (LadderResult::best; -1
// when none).
void choose_best(LadderResult& ladder);

// Marks the rungs faster than physics (mark_suspects with the yardsticks and the device's L2)
// and chooses the best again without them. report_ladder calls it.
void judge_physics(LadderResult& ladder, const Yardsticks& y);

// The one renderer of measurement rows. Columns, in order: the leading cells (a sweep's size),
// variant, the lab's cells (their union, in order of first appearance; "-" / null where a row
// has none), median ms (min, max), GB/s, % peak, % copy, GFLOP/s and % FP32 peak (when a row
// counts FLOPs), speedup (the first row of its ladder / this), the baseline column, and "ok"
// (yes / NO / suspect). JSON rows carry the same keys with numbers as numbers, and besides
// them bytes, flops, correct and suspect as booleans, baseline, and fallback (null when none).
class MeasurementTable {
 public:
  explicit MeasurementTable(Yardsticks y, RowsShape shape = {});
  // One row per rung of `ladder`, each led by `lead` (the sizes of a sweep: {"n", "N", 1024}).
  void add(const LadderResult& ladder, const std::vector<Cell>& lead = {});
  Table table() const;

 private:
  struct Row {
    std::vector<Cell> lead;
    RungResult rung;
    double first_ms;     // the median of the first rung of its ladder
    double baseline_ms;  // the median of its ladder's baseline; 0 when none
  };
  Yardsticks y_;
  RowsShape shape_;
  std::vector<Row> rows_;
};

// One line: the SM clock (lowest and highest), power, temperature and what held the clocks back
// (NVML's clock event reasons) over a ladder's rungs, each read right after its timed launches;
// "gpu_state" in JSON. report_ladder calls it.
void report_gpu_state(Report& report, const GpuStateRange& gpu);

// The standard report of a ladder: heading, the "variants" table (MeasurementTable), a note per
// fallback or suspect, the fields best_variant, best_gbps, best_over_copy (when the copy
// ceiling was measured) and best_over_baseline (when a baseline ran), and a note per rung whose
// first launch was timed (Rung::time_first_launch): "naive: first launch 0.052 ms, warm median ...",
// and the GPU's state while timing (report_gpu_state).
void report_ladder(Report& report, const LadderResult& ladder, const Yardsticks& y, int repeat,
                   RowsShape shape = {});

// One line per rung that fell back: "vectorized: ran grid_stride (pointers not 16-byte aligned)".
std::vector<std::string> fallback_notes(const LadderResult& ladder);

// Prints the sweep table under `heading` (JSON key "sweep"); returns the exit code: success
// when every rung at every size was correct, kExitWrongResult otherwise.
int report_sweep(Report& report, const std::string& heading, const MeasurementTable& table, bool all_ok);

// What a sweep varies: its JSON key and its column title.
struct SweepAxis {
  std::string key{"n"};
  std::string title{"N"};
  // A second cell derived from the size, where a row needs it (rgba_split sweeps the side of a
  // square image and reports its pixels too); none when `derived` is empty.
  std::string derived_key{}, derived_title{};
  std::function<long long(std::size_t)> derived{};
};

// The ladder at each of `sizes` (ladder_at(n)), its rows led by the size (N unless `axis` names
// another quantity: the histogram lab sweeps its bins), in one sweep table under `heading`;
// returns report_sweep's exit code.
int sweep_ladders(Report& report, const std::string& heading, const Yardsticks& y, RowsShape shape,
                  const std::vector<std::size_t>& sizes, const std::function<LadderResult(std::size_t)>& ladder_at,
                  const SweepAxis& axis = {});

// The sizes of a sweep: first, first*factor, ... <= last, stopping before the first size whose
// bytes_needed(size) exceeds budget_bytes (by default usable_device_memory(), the one memory
// cap of every lab). Never empty when `first` fits; stops before a size that would overflow.
// Throws std::invalid_argument for first == 0.
std::vector<std::size_t> sweep_sizes(std::size_t first, std::size_t last, std::size_t factor,
                                     const std::function<double(std::size_t)>& bytes_needed,
                                     double budget_bytes = usable_device_memory());

}  // namespace cudalab
