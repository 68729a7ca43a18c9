#include "common/ladder.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "common/cuda_check.hpp"
#include "common/exit_codes.hpp"

namespace cudalab {

std::vector<VariantResult> LadderResult::results() const {
  std::vector<VariantResult> out;
  out.reserve(rungs.size());
  for (const auto& r : rungs) out.push_back(r.result);
  return out;
}

void report_setup(Report& report, const DeviceFacts& facts, const std::string& type, int block) {
  report.field("device", "device", facts.name);
  report.field("type", "element type", type);
  report.field("block", "threads per block", block);
  report.field("peak_gbps", "theoretical DRAM bandwidth", Value(facts.theoretical_bandwidth_gbps(), 0), "GB/s");
}

namespace {
void mark_suspects_of(RungResult& r) {
  std::vector<VariantResult> one{r.result};
  mark_suspects(one, 0, 0, 0);  // only the host-clock rule: peak and copy come with the report
  r.result.suspect = one.front().suspect;
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

LadderResult run_ladder(Benchmarker& bench, const std::vector<Rung>& rungs) {
  LadderResult ladder;
  for (const Rung& rung : rungs) {
    RungResult r;
    r.result.name = rung.name;
    r.result.bytes = rung.bytes;
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
    r.result.timing = bench.run(rung.launch, nullptr, rung.poison ? rung.poison : std::function<void()>{}, rung.refresh);
    const bool after = before && rung.check();  // what the last timed launch wrote
    r.wrong_after_timing = before && !after;
    r.result.correct = after;
    ladder.all_ok = ladder.all_ok && r.result.correct;
    if (r.result.timing.work_outside_the_timed_stream()) mark_suspects_of(r);
    ladder.rungs.push_back(std::move(r));
  }
  choose_best(ladder);
  return ladder;
}

void choose_best(LadderResult& ladder) {
  ladder.best = -1;
  for (std::size_t i = 0; i < ladder.rungs.size(); ++i) {
    const VariantResult& r = ladder.rungs[i].result;
    if (!r.correct || !r.suspect.empty()) continue;
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
  Input in{device, bytes, {DeviceBuffer<unsigned char>(bytes), DeviceBuffer<unsigned char>(bytes)}};
  CUDA_CHECK(cudaMemcpy(in.sets[0].data(), device, bytes, cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaMemcpy(in.sets[1].data(), second, bytes, cudaMemcpyHostToDevice));
  inputs_.push_back(std::move(in));
}

void InputSets::use(int set) {
  if (set != 0 && set != 1) throw std::invalid_argument("InputSets::use: the set is 0 or 1");
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
    if (r.wrong_after_timing) notes.push_back(fmt::format("{}: right before timing, wrong after the last timed launch", r.result.name));
    if (!r.result.suspect.empty()) notes.push_back(fmt::format("{}: suspect, not ranked: {}", r.result.name, r.result.suspect));
  }
  return notes;
}

void judge_physics(LadderResult& ladder, double peak_gbps, double copy_gbps) {
  std::vector<VariantResult> results = ladder.results();
  mark_suspects(results, peak_gbps, copy_gbps, current_l2_bytes());
  for (std::size_t i = 0; i < results.size(); ++i) ladder.rungs[i].result.suspect = results[i].suspect;
  choose_best(ladder);
}

void report_ladder(Report& report, const LadderResult& measured, double peak_gbps, double copy_gbps, int repeat) {
  LadderResult ladder = measured;
  judge_physics(ladder, peak_gbps, copy_gbps);
  report.heading(fmt::format("Kernel time (median of {}, L2 flushed before each)", repeat));
  report.table("variants", bandwidth_table(ladder.results(), peak_gbps, copy_gbps));
  for (const auto& line : fallback_notes(ladder)) report.note("  " + line);
  if (ladder.best < 0) return;  // nothing correct: no best to name
  const VariantResult& best = ladder.best_result();
  report.field("best_variant", "best variant", best.name);
  report.field("best_gbps", "best bandwidth", Value(best.gbps(), 0), "GB/s");
  report.field("best_over_copy", "best / copy ceiling", Value(best.gbps() / copy_gbps, 3));
}

Table sweep_table(std::vector<Column> size_columns, Column versus) {
  std::vector<Column> columns = std::move(size_columns);
  columns.insert(columns.end(), {{"variant", "variant"}, {"median_us", "median us"}, {"gbps", "GB/s"}, std::move(versus),
                                 {"correct", "ok"}});
  return Table(std::move(columns));
}

void add_sweep_row(Table& table, std::vector<Value> size_cells, const VariantResult& r, Value versus) {
  size_cells.insert(size_cells.end(), {r.name, Value(r.timing.median_ms * 1e3, 2), Value(r.gbps(), 0), std::move(versus),
                                       verdict(r)});
  table.add_row(std::move(size_cells));
}

void add_sweep_rows(Table& table, const std::vector<Value>& size_cells, const LadderResult& ladder,
                    const std::function<Value(const VariantResult&)>& versus) {
  for (const auto& r : ladder.rungs) add_sweep_row(table, size_cells, r.result, versus(r.result));
}

int report_sweep(Report& report, const std::string& heading, const Table& table, bool all_ok) {
  report.heading(heading);
  report.table("sweep", table);
  return all_ok ? kExitSuccess : kExitWrongResult;
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
