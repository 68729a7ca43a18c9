#pragma once
// The run every ladder lab shares, written once. A lab's main() keeps its own options and hands
// the rest to a LabRun:
//
//   cudalab::LabRun run("scan", o.common, o.type);     // device chosen and described, report opened
//   run.report().field("n", "N (elements)", o.n);      // the lab's own fields
//   scan::Problem<int> p(n, seed, cudalab::Replays::kCaught);
//   return run.ladder(p.ladder(o.variant), {false, "x CUB"});  // yardsticks, ladder, report, exit code
//
// A lab's Problem states once what every variant shares (what nvbench's `state` holds: the
// work, not the kernel): its inputs and the CPU's answer to them, the bytes one launch must move
// and the FLOPs it does, how to poison the output, how to check it, and the second input set that
// catches a replayed result. problem_rung() turns it plus one row (a variant's name and launch)
// into a Rung of common/ladder.hpp, so a variant adds only what is its own (cells, a fallback).
#include <cstddef>
#include <cstdio>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/check.hpp"
#include "common/cli.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/exit_codes.hpp"
#include "common/ladder.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"

namespace cudalab {

// Whether a problem's timed launches alternate between two input sets (InputSets), so that a
// kernel that replays an earlier result is caught. A single run does; a sweep's many sizes time
// one set each (the replay defence is the single run's, at the size a student asks for).
enum class Replays { kCaught, kNotChecked };

// Which ceilings a section's rows are set against: the theoretical DRAM bandwidth and the copy
// ceiling of the run (a bandwidth experiment), the copy ceiling only (an experiment on useful
// bytes, where the peak would flatter it), or none (the rows are times: atomics, local memory).
enum class Roofs { kPeakAndCopy, kCopyOnly, kNone };

// One section of a lab beside or instead of its main ladder (coalescing's stride, offset, layout
// and mapping; mem_spaces' atomics): its rungs, run with the run's one Benchmarker, reported as the
// table `key` under `heading` with the standard columns. `after` sees the result before it is
// reported, for the cells that need the whole section (a row over another row's time, the bytes
// a stride really moved).
struct Section {
  // A section of the defaults but its JSON key, its heading and (optionally) its roofs. Prefer it
  // to a braced Section that leaves `shape` to its default: g++ 12 at -O3 warns, wrongly, that
  // the defaulted shape's string may be used uninitialized where such a temporary dies.
  static Section titled(std::string key, std::string heading, Roofs roofs = Roofs::kPeakAndCopy) {
    Section s;
    s.key = std::move(key);
    s.heading = std::move(heading);
    s.roofs = roofs;
    return s;
  }
  std::string key;
  std::string heading;
  Roofs roofs = Roofs::kPeakAndCopy;
  RowsShape shape{false};
  std::function<void(LadderResult&)> after{};
  double peak_gflops = 0;  // > 0: the rows' FLOP/s as a share of this peak too
  std::string peak_name = "FP32";  // what peak_gflops is the peak of: the "% <name> peak" column
};

// The start-up, the yardsticks and the ending of a ladder lab's run.
class LabRun {
 public:
  // Selects the device `common.device`, reads its facts and opens the report with its first
  // fields (report_setup: device, element type, threads per block unless block <= 0, peak).
  LabRun(const std::string& lab, const CommonOptions& common, const std::string& type, int block = 0);
  LabRun(const LabRun&) = delete;
  LabRun& operator=(const LabRun&) = delete;

  const DeviceFacts& facts() const { return facts_; }
  const CommonOptions& common() const { return common_; }
  Report& report() { return report_; }
  // The run's one Benchmarker (--warmup, --repeat, --no-l2-flush), made on first use.
  Benchmarker& bench();
  // The copy ceiling, measured with bench() and reported (copy_ceiling_gbps) on first use, and
  // the device's theoretical DRAM bandwidth.
  const Yardsticks& yardsticks();

  // Runs the rungs as one ladder (run_ladder) and reports it (report_ladder, after the
  // yardsticks); a lab with a section after the ladder (vec_add's end to end) reads the result.
  LadderResult measure(const std::vector<Rung>& rungs, RowsShape shape = {});
  // measure(), then its exit code (ladder_exit_code).
  int ladder(const std::vector<Rung>& rungs, RowsShape shape = {});
  // cudalab::sweep_sizes, after the yardsticks: the sizes fit the memory the benchmarker and the
  // copy ceiling's measurement leave.
  std::vector<std::size_t> sweep_sizes(std::size_t first, std::size_t last, std::size_t factor,
                                       const std::function<double(std::size_t)>& bytes_needed);
  // The ladder at each size (ladder_at(size) builds its problem and runs it with bench()), in one
  // sweep table under `heading` (sweep_ladders); returns its exit code.
  int sweep(const std::string& heading, const std::vector<std::size_t>& sizes,
            const std::function<LadderResult(std::size_t)>& ladder_at, RowsShape shape = {},
            const SweepAxis& axis = {});
  // Runs and reports one Section (the copy ceiling measured first where its roofs need it);
  // returns its exit code.
  int section(const Section& s, const std::vector<Rung>& rungs);
  // The run's exit code: success until ladder(), sweep() or section() returns another (or
  // keep() is given one), then the first such code: a lab of several sections returns it.
  int exit_code() const { return code_; }
  int keep(int code) {
    if (code_ == kExitSuccess) code_ = code;
    return code;
  }

 private:
  CommonOptions common_;
  DeviceFacts facts_;
  Report report_;
  std::optional<Benchmarker> bench_;
  std::optional<Yardsticks> yardsticks_;
  int code_ = kExitSuccess;
};

// success when every rung matched the reference, else kExitWrongResult.
int ladder_exit_code(const LadderResult& ladder);

// A rung made of a problem's facts and one variant's name and launch. `Problem` has
//   double bytes() const;                       bytes one launch must read + write
//   double flops() const;                       FLOPs one launch does (0: not counted)
//   void poison();                              makes every output element wrong
//   bool check(const std::string& variant);     the output against the CPU; why not on stderr
//   InputSets* replay_sets();                   the alternating inputs (nullptr: one input set)
// and must outlive the rung. The lab then adds what is the variant's own (cells, fallback,
// baseline, time_first_launch).
// Whether a Problem asks for its check after every timed launch (`static constexpr bool
// kCheckEveryLaunch = true;`: its check is cheap, one value or a histogram's bins).
template <typename P, typename = void>
struct checks_every_launch : std::false_type {};
template <typename P>
struct checks_every_launch<P, std::void_t<decltype(P::kCheckEveryLaunch)>> : std::bool_constant<P::kCheckEveryLaunch> {};

template <typename Problem>
Rung problem_rung(Problem& p, std::string name, std::function<void()> launch) {
  Rung r;
  r.name = std::move(name);
  r.bytes = p.bytes();
  r.flops = p.flops();
  r.poison = [&p] { p.poison(); };
  r.launch = std::move(launch);
  r.check = [&p, variant = r.name] { return p.check(variant); };
  if constexpr (checks_every_launch<Problem>::value) r.check_each = [&p, variant = r.name](int) { return p.check(variant); };
  if (InputSets* sets = p.replay_sets()) r.refresh = sets->refresh();
  return r;
}

// A rung whose output is `out` and whose CPU answer is `expected`: poisoned with 0xFF bytes (a
// NaN in every float, an impossible value in most ints), checked element by element
// (check_exact), a mismatch named on stderr as "<lab>: <name> is wrong: <first mismatches>".
// `out` and `expected` must outlive the rung.
template <typename T>
Rung exact_rung(const std::string& lab, std::string name, double bytes, DeviceBuffer<T>& out,
                const std::vector<T>& expected, std::function<void()> launch) {
  Rung r;
  r.name = std::move(name);
  r.bytes = bytes;
  r.poison = [&out] { out.fill_bytes(0xFF); };
  r.launch = std::move(launch);
  r.check = [&out, &expected, lab, name = r.name] {
    const auto check = check_exact(expected, out.download());
    if (!check.ok()) std::fprintf(stderr, "%s: %s is wrong: %s\n", lab.c_str(), name.c_str(), check.summary().c_str());
    return check.ok();
  };
  return r;
}

// The yardstick of a ladder (CUB, cuBLAS) on the same problem: a problem_rung marked baseline
// (checked and timed as the variants are, never the best).
template <typename Problem>
Rung baseline_rung(Problem& p, std::string name, std::function<void()> launch) {
  Rung r = problem_rung(p, std::move(name), std::move(launch));
  r.baseline = true;
  return r;
}

// The answer to the inputs in the buffers now: `first` for set 0, `second` for set 1 (a problem
// with no second set always has set 0 in them).
template <typename Answer>
const Answer& current_answer(const InputSets* sets, const Answer& first, const Answer& second) {
  if (sets && sets->scaled()) throw std::logic_error("current_answer: scaled inputs: use InputSets::scale");
  return sets && sets->current() == 1 ? second : first;
}

}  // namespace cudalab
