#include "common/ladder.hpp"

#include <cstdio>

#include <stdexcept>

#include <fmt/format.h>
#include <nvtx3/nvToolsExt.h>

#include "common/cuda_check.hpp"
#include "common/exit_codes.hpp"

namespace cudalab {

std::vector<VariantResult> LadderResult::results() const {
  std::vector<VariantResult> out;
  out.reserve(rungs.size());
  for (const auto& r : rungs) out.push_back(r.result);
  return out;
}

const RungResult* LadderResult::baseline() const {
  for (const auto& r : rungs) {
    if (r.baseline) return &r;
  }
  return nullptr;
}

void report_copy_ceiling(Report& report, double copy_gbps) {
  report.field("copy_ceiling_gbps", "copy ceiling (cudaMemcpy D2D, measured)", Value(copy_gbps, 0), "GB/s");
}

Yardsticks measure_yardsticks(Benchmarker& bench, const DeviceFacts& facts, Report& report) {
  const CopyCeiling ceiling = measure_copy_ceiling(bench);
  report_copy_ceiling(report, ceiling.gbps);
  return {facts.theoretical_bandwidth_gbps(), ceiling.gbps};
}

void report_setup(Report& report, const DeviceFacts& facts, const std::string& type, int block) {
  report.field("device", "device", facts.name);
  report.field("type", "element type", type);
  if (block > 0) report.field("block", "threads per block", block);  // else the lab reports it per variant
  report.field("peak_gbps", "theoretical DRAM bandwidth", Value(facts.theoretical_bandwidth_gbps(), 0), "GB/s");
}

namespace {
void mark_suspects_of(RungResult& r) {
  std::vector<VariantResult> one{r.result};
  mark_suspects(one, 0, 0, 0);  // only the host-clock rule: peak and copy come with the report
  r.result.suspect = one.front().suspect;
}

int current_device() {
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) (void)cudaGetLastError();
  return device;
}

double current_l2_bytes() {
  int device = 0, l2 = 0;
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return static_cast<double>(l2);
}
}  // namespace

namespace {
// Names a rung's launches in Nsight Systems and Compute (ncu --nvtx --nvtx-include "name/").
class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) { nvtxRangePushA(name.c_str()); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};
}  // namespace

LadderResult run_ladder(Benchmarker& bench, const std::vector<Rung>& rungs) {
  LadderResult ladder;
  for (const Rung& rung : rungs) {
    NvtxRange range(rung.name);
    RungResult r;
    r.result.name = rung.name;
    r.result.bytes = rung.bytes;
    r.result.flops = rung.flops;
    r.baseline = rung.baseline;
    r.fallback = rung.fallback;
    if (rung.time_first_launch) {
      EventTimer cold;
      cold.start();
      rung.launch();
      cold.stop();
      r.first_launch_ms = cold.elapsed_ms();
    }
    if (rung.poison) rung.poison();
    rung.launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    const bool before = rung.check();
    r.result.timing = bench.run(rung.launch, nullptr, rung.poison ? rung.poison : std::function<void()>{}, rung.refresh,
                                rung.check_each);
    ladder.gpu.add(read_gpu_state(current_device()));  // right after the timed launches, before any check
    r.wrong_at_rep = r.result.timing.first_wrong_rep;
    if (r.wrong_at_rep >= 0) {
      std::fprintf(stderr, "%s: timed launch %d of %d was wrong\n", rung.name.c_str(), r.wrong_at_rep + 1,
                   bench.options().repeat);
    }
    const bool after = before && rung.check() && r.wrong_at_rep < 0;  // what the timed launches wrote
    r.wrong_after_timing = before && !after;
    r.result.correct = after;
    ladder.all_ok = ladder.all_ok && r.result.correct;
    if (r.result.timing.work_outside_the_timed_stream()) mark_suspects_of(r);
    if (rung.cells) r.cells = rung.cells();
    ladder.rungs.push_back(std::move(r));
  }
  choose_best(ladder);
  return ladder;
}

void choose_best(LadderResult& ladder) {
  ladder.best = -1;
  for (std::size_t i = 0; i < ladder.rungs.size(); ++i) {
    const VariantResult& r = ladder.rungs[i].result;
    if (!r.correct || !r.suspect.empty() || ladder.rungs[i].baseline) continue;
    if (ladder.best < 0) {
      ladder.best = static_cast<int>(i);
      continue;
    }
    const VariantResult& b = ladder.best_result();
    const bool faster = r.bytes > 0 ? r.gbps() > b.gbps() : r.timing.median_ms < b.timing.median_ms;
    if (faster) ladder.best = static_cast<int>(i);
  }
}

void InputSets::add(void* device, std::size_t bytes, const void* second) {
  if (scaled_) throw std::invalid_argument("InputSets: two sets and scaled inputs do not mix");
  Input in{device, bytes, {DeviceBuffer<unsigned char>(bytes), DeviceBuffer<unsigned char>(bytes)}};
  CUDA_CHECK(cudaMemcpy(in.sets[0].data(), device, bytes, cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaMemcpy(in.sets[1].data(), second, bytes, cudaMemcpyDefault));
  inputs_.push_back(std::move(in));
}

void InputSets::use(int set) {
  if (set != 0 && set != 1) throw std::invalid_argument("InputSets::use: the set is 0 or 1");
  if (scaled_) {
    if (set != 0) throw std::invalid_argument("InputSets::use: scaled inputs have no set 1 (use_rep)");
    use_rep(-1);
    return;
  }
  if (set == current_) return;
  for (auto& in : inputs_) {
    CUDA_CHECK(cudaMemcpyAsync(in.device, in.sets[set].data(), in.bytes, cudaMemcpyDeviceToDevice));
  }
  current_ = set;
}

const char* verdict(const VariantResult& r) { return !r.correct ? "NO" : r.suspect.empty() ? "yes" : "suspect"; }

std::vector<std::string> fallback_notes(const LadderResult& ladder) {
  std::vector<std::string> notes;
  for (const auto& r : ladder.rungs) {
    if (!r.fallback.empty()) notes.push_back(fmt::format("{}: {}", r.result.name, r.fallback));
    if (r.wrong_after_timing && r.wrong_at_rep >= 0) {
      notes.push_back(fmt::format("{}: right before timing, wrong after timed launch {}", r.result.name, r.wrong_at_rep + 1));
    } else if (r.wrong_after_timing) {
      notes.push_back(fmt::format("{}: right before timing, wrong after the last timed launch", r.result.name));
    }
    if (!r.result.suspect.empty()) notes.push_back(fmt::format("{}: suspect, not ranked: {}", r.result.name, r.result.suspect));
  }
  return notes;
}

void judge_physics(LadderResult& ladder, const Yardsticks& y) {
  std::vector<VariantResult> results = ladder.results();
  mark_suspects(results, y.peak_gbps, y.copy_gbps, current_l2_bytes(), y.peak_gflops, y.peak_name);
  for (std::size_t i = 0; i < results.size(); ++i) ladder.rungs[i].result.suspect = results[i].suspect;
  choose_best(ladder);
}

MeasurementTable::MeasurementTable(Yardsticks y, RowsShape shape) : y_(y), shape_(std::move(shape)) {}

void MeasurementTable::add(const LadderResult& ladder, const std::vector<Cell>& lead) {
  LadderResult judged = ladder;
  judge_physics(judged, y_);  // every table applies the same physics, sweeps included
  const double first_ms = judged.rungs.empty() ? 0.0 : judged.rungs.front().result.timing.median_ms;
  const RungResult* base = judged.baseline();
  const double baseline_ms = base && base->result.correct ? base->result.timing.median_ms : 0.0;
  for (const auto& r : judged.rungs) rows_.push_back({lead, r, first_ms, baseline_ms});
}

namespace {
double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

// The keys of `cells` of every row, in order of first appearance, with their titles.
std::vector<Column> union_of(const std::vector<std::vector<Cell>>& cells) {
  std::vector<Column> columns;
  for (const auto& row : cells) {
    for (const auto& c : row) {
      bool seen = false;
      for (const auto& k : columns) seen = seen || k.key == c.key;
      if (!seen) columns.push_back({c.key, c.title});
    }
  }
  return columns;
}

Value cell_of(const std::vector<Cell>& cells, const std::string& key) {
  for (const auto& c : cells) {
    if (c.key == key) return c.value;
  }
  return Value();
}
}  // namespace

Table MeasurementTable::table() const {
  std::vector<std::vector<Cell>> leads, owns;
  bool bytes = false, flops = false, baseline = false;
  for (const auto& row : rows_) {
    leads.push_back(row.lead);
    owns.push_back(row.rung.cells);
    bytes = bytes || row.rung.result.bytes > 0;
    flops = flops || row.rung.result.flops > 0;
    baseline = baseline || row.baseline_ms > 0;
  }
  const std::vector<Column> lead_columns = union_of(leads), own_columns = union_of(owns);
  std::vector<Column> columns = lead_columns;
  columns.push_back({"variant", "variant"});
  columns.insert(columns.end(), own_columns.begin(), own_columns.end());
  columns.push_back({"median_ms", "median ms"});
  if (shape_.min_max) columns.insert(columns.end(), {{"min_ms", "min ms"}, {"max_ms", "max ms"}});
  if (bytes) {
    columns.push_back({"gbps", "GB/s"});
    if (y_.peak_gbps > 0) columns.push_back({"percent_of_peak", "% peak"});
    if (y_.copy_gbps > 0) columns.push_back({"percent_of_copy", "% copy"});
  }
  if (flops) {
    columns.push_back({"gflops", "GFLOP/s"});
    if (y_.peak_gflops > 0) columns.push_back({"percent_of_peak_flops", "% " + y_.peak_name + " peak"});
  }
  columns.push_back({"speedup", "speedup"});
  if (baseline) columns.push_back({"over_baseline", shape_.baseline_title.empty() ? "x baseline" : shape_.baseline_title});
  columns.push_back({"ok", "ok", true, false});
  columns.push_back({"correct", "correct", false, true});
  columns.push_back({"suspect", "suspect", false, true});
  columns.push_back({"baseline", "baseline", false, true});
  columns.push_back({"bytes", "bytes", false, true});
  columns.push_back({"flops", "flops", false, true});
  columns.push_back({"fallback", "fallback", false, true});

  Table t(columns);
  for (const auto& row : rows_) {
    const VariantResult& r = row.rung.result;
    const double ms = r.timing.median_ms;
    // A wrong result shows no speed: its time cells are null ("-"), so no plot or ranking
    // can take it for a measurement.
    const bool timed = r.correct;
    const auto number = [timed](bool has, double v, int decimals) { return timed && has ? Value(v, decimals) : Value(); };
    std::vector<Value> cells;
    for (const auto& c : lead_columns) cells.push_back(cell_of(row.lead, c.key));
    cells.push_back(r.name);
    for (const auto& c : own_columns) cells.push_back(cell_of(row.rung.cells, c.key));
    cells.push_back(number(true, ms, 4));
    if (shape_.min_max) cells.insert(cells.end(), {number(true, r.timing.min_ms, 4), number(true, r.timing.max_ms, 4)});
    if (bytes) {
      cells.push_back(number(r.bytes > 0, r.gbps(), 0));
      if (y_.peak_gbps > 0) cells.push_back(number(r.bytes > 0, percent(r.gbps(), y_.peak_gbps), 1));
      if (y_.copy_gbps > 0) cells.push_back(number(r.bytes > 0, percent(r.gbps(), y_.copy_gbps), 1));
    }
    if (flops) {
      cells.push_back(number(r.flops > 0, r.gflops(), 0));
      if (y_.peak_gflops > 0) cells.push_back(number(r.flops > 0, percent(r.gflops(), y_.peak_gflops), 1));
    }
    cells.push_back(number(ms > 0, ratio(row.first_ms, ms), 2));
    if (baseline) cells.push_back(number(row.baseline_ms > 0 && ms > 0, ratio(row.baseline_ms, ms), 3));
    cells.push_back(verdict(r));
    cells.push_back(r.correct);
    cells.push_back(!r.suspect.empty());
    cells.push_back(row.rung.baseline);
    cells.push_back(Value(r.bytes, 0));
    cells.push_back(Value(r.flops, 0));
    cells.push_back(row.rung.fallback.empty() ? Value() : Value(row.rung.fallback));
    t.add_row(std::move(cells));
  }
  return t;
}

void report_gpu_state(Report& report, const GpuStateRange& g) {
  const std::string label = "GPU while timing (NVML)";
  if (!g.known) {
    report.field("gpu_state", label, "unknown: " + (g.why_unknown.empty() ? std::string("not read") : g.why_unknown));
    return;
  }
  std::string text = g.sm_min_mhz == g.sm_max_mhz ? fmt::format("SM {} MHz", g.sm_max_mhz)
                                                  : fmt::format("SM {} .. {} MHz", g.sm_min_mhz, g.sm_max_mhz);
  if (g.power_max_w > 0) {
    text += fmt::format(", up to {:.0f} W", g.power_max_w);
    if (g.power_limit_w > 0) text += fmt::format(" of {:.0f}", g.power_limit_w);
  }
  if (g.temperature_max_c > 0) text += fmt::format(", up to {} C", g.temperature_max_c);
  text += ", clocks held back by: " + clock_reason_names(g.reasons);
  report.group("gpu_state", label,
               {{"sm_min_mhz", Value(g.sm_min_mhz)},
                {"sm_max_mhz", Value(g.sm_max_mhz)},
                {"power_max_w", Value(g.power_max_w, 1)},
                {"power_limit_w", Value(g.power_limit_w, 1)},
                {"temperature_max_c", Value(g.temperature_max_c)},
                {"clock_event_reasons", Value(g.reasons)}},
               text);
}

void report_ladder(Report& report, const LadderResult& measured, const Yardsticks& y, int repeat, RowsShape shape) {
  LadderResult ladder = measured;
  judge_physics(ladder, y);
  MeasurementTable rows(y, std::move(shape));
  rows.add(ladder);
  report.heading(fmt::format("Kernel time (median of {}, L2 flushed before each)", repeat));
  report.table("variants", rows.table());
  for (const auto& line : fallback_notes(ladder)) report.note("  " + line);
  if (ladder.best >= 0) {  // else nothing correct: no best to name
    const VariantResult& best = ladder.best_result();
    report.field("best_variant", "best variant", best.name);
    if (best.bytes > 0) report.field("best_gbps", "best bandwidth", Value(best.gbps(), 0), "GB/s");
    if (best.bytes > 0 && y.copy_gbps > 0) report.field("best_over_copy", "best / copy ceiling", Value(best.gbps() / y.copy_gbps, 3));
    if (const RungResult* base = ladder.baseline(); base != nullptr && base->result.correct) {
      report.field("best_over_baseline", fmt::format("best / {}", base->result.name),
                   Value(ratio(base->result.timing.median_ms, best.timing.median_ms), 3), "x");
    }
  }
  report_gpu_state(report, ladder.gpu);
  for (const auto& rr : ladder.rungs) {
    if (rr.first_launch_ms >= 0) {
      report.note(fmt::format("  {}: first launch {:.3f} ms, warm median {:.4f} ms", rr.result.name, rr.first_launch_ms,
                              rr.result.timing.median_ms));
    }
  }
}

int report_sweep(Report& report, const std::string& heading, const MeasurementTable& table, bool all_ok) {
  report.heading(heading);
  report.table("sweep", table.table());
  return all_ok ? kExitSuccess : kExitWrongResult;
}

int sweep_ladders(Report& report, const std::string& heading, const Yardsticks& y, RowsShape shape,
                  const std::vector<std::size_t>& sizes, const std::function<LadderResult(std::size_t)>& ladder_at,
                  const SweepAxis& axis) {
  MeasurementTable t(y, std::move(shape));
  bool all_ok = true;
  for (std::size_t n : sizes) {
    const LadderResult ladder = ladder_at(n);
    all_ok = all_ok && ladder.all_ok;
    std::vector<Cell> lead{{axis.key, axis.title, static_cast<long long>(n)}};
    if (axis.derived) lead.push_back({axis.derived_key, axis.derived_title, axis.derived(n)});
    t.add(ladder, lead);
  }
  return report_sweep(report, heading, t, all_ok);
}

std::vector<std::size_t> sweep_sizes(std::size_t first, std::size_t last, std::size_t factor,
                                     const std::function<double(std::size_t)>& bytes_needed, double budget_bytes) {
  if (first == 0) throw std::invalid_argument("sweep_sizes: the first size must be at least 1");
  std::vector<std::size_t> sizes;
  for (std::size_t n = first; n <= last && bytes_needed(n) <= budget_bytes; n *= factor) {
    sizes.push_back(n);
    if (factor < 2 || n > last / factor) break;  // one size, or the next would pass last (or overflow)
  }
  return sizes;
}

}  // namespace cudalab
