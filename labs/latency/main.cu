// latency: how long one access takes when nothing hides it, level by level.
//   ./labs/latency                  global memory from 4 KiB to 4 GiB, the TLB step, shared and
//                                   constant memory, the FMA chain, and the latency table
//   ./labs/latency --sweep          the global working sets in steps of 2 (the plot's curve)
//   ./labs/latency --max-ws 64M     stop the global sweep at 64 MiB
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_facts.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "latency.hpp"
#include "reference.hpp"

namespace {

using cudalab::Value;

constexpr std::uint64_t kSeed = 20261201;
constexpr std::uint64_t kWarmupCap = std::uint64_t{1} << 21;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t max_ws = std::int64_t{4} << 30;
  std::int64_t hops = std::int64_t{1} << 18;
  int stride = 128;
  int max_pages = 2048;
  bool sweep = false;
};

struct Level {
  double cycles = 0, ns = 0;
  bool ok = false;
};

// ---- global memory over working sets ------------------------------------------------------

std::map<std::size_t, Level> global_sweep(cudalab::Report& report, const Options& o, latency::GlobalChase& chase,
                                          double ghz, bool* all_ok) {
  const std::size_t stride = static_cast<std::size_t>(o.stride);
  std::vector<std::size_t> sizes;
  for (std::size_t w = 4096; w <= static_cast<std::size_t>(o.max_ws) && w <= chase.capacity(); w *= o.sweep ? 2 : 4) {
    if (w >= stride) sizes.push_back(w);
  }
  cudalab::Table t({{"working_set", "working set"}, {"bytes", "bytes"}, {"lines", "lines"}, {"warmup", "warm-up hops"},
                    {"hops", "timed hops"}, {"cycles", "cycles/hop"}, {"ns", "ns/hop"}, {"correct", "ok"}});
  std::map<std::size_t, Level> out;
  for (std::size_t w : sizes) {
    const std::size_t lines = w / stride;
    const auto next = latency::random_cycle(lines, kSeed + w);
    chase.link(next, stride);
    const std::uint64_t warmup = latency::warmup_hops(lines, kWarmupCap), hops = static_cast<std::uint64_t>(o.hops);
    const latency::ChaseResult r = chase.run(warmup, hops, false);
    const bool ok = r.end_item == latency::follow(next, 0, warmup + hops);
    if (!ok) std::fprintf(stderr, "latency: the chase over %zu bytes ended on the wrong line\n", w);
    *all_ok = *all_ok && ok;
    out[w] = Level{r.cycles_per_hop, r.cycles_per_hop / ghz, ok};
    t.add_row({cudalab::human_bytes(static_cast<double>(w)), static_cast<long long>(w), static_cast<long long>(lines),
               static_cast<long long>(warmup), static_cast<long long>(hops), Value(r.cycles_per_hop, 1),
               Value(r.cycles_per_hop / ghz, 1), cudalab::correct_cell(ok)});
  }
  report.heading(fmt::format("Global memory: one thread chasing a random cycle over every {}-byte line of the working set",
                             stride));
  report.table("global", t);
  return out;
}

// ---- the TLBs: one line per page, loads that skip L1 ---------------------------------------

struct TlbStep {
  std::vector<std::size_t> pages;
  std::vector<double> cycles;
  double baseline = 0;            // cycles of an L2 hit over narrow spans
  std::size_t covered_pages = 0;  // the TLBs' reach, in pages
};

TlbStep tlb_step(cudalab::Report& report, const Options& o, latency::GlobalChase& chase, std::size_t page, double ghz,
                 bool* all_ok) {
  TlbStep s;
  cudalab::Table t({{"pages", "pages"}, {"working_set", "span"}, {"cycles", "cycles/hop"}, {"ns", "ns/hop"},
                    {"correct", "ok"}});
  // From 2 pages: a cycle of one page is one line, loaded again and again.
  for (std::size_t p = 2; p <= static_cast<std::size_t>(o.max_pages) && p * page <= chase.capacity(); p *= 2) {
    const auto next = latency::random_cycle(p, kSeed + p);
    chase.link(next, page);
    const std::uint64_t hops = std::uint64_t{1} << 16;
    const latency::ChaseResult r = chase.run(p, hops, true);
    const bool ok = r.end_item == latency::follow(next, 0, p + hops);
    if (!ok) std::fprintf(stderr, "latency: the page chase over %zu pages ended on the wrong page\n", p);
    *all_ok = *all_ok && ok;
    s.pages.push_back(p);
    s.cycles.push_back(r.cycles_per_hop);
    t.add_row({static_cast<long long>(p), cudalab::human_bytes(static_cast<double>(p * page)), Value(r.cycles_per_hop, 1),
               Value(r.cycles_per_hop / ghz, 1), cudalab::correct_cell(ok)});
  }
  report.heading(fmt::format("The TLBs: one line per {} page, L2 hits only (__ldcg), every hop to another page",
                             cudalab::human_bytes(static_cast<double>(page))));
  report.table("tlb", t);
  if (!s.pages.empty()) {
    // The narrow spans' median is an L2 hit with the translation cached; where a line lands in
    // L2 (a near or a far part) moves single points by tens of cycles.
    s.baseline = latency::median_of_first(s.cycles, 4);
    s.covered_pages = s.pages[latency::flat_until(s.cycles, s.baseline, 0.05)];
    report.field("tlb_baseline_cycles", "an L2 hit, narrow spans (median of the first 4)", Value(s.baseline, 1), "cycles");
    report.field("tlb_reach_pages", "pages spanned before a hop costs 5% more", static_cast<long long>(s.covered_pages),
                 fmt::format("({}{})", cudalab::human_bytes(static_cast<double>(s.covered_pages * page)),
                             s.covered_pages == s.pages.back() ? ", all that was tried" : ""));
    report.field("tlb_miss_cycles", "extra cycles per hop at the widest span", Value(s.cycles.back() - s.baseline, 1));
  }
  return s;
}

// ---- the latency table -------------------------------------------------------------------

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("latency", "How long one access takes when nothing hides it: global, the TLBs, shared, constant, the ALU.");
  cli.option("--max-ws", o.max_ws, "largest global working set (e.g. 64M, 4G)", 4096, std::int64_t{16} << 30);
  cli.option("--hops", o.hops, "timed hops per chase", 16, std::int64_t{1} << 26);
  cli.option("--stride", o.stride, "bytes between the chased items of the global sweep (a multiple of 8)", 8, 4096);
  cli.option("--max-pages", o.max_pages, "widest span of the TLB step, in pages", 2, 65536);
  cli.flag("--sweep", o.sweep, "global working sets in steps of 2 instead of 4");
  cli.add_common(o.common, cudalab::CommonSet::kDeviceAndJson);
  cli.footer("Examples:\n  latency\n  latency --sweep --json\n  latency --max-ws 64M --hops 4096");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.stride % 8 != 0) throw cudalab::UsageError(fmt::format("--stride {} is not a multiple of 8 (a pointer)", o.stride));

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  std::string page_how;
  const std::size_t page = latency::device_page_bytes(o.common.device, &page_how);
  // One buffer serves the global sweep and the TLB step; at most the labs' memory cap.
  const double want = std::max(static_cast<double>(o.max_ws), static_cast<double>(page) * o.max_pages);
  const auto capacity = static_cast<std::size_t>(std::min(want, cudalab::usable_device_memory()));
  latency::GlobalChase chase(capacity);

  cudalab::Report report("latency", o.common.json);
  report.field("device", "device", facts.name);
  const double ghz = latency::measure_clock_ghz();
  report.field("sm_clock_ghz", "SM clock while a kernel runs (measured)", Value(ghz, 3), "GHz");
  report.field("sm_clock_max_ghz", "SM clock, the device's maximum", Value(facts.sm_clock_khz / 1e6, 3), "GHz");
  report.field("l2_mb", "L2", Value(static_cast<double>(facts.l2_bytes) / 1e6, 1), "MB");
  report.field("page", "device page (" + page_how + ")", cudalab::human_bytes(static_cast<double>(page)));

  bool ok = true;
  const auto global = global_sweep(report, o, chase, ghz, &ok);
  const TlbStep tlb = tlb_step(report, o, chase, page, ghz, &ok);

  report.heading("Shared memory, constant memory and the ALU (one thread, dependent steps)");
  const auto s_next = latency::random_cycle(latency::kSharedItems, kSeed + 1);
  const std::uint64_t hops = static_cast<std::uint64_t>(o.hops);
  const latency::ChaseResult sh = latency::chase_shared(s_next, latency::kSharedItems, hops);
  const bool sh_ok = sh.end_item == latency::follow(s_next, 0, latency::kSharedItems + hops);
  const auto c_next = latency::random_cycle(latency::kConstantItems, kSeed + 2);
  const latency::ChaseResult co = latency::chase_constant(c_next, latency::kConstantItems, hops);
  const bool co_ok = co.end_item == latency::follow(c_next, 0, latency::kConstantItems + hops);
  const long long rounds = std::max<long long>(o.hops / 16, 1);
  const latency::ChainResult alu = latency::fma_chain_gpu(0.5f, 0.999f, 0.001f, rounds);
  const bool alu_ok = alu.value == latency::fma_chain(0.5f, 0.999f, 0.001f, 16 * rounds);
  if (!sh_ok) std::fprintf(stderr, "latency: the shared-memory chase ended on the wrong item\n");
  if (!co_ok) std::fprintf(stderr, "latency: the constant-memory chase ended on the wrong item\n");
  if (!alu_ok) std::fprintf(stderr, "latency: the FMA chain's result differs from the CPU's\n");
  ok = ok && sh_ok && co_ok && alu_ok;
  report.field("shared_cycles", "shared memory (16 KiB cycle)", Value(sh.cycles_per_hop, 1), "cycles/hop");
  report.field("constant_cycles", "constant memory (1 KiB cycle)", Value(co.cycles_per_hop, 1), "cycles/hop");
  report.field("fma_cycles", "dependent fmaf chain", Value(alu.cycles_per_op, 2), "cycles/FMA");

  // Latency's other side: with many warps and independent loads, how many an SM retires per
  // clock. An SM of sm_70 and later has 4 processing blocks (one warp scheduler each).
  report.heading("Throughput: 4-byte shared-memory loads per SM per clock (independent loads, every SM full)");
  const latency::SharedThroughput st = latency::shared_load_throughput(std::max<long long>(o.hops / 256, 16));
  if (!st.correct) std::fprintf(stderr, "latency: a thread's sum of shared-memory loads differs from the CPU's\n");
  ok = ok && st.correct;
  report.field("throughput_launch", "launch",
               fmt::format("{} blocks of {} threads ({} per SM), {} rounds of 16 loads each", st.blocks, st.threads,
                           st.blocks_per_sm, st.rounds));
  report.field("shared_loads_per_sm_clock", "loads per SM per clock (median over the SMs)", Value(st.loads_per_sm_clock, 1));
  report.field("ldst_lanes_per_block", "per processing block (4 per SM; the notes' A100 figure: 1 LD/ST unit)",
               Value(st.loads_per_sm_clock / 4.0, 1));
  report.field("shared_throughput_correct", "every thread's sum matches the CPU", st.correct);

  // The notes' ladder, measured. Rows whose working set the sweep skipped are left out.
  const auto at = [&](std::size_t w) -> std::optional<Level> {
    const auto it = global.find(w);
    return it == global.end() ? std::nullopt : std::optional<Level>(it->second);
  };
  std::optional<std::pair<std::size_t, Level>> dram;
  const double tlb_reach = static_cast<double>(tlb.covered_pages * page);
  for (const auto& [w, level] : global) {
    if (static_cast<double>(w) < 4.0 * static_cast<double>(facts.l2_bytes)) continue;
    if (!dram || static_cast<double>(w) <= tlb_reach) dram = std::make_pair(w, level);
    if (static_cast<double>(w) > tlb_reach) break;
  }
  cudalab::Table t({{"level", "level"}, {"cycles", "cycles"}, {"ns", "ns"}, {"x_alu", "x FMA"}, {"notes", "the notes say"}});
  const auto row = [&](const std::string& name, double cycles, const char* notes) {
    t.add_row({name, Value(cycles, 1), Value(cycles / ghz, 1), Value(cycles / alu.cycles_per_op, 1), notes});
  };
  row("register: a dependent FMA", alu.cycles_per_op, "1");
  if (auto l1 = at(16 << 10)) row("L1 hit (global, 16 KiB)", l1->cycles, "~30");
  row("shared memory", sh.cycles_per_hop, "20-30");
  row("constant cache", co.cycles_per_hop, "~5");
  if (auto l2 = at(4 << 20)) row("L2 hit (global, 4 MiB)", l2->cycles, "~200");
  if (dram) {
    row(fmt::format("DRAM (global, {}{})", cudalab::human_bytes(static_cast<double>(dram->first)),
                    static_cast<double>(dram->first) > tlb_reach ? ", TLB misses too" : ""),
        dram->second.cycles, "400-800");
  }
  if (!tlb.pages.empty()) {
    row(fmt::format("TLB misses, {} spans (added to an L2 hit)", cudalab::human_bytes(static_cast<double>(tlb.pages.back() * page))),
        tlb.cycles.back() - tlb.baseline, "-");
  }
  report.heading("The latency table of the notes, measured on this GPU");
  report.table("latency_table", t);
  if (dram) report.field("dram_over_shared", "DRAM / shared memory", Value(dram->second.cycles / sh.cycles_per_hop, 1), "x");
  if (auto l2 = at(4 << 20)) report.field("l2_over_shared", "L2 / shared memory", Value(l2->cycles / sh.cycles_per_hop, 1), "x");
  return ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("latency", [&] { return run(argc, argv); });
}
