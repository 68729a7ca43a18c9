#pragma once
// The latency lab's sections, each a function of the report and the options (main.cu runs them in
// order): the global sweep over working sets, the TLB step, shared and constant memory and the
// FMA chain, the shared-load throughput, and the notes' latency table from what they measured.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/device_facts.hpp"
#include "common/report.hpp"
#include "latency.hpp"
#include "reference.hpp"

namespace latency {

using cudalab::Value;

inline constexpr std::uint64_t kSeed = 20261201;
inline constexpr std::uint64_t kWarmupCap = std::uint64_t{1} << 21;

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

inline std::map<std::size_t, Level> global_sweep(cudalab::Report& report, const Options& o, GlobalChase& chase,
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
    const auto next = random_cycle(lines, kSeed + w);
    chase.link(next, stride);
    const std::uint64_t warmup = warmup_hops(lines, kWarmupCap), hops = static_cast<std::uint64_t>(o.hops);
    const ChaseResult r = chase.run(warmup, hops, false);
    const bool ok = r.end_item == follow(next, 0, warmup + hops);
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

inline TlbStep tlb_step(cudalab::Report& report, const Options& o, GlobalChase& chase, std::size_t page, double ghz,
                 bool* all_ok) {
  TlbStep s;
  cudalab::Table t({{"pages", "pages"}, {"working_set", "span"}, {"cycles", "cycles/hop"}, {"ns", "ns/hop"},
                    {"correct", "ok"}});
  // From 2 pages: a cycle of one page is one line, loaded again and again.
  for (std::size_t p = 2; p <= static_cast<std::size_t>(o.max_pages) && p * page <= chase.capacity(); p *= 2) {
    const auto next = random_cycle(p, kSeed + p);
    chase.link(next, page);
    const std::uint64_t hops = std::uint64_t{1} << 16;
    const ChaseResult r = chase.run(p, hops, true);
    const bool ok = r.end_item == follow(next, 0, p + hops);
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
    s.baseline = median_of_first(s.cycles, 4);
    s.covered_pages = s.pages[flat_until(s.cycles, s.baseline, 0.05)];
    report.field("tlb_baseline_cycles", "an L2 hit, narrow spans (median of the first 4)", Value(s.baseline, 1), "cycles");
    report.field("tlb_reach_pages", "pages spanned before a hop costs 5% more", static_cast<long long>(s.covered_pages),
                 fmt::format("({}{})", cudalab::human_bytes(static_cast<double>(s.covered_pages * page)),
                             s.covered_pages == s.pages.back() ? ", all that was tried" : ""));
    report.field("tlb_miss_cycles", "extra cycles per hop at the widest span", Value(s.cycles.back() - s.baseline, 1));
  }
  return s;
}

// ---- shared memory, constant memory and the ALU ----------------------------------------------

struct OnChip {
  double shared_cycles = 0, constant_cycles = 0, fma_cycles = 0;
};

inline OnChip on_chip(cudalab::Report& report, const Options& o, bool* all_ok) {
  report.heading("Shared memory, constant memory and the ALU (one thread, dependent steps)");
  const auto s_next = random_cycle(kSharedItems, kSeed + 1);
  const std::uint64_t hops = static_cast<std::uint64_t>(o.hops);
  const ChaseResult sh = chase_shared(s_next, kSharedItems, hops);
  const bool sh_ok = sh.end_item == follow(s_next, 0, kSharedItems + hops);
  const auto c_next = random_cycle(kConstantItems, kSeed + 2);
  const ChaseResult co = chase_constant(c_next, kConstantItems, hops);
  const bool co_ok = co.end_item == follow(c_next, 0, kConstantItems + hops);
  const long long rounds = std::max<long long>(o.hops / 16, 1);
  const ChainResult alu = fma_chain_gpu(0.5f, 0.999f, 0.001f, rounds);
  const bool alu_ok = alu.value == fma_chain(0.5f, 0.999f, 0.001f, 16 * rounds);
  if (!sh_ok) std::fprintf(stderr, "latency: the shared-memory chase ended on the wrong item\n");
  if (!co_ok) std::fprintf(stderr, "latency: the constant-memory chase ended on the wrong item\n");
  if (!alu_ok) std::fprintf(stderr, "latency: the FMA chain's result differs from the CPU's\n");
  *all_ok = *all_ok && sh_ok && co_ok && alu_ok;
  report.field("shared_cycles", "shared memory (16 KiB cycle)", Value(sh.cycles_per_hop, 1), "cycles/hop");
  report.field("constant_cycles", "constant memory (1 KiB cycle)", Value(co.cycles_per_hop, 1), "cycles/hop");
  report.field("fma_cycles", "dependent fmaf chain", Value(alu.cycles_per_op, 2), "cycles/FMA");
  return {sh.cycles_per_hop, co.cycles_per_hop, alu.cycles_per_op};
}

// Latency's other side: with many warps and independent loads, how many an SM retires per clock.
// An SM of sm_70 and later has 4 processing blocks (one warp scheduler each).
// Beside it, what that rate is in bytes per second over the whole GPU, against DRAM's copy ceiling.
inline void throughput(cudalab::Report& report, const Options& o, int sm_count, double ghz, double copy_gbps, bool* all_ok) {
  report.heading("Throughput: 4-byte shared-memory loads per SM per clock (independent loads, every SM full)");
  const SharedThroughput st = shared_load_throughput(std::max<long long>(o.hops / 256, 16));
  if (!st.correct) std::fprintf(stderr, "latency: a thread's sum of shared-memory loads differs from the CPU's\n");
  *all_ok = *all_ok && st.correct;
  report.field("throughput_launch", "launch",
               fmt::format("{} blocks of {} threads ({} per SM), {} rounds of 16 loads each", st.blocks, st.threads,
                           st.blocks_per_sm, st.rounds));
  report.field("shared_loads_per_sm_clock", "loads per SM per clock (median over the SMs)", Value(st.loads_per_sm_clock, 1));
  report.field("ldst_lanes_per_block", "per processing block (4 per SM; the notes' A100 figure: 1 LD/ST unit)",
               Value(st.loads_per_sm_clock / 4.0, 1));
  report.field("shared_throughput_correct", "every thread's sum matches the CPU", st.correct);
  // loads per SM per clock x 4 bytes x SMs x clocks per second
  const double shared_gbps = st.loads_per_sm_clock * 4.0 * sm_count * ghz;
  report.field("shared_gbps", "shared memory, every SM (4-byte loads at the measured clock)",
               st.correct ? Value(shared_gbps, 0) : Value(), "GB/s");
  report.field("copy_ceiling_gbps", "DRAM: copy ceiling (cudaMemcpy D2D, measured)", Value(copy_gbps, 0), "GB/s");
  report.field("shared_over_copy", "shared memory / DRAM copy ceiling",
               st.correct && copy_gbps > 0 ? Value(shared_gbps / copy_gbps, 1) : Value());
}

// ---- the latency table -------------------------------------------------------------------------

// The notes' ladder, measured. Rows whose working set the sweep skipped are left out; DRAM is the
// widest working set of 4 x L2 or more within the TLBs' reach (else the first past it).
inline void latency_table(cudalab::Report& report, const std::map<std::size_t, Level>& global, const TlbStep& tlb,
                          const OnChip& chip, std::size_t page, double l2_bytes, double ghz) {
  const auto at = [&](std::size_t w) -> std::optional<Level> {
    const auto it = global.find(w);
    return it == global.end() ? std::nullopt : std::optional<Level>(it->second);
  };
  std::optional<std::pair<std::size_t, Level>> dram;
  const double tlb_reach = static_cast<double>(tlb.covered_pages * page);
  for (const auto& [w, level] : global) {
    if (static_cast<double>(w) < 4.0 * l2_bytes) continue;
    if (!dram || static_cast<double>(w) <= tlb_reach) dram = std::make_pair(w, level);
    if (static_cast<double>(w) > tlb_reach) break;
  }
  cudalab::Table t({{"level", "level"}, {"cycles", "cycles"}, {"ns", "ns"}, {"x_alu", "x FMA"}, {"notes", "the notes say"}});
  // "the notes say": a number where they give one, their words where they give a range, null where
  // they say nothing
  const auto row = [&](const std::string& name, double cycles, const Value& notes) {
    t.add_row({name, Value(cycles, 1), Value(cycles / ghz, 1), Value(cycles / chip.fma_cycles, 1), notes});
  };
  row("register: a dependent FMA", chip.fma_cycles, 1);
  if (auto l1 = at(16 << 10)) row("L1 hit (global, 16 KiB)", l1->cycles, "~30");
  row("shared memory", chip.shared_cycles, "20-30");
  row("constant cache", chip.constant_cycles, "~5");
  if (auto l2 = at(4 << 20)) row("L2 hit (global, 4 MiB)", l2->cycles, "~200");
  if (dram) {
    row(fmt::format("DRAM (global, {}{})", cudalab::human_bytes(static_cast<double>(dram->first)),
                    static_cast<double>(dram->first) > tlb_reach ? ", TLB misses too" : ""),
        dram->second.cycles, "400-800");
  }
  if (!tlb.pages.empty()) {
    row(fmt::format("TLB misses, {} spans (added to an L2 hit)", cudalab::human_bytes(static_cast<double>(tlb.pages.back() * page))),
        tlb.cycles.back() - tlb.baseline, Value());
  }
  report.heading("The latency table of the notes, measured on this GPU");
  report.table("latency_table", t);
  if (dram) report.field("dram_over_shared", "DRAM / shared memory", Value(dram->second.cycles / chip.shared_cycles, 1), "x");
  if (auto l2 = at(4 << 20)) report.field("l2_over_shared", "L2 / shared memory", Value(l2->cycles / chip.shared_cycles, 1), "x");
}

}  // namespace latency
