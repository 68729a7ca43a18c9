#include "common/driver.hpp"

#include "common/bandwidth.hpp"
#include "common/exit_codes.hpp"

namespace cudalab {

namespace {
DeviceFacts selected(int device) {
  select_device(device);
  return query_device(device);
}
}  // namespace

LabRun::LabRun(const std::string& lab, const CommonOptions& common, const std::string& type, int block)
    : common_(common), facts_(selected(common.device)), report_(lab, common.json) {
  report_setup(report_, facts_, type, block);
}

Benchmarker& LabRun::bench() {
  if (!bench_) bench_.emplace(BenchmarkOptions{common_.warmup, common_.repeat, !common_.no_l2_flush});
  return *bench_;
}

const Yardsticks& LabRun::yardsticks() {
  if (!yardsticks_) yardsticks_ = measure_yardsticks(bench(), facts_, report_);
  return *yardsticks_;
}

int ladder_exit_code(const LadderResult& ladder) { return ladder.all_ok ? kExitSuccess : kExitWrongResult; }

LadderResult LabRun::measure(const std::vector<Rung>& rungs, RowsShape shape) {
  const Yardsticks y = yardsticks();
  LadderResult result = run_ladder(bench(), rungs);
  report_ladder(report_, result, y, common_.repeat, std::move(shape));
  return result;
}

int LabRun::ladder(const std::vector<Rung>& rungs, RowsShape shape) {
  return keep(ladder_exit_code(measure(rungs, std::move(shape))));
}

std::vector<std::size_t> LabRun::sweep_sizes(std::size_t first, std::size_t last, std::size_t factor,
                                             const std::function<double(std::size_t)>& bytes_needed) {
  yardsticks();
  return cudalab::sweep_sizes(first, last, factor, bytes_needed);
}

int LabRun::sweep(const std::string& heading, const std::vector<std::size_t>& sizes,
                  const std::function<LadderResult(std::size_t)>& ladder_at, RowsShape shape, const SweepAxis& axis) {
  const Yardsticks y = yardsticks();
  return keep(sweep_ladders(report_, heading, y, std::move(shape), sizes, ladder_at, axis));
}

int LabRun::section(const Section& s, const std::vector<Rung>& rungs) {
  Yardsticks y;
  if (s.roofs != Roofs::kNone) y.copy_gbps = yardsticks().copy_gbps;
  if (s.roofs == Roofs::kPeakAndCopy) y.peak_gbps = yardsticks().peak_gbps;
  y.peak_gflops = s.peak_gflops;
  y.peak_name = s.peak_name;
  LadderResult result = run_ladder(bench(), rungs);
  if (s.after) s.after(result);
  MeasurementTable t(y, s.shape);
  t.add(result);
  report_.heading(s.heading);
  report_.table(s.key, t.table());
  return keep(ladder_exit_code(result));
}

}  // namespace cudalab
