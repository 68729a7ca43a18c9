#pragma once
// The latency_hiding lab's options and experiments: dependent FMA chains over warps and chains
// (arith), bandwidth over bytes in flight (memory), a copy at two occupancies (copy), the notes'
// slow warp with and without a barrier (barrier) and the bottleneck checklist (walk).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/ladder.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "latency_hiding.hpp"
#include "reference.hpp"

namespace latency_hiding {

using cudalab::Value;
namespace lh = latency_hiding;

struct Options {
  cudalab::CommonOptions common;
  std::string part = "all";
  int max_warps = 64;
  int chains = 0;  // 0: 1, 2, 4 and 8
  std::int64_t bytes = std::int64_t{512} << 20;
  int iters = 1 << 16;
  int dram_latency_ns = 0;  // 0: from this run's fewest bytes in flight
  int slow = 100, fast = 25, rounds = 800;
};

inline std::vector<int> powers_of_two_up_to(int n) {
  std::vector<int> v;
  for (int w = 1; w <= n; w *= 2) v.push_back(w);
  return v;
}

// ---- 1 ----
inline bool arithmetic(cudalab::Report& report, const Options& o, const cudalab::DeviceFacts& facts, cudalab::Benchmarker& bench) {
  report.heading(fmt::format("Dependent FMA chains: warps per SM x independent chains per thread ({} FMAs a chain)", o.iters));
  const double lanes = facts.sm_count * static_cast<double>(cudalab::arch_lanes(facts.cc_major, facts.cc_minor).fp32);
  const std::vector<int> chains = o.chains ? std::vector<int>{o.chains} : std::vector<int>{1, 2, 4, 8};
  cudalab::Table t({{"warps_per_sm", "warps/SM"}, {"chains", "chains"}, {"model_percent", "model % peak"},
                    {"percent_of_peak_at_clock", "% peak at clock"}, {"gflops", "GFLOP/s"}, {"clock_ghz", "clock GHz"},
                    {"median_ms", "median ms"}, {"correct", "ok"}});
  bool ok = true;
  double best = 0;
  for (int w : powers_of_two_up_to(o.max_warps)) {
    for (int c : chains) {
      const lh::FmaPoint p = lh::fma_point(bench, w, c, o.iters);
      const double peak = lanes * 2 * p.clock_hz;
      const double share = peak > 0 ? p.flops / peak : 0;
      ok = ok && p.correct;
      if (p.correct) best = std::max(best, share);
      t.add_row({w, c, Value(100 * lh::fma_issue_model(w, c), 1), p.correct ? Value(100 * share, 1) : Value(),
                 p.correct ? Value(p.flops / 1e9, 0) : Value(), Value(p.clock_hz / 1e9, 3), Value(p.ms, 4),
                 cudalab::correct_cell(p.correct)});
    }
  }
  report.table("fma", t);
  report.field("best_fma_percent_of_peak", "best share of the FP32 peak at the measured clock", Value(100 * best, 1), "%");
  report.note("  model: a sub-partition issues one FMA a cycle and waits 4 cycles for a dependent result, so it needs");
  report.note("  4 independent FMAs (warps on it x chains) to issue every cycle; 4 sub-partitions per SM.");
  return ok;
}

// ---- 2 ----
inline bool memory(cudalab::Report& report, const Options& o, const cudalab::DeviceFacts& facts, cudalab::Benchmarker& bench,
            double copy_gbps) {
  report.heading(fmt::format("Reading {} MiB: warps per SM x loads in flight per thread x load width",
                             o.bytes >> 20));
  const lh::ReadSet set(static_cast<std::size_t>(o.bytes));
  std::vector<lh::LoadPoint> points;
  std::vector<std::string> unfit;  // more registers a thread than that many warps leave it
  for (int w : lh::read_warp_levels(o.max_warps)) {
    for (int width : {4, 8, 16}) {
      for (int loads : {1, 2, 4, 8, 16}) {
        if (lh::load_point_fits(w, loads, width)) {
          points.push_back(lh::load_point(bench, set, w, loads, width));
        } else {
          unfit.push_back(fmt::format("{} x {} B at {} warps", loads, width, w));
        }
      }
    }
  }
  std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) {
    return a.bytes_in_flight_per_sm < b.bytes_in_flight_per_sm ||
           (a.bytes_in_flight_per_sm == b.bytes_in_flight_per_sm && a.warps_per_sm < b.warps_per_sm);
  });
  cudalab::Table t({{"bytes_in_flight_per_sm", "bytes in flight/SM"}, {"warps_per_sm", "warps/SM"}, {"loads", "loads/thread"},
                    {"width", "bytes/load"}, {"gbps", "GB/s"}, {"over_copy", "x copy"}, {"median_ms", "median ms"}, {"correct", "ok"}});
  bool ok = true;
  for (const auto& p : points) {
    ok = ok && p.correct;
    t.add_row({Value(p.bytes_in_flight_per_sm, 0), p.warps_per_sm, p.loads, p.width, p.correct ? Value(p.gbps, 0) : Value(),
               p.correct ? Value(p.gbps / copy_gbps, 3) : Value(), Value(p.ms, 4), cudalab::correct_cell(p.correct)});
  }
  report.table("reads", t);
  if (!unfit.empty()) {
    report.note(fmt::format("  not run (a thread would need more registers than its warps per SM leave it): {}",
                            fmt::join(unfit, ", ")));
  }
  // Little's law both ways: the fewest bytes in flight give the latency (nothing queues there);
  // that latency times the copy ceiling gives the bytes in flight the DRAM needs.
  const lh::LoadPoint& low = points.front();
  const double latency_s = o.dram_latency_ns > 0
                               ? o.dram_latency_ns * 1e-9
                               : lh::little_latency_s(low.bytes_in_flight_per_sm * facts.sm_count, low.gbps * 1e9);
  report.field("latency_ns", o.dram_latency_ns > 0 ? "DRAM latency (given, --dram-latency-ns)"
                                                   : "DRAM latency from the fewest bytes in flight (Little: in flight / GB/s)",
               Value(latency_s * 1e9, 0), "ns");
  const double predicted = lh::little_bytes_in_flight(copy_gbps * 1e9, latency_s) / facts.sm_count;
  report.field("predicted_bytes_per_sm", "Little's law: copy ceiling x latency / SMs", Value(predicted, 0), "bytes per SM");
  const auto knee = std::find_if(points.begin(), points.end(), [&](const auto& p) { return p.correct && p.gbps >= 0.95 * copy_gbps; });
  double best = 0;
  for (const auto& p : points) best = p.correct ? std::max(best, p.gbps) : best;
  report.field("best_read_over_copy", "best read bandwidth / copy ceiling", Value(best / copy_gbps, 3));
  if (knee != points.end()) {
    report.field("knee_bytes_per_sm", "fewest bytes in flight at 0.95 x the copy ceiling", Value(knee->bytes_in_flight_per_sm, 0),
                 "bytes per SM");
    report.field("knee_over_prediction", "that / Little's prediction", Value(knee->bytes_in_flight_per_sm / predicted, 2));
  } else {
    report.note("  no configuration reached 0.95 x the copy ceiling");
  }
  return ok;
}

// ---- 3 ----
// A ladder of copies (common/ladder's driver: poisoned, checked before and after timing).
inline bool copies(cudalab::Report& report, const Options& o, const cudalab::DeviceFacts& facts, cudalab::Benchmarker& bench,
            double copy_gbps) {
  const std::size_t n = static_cast<std::size_t>(o.bytes) / sizeof(float) / 2;  // in and out: --bytes together
  report.heading(fmt::format("Copying {} MiB: low occupancy with many loads in flight, against full occupancy with one",
                             n * sizeof(float) >> 20));
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<float>(static_cast<std::int32_t>(lh::input_word(i)));
  cudalab::DeviceBuffer<float> in(h), out(n);
  struct Config {
    const char* name;
    int threads, blocks_per_sm, loads;
    bool vector;
  };
  static const Config configs[] = {{"full_occupancy_1x4B", 256, 8, 1, false}, {"full_occupancy_1x16B", 256, 8, 1, true},
                                   {"quarter_1x16B", 256, 2, 1, true},        {"quarter_4x16B", 256, 2, 4, true},
                                   {"quarter_16x16B", 256, 2, 16, true},      {"eighth_16x16B", 128, 2, 16, true}};
  std::vector<cudalab::Rung> rungs;
  std::vector<double> occupancy;
  for (const Config& c : configs) {
    cudalab::Rung r;
    r.name = c.name;
    r.bytes = 2.0 * static_cast<double>(n) * sizeof(float);
    r.poison = [&out] { out.fill_bytes(0xFF); };
    r.launch = [&in, &out, n, c] { lh::launch_copy(in.data(), out.data(), n, c.threads, c.blocks_per_sm, c.loads, c.vector); };
    r.check = [&out, &h, name = std::string(c.name)] {
      const std::vector<float> got = out.download();
      for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::memcmp(&got[i], &h[i], sizeof(float)) != 0) {
          std::fprintf(stderr, "latency_hiding: %s is wrong at element %zu\n", name.c_str(), i);
          return false;
        }
      }
      return true;
    };
    const double occ = lh::copy_occupancy(c.threads, c.blocks_per_sm);
    const double in_flight = lh::bytes_in_flight_per_sm(c.threads / 32 * c.blocks_per_sm, c.loads, c.vector ? 16 : 4);
    occupancy.push_back(occ);
    r.cells = [occ, in_flight] {
      return std::vector<cudalab::Cell>{{"occupancy_percent", "occupancy %", Value(100 * occ, 1)},
                                        {"bytes_in_flight_per_sm", "bytes in flight/SM", Value(in_flight, 0)}};
    };
    rungs.push_back(std::move(r));
  }
  const cudalab::LadderResult result = cudalab::run_ladder(bench, rungs);
  cudalab::report_ladder(report, result, {facts.theoretical_bandwidth_gbps(), copy_gbps}, o.common.repeat, {true, ""});
  double best_low = 0;
  for (std::size_t i = 0; i < result.rungs.size(); ++i) {
    const auto& r = result.rungs[i].result;
    if (r.correct && r.suspect.empty() && occupancy[i] <= 0.25) best_low = std::max(best_low, r.gbps());
  }
  report.field("best_quarter_over_copy", "best copy at <= 25 % occupancy / copy ceiling", Value(best_low / copy_gbps, 3));
  return result.all_ok;
}

// ---- 4 ----
inline bool barriers(cudalab::Report& report, const Options& o) {
  report.heading(fmt::format("8 warps a block, one of them slow each round ({} FMAs against {}), {} rounds", o.slow, o.fast,
                             o.rounds));
  cudalab::Table t({{"blocks_per_sm", "blocks/SM"}, {"barrier", "barrier"}, {"cycles_per_round", "cycles/round"},
                    {"sm_cycles_per_block_round", "SM cycles per block-round"}, {"model_cycles_per_round", "model (1 block)"},
                    {"correct", "ok"}});
  bool ok = true;
  for (int blocks : {1, 2, 4, 8}) {
    for (bool barrier : {true, false}) {
      const lh::BarrierPoint p = lh::barrier_point(blocks, barrier, o.rounds, o.slow, o.fast);
      ok = ok && p.correct;
      const double model = barrier ? lh::round_cycles_with_barrier(o.slow) : lh::round_cycles_without_barrier(o.slow, o.fast);
      t.add_row({blocks, Value::shown(barrier, barrier ? "yes" : "no"), Value(p.cycles_per_round, 1),
                 Value(p.sm_cycles_per_block_round, 1), Value(model, 1), cudalab::correct_cell(p.correct)});
    }
  }
  report.table("barrier", t);
  // The same rounds with no slow warp: what a round of `fast` FMAs costs by itself, barrier or not
  for (bool barrier : {true, false}) {
    const lh::BarrierPoint p = lh::barrier_point(1, barrier, o.rounds, o.fast, o.fast);
    ok = ok && p.correct;
    report.field(barrier ? "balanced_cycles_per_round_barrier" : "balanced_cycles_per_round_no_barrier",
                 fmt::format("no slow warp ({} FMAs each), 1 block/SM, {} the barrier: cycles/round", o.fast,
                             barrier ? "with" : "without"),
                 p.correct ? Value(p.cycles_per_round, 1) : Value::shown(false, "NO"));
  }
  report.field("idle_warp_cycles_per_round", "warp-cycles a barrier leaves idle per round (model; errata row 7)",
               Value(lh::idle_warp_cycles_per_round(o.slow, o.fast), 0));
  return ok;
}

// ---- 5 ----
// Three kernels with one flaw each, walked through the hardware note's checklist: what the
// compiler and the occupancy API say, then each of the three fixes tried on each kernel. The
// fix that makes a kernel fastest names its bottleneck; a fix for a flaw it does not have runs
// the same kernel again (its speedup is the noise).
inline bool walk(cudalab::Report& report, const Options& o, const cudalab::DeviceFacts& facts, cudalab::Benchmarker& bench,
          double copy_gbps) {
  const std::size_t n = static_cast<std::size_t>(o.bytes) / sizeof(float) / 2 / lh::kMysteryThreads * lh::kMysteryThreads;
  report.heading(fmt::format("The bottleneck walk: three kernels, {} floats in and out, each fix tried on each", n));
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = static_cast<float>(lh::input_word(i) % 1000) * 0.001f;
  cudalab::DeviceBuffer<float> in(h), out(n);
  struct Mystery {
    const char* name;
    lh::Flaws flaws;
    int work;
  };
  const Mystery kernels[] = {{"kernel_a", {true, false, false}, 0},
                             {"kernel_b", {false, true, false}, 0},
                             {"kernel_c", {false, false, true}, 256}};
  struct Fix {
    const char* name;
    lh::Flaws (*apply)(lh::Flaws);
  };
  const Fix fixes[] = {{"as_is", [](lh::Flaws f) { return f; }},
                       {"coalesce_the_load", [](lh::Flaws f) { f.strided = false; return f; }},
                       {"pad_the_tile", [](lh::Flaws f) { f.conflicted = false; return f; }},
                       {"branch_per_warp", [](lh::Flaws f) { f.divergent = false; return f; }}};
  cudalab::MeasurementTable rows({facts.theoretical_bandwidth_gbps(), copy_gbps});
  cudalab::Table verdicts({{"kernel", "kernel"}, {"registers", "regs/thread"}, {"shared_bytes", "shared B/block"},
                           {"occupancy_percent", "occupancy % (API)"}, {"bottleneck", "fastest fix"},
                           {"speedup", "its speedup"}});
  bool ok = true;
  for (const Mystery& m : kernels) {
    std::vector<cudalab::Rung> rungs;
    for (const Fix& fx : fixes) {
      const lh::Flaws f = fx.apply(m.flaws);
      cudalab::Rung r;
      r.name = fx.name;
      r.bytes = 2.0 * static_cast<double>(n) * sizeof(float);
      r.poison = [&out] { out.fill_bytes(0xFF); };
      r.launch = [&in, &out, n, f, work = m.work] { lh::launch_mystery(f, in.data(), out.data(), n, work); };
      r.check = [&out, &h, f, work = m.work, name = std::string(m.name) + "/" + fx.name] {
        const std::vector<float> got = out.download();
        // whole blocks: every 127th and the last one (a block's threads trade values through the tile)
        const std::size_t blocks = got.size() / lh::kMysteryThreads;
        for (std::size_t b = 0; b < blocks; b = (b + 127 < blocks || b + 1 == blocks) ? b + 127 : blocks - 1) {
          for (std::size_t g = b * lh::kMysteryThreads; g < (b + 1) * lh::kMysteryThreads; ++g) {
            if (got[g] != lh::mystery_expected(h, g, f, work)) {
              std::fprintf(stderr, "latency_hiding: %s is wrong at element %zu\n", name.c_str(), g);
              return false;
            }
          }
        }
        return true;
      };
      rungs.push_back(std::move(r));
    }
    const cudalab::LadderResult result = cudalab::run_ladder(bench, rungs);
    rows.add(result, {{"kernel", "kernel", m.name}});
    ok = ok && result.all_ok;
    const lh::KernelFacts k = lh::mystery_facts(m.flaws);
    int best = 0;
    for (int i = 1; i < static_cast<int>(result.rungs.size()); ++i) {
      const auto& r = result.rungs[static_cast<std::size_t>(i)].result;
      if (r.correct && r.timing.median_ms < result.rungs[static_cast<std::size_t>(best)].result.timing.median_ms) best = i;
    }
    const double as_is = result.rungs[0].result.timing.median_ms;
    const double speedup = as_is / result.rungs[static_cast<std::size_t>(best)].result.timing.median_ms;
    verdicts.add_row({m.name, k.registers, k.shared_bytes, Value(100 * k.occupancy, 1),
                      speedup >= 1.2 ? fixes[best].name : "none of the three", Value(speedup, 2)});
  }
  report.table("walk", rows.table());
  report.table("walk_verdicts", verdicts);
  return ok;
}

}  // namespace latency_hiding
