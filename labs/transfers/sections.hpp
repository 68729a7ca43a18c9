#pragma once
// The transfers lab's options and sections: host-device copies (pageable and pinned), the chunked
// overlap over streams, unified memory, and where the GPU pays end to end.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_facts.hpp"
#include "common/lab_main.hpp"
#include "common/ladder.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "reference.hpp"
#include "transfers.hpp"

namespace transfers {

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 28;
  int streams = 0;  // 0: 1, 2, 4 and 8
  int chunks = 16;
  std::int64_t max_copy = std::int64_t{256} << 20;
  std::string section = "all";
  bool sweep = false;
  bool timeline = false;
};

constexpr std::size_t kUnifiedMax = std::size_t{1} << 26;   // unified memory runs on at most 2^26 floats
constexpr std::size_t kCrossoverMax = std::size_t{1} << 28;

inline bool wants(const Options& o, const char* section) { return o.section == "all" || o.section == section; }

inline std::string link_name(int generation, int width) { return fmt::format("Gen{} x{}", generation, width); }

inline void report_link(cudalab::Report& report, const cudalab::DeviceFacts& facts, const cudalab::PcieLink& link) {
  report.heading("The link between host and device");
  report.field("pci_bus_id", "PCI bus id", link.bus_id);
  if (!link.known()) {
    report.field("link", "PCIe link", "unknown: " + link.why_unknown);
    return;
  }
  report.field("link", "PCIe link (now)", link_name(link.generation, link.width));
  if (link.max_generation > 0) {
    report.field("link_max", "PCIe link (the most it can do)", link_name(link.max_generation, link.max_width));
  }
  report.field("link_gbps", "theoretical rate per direction", Value(link.gbps_per_direction(), 1), "GB/s");
  report.field("hbm_gbps", "theoretical DRAM bandwidth", Value(facts.theoretical_bandwidth_gbps(), 0), "GB/s");
  report.field("hbm_over_link", "DRAM / link, theoretical",
               Value(facts.theoretical_bandwidth_gbps() / link.gbps_per_direction(), 1), "x");
}

// ---- copy bandwidth --------------------------------------------------------------------------

inline int copy_section(cudalab::Report& report, const Options& o, const cudalab::PcieLink& link, std::size_t last,
                 std::size_t factor) {
  // Sizes that fit: a pageable and a pinned host buffer, one device buffer (and room for the copy
  // ceiling's two).
  const std::vector<std::size_t> sizes =
      cudalab::sweep_sizes(4096, last, factor, [](std::size_t s) { return 2.0 * static_cast<double>(s); },
                           std::min(cudalab::usable_host_memory(), cudalab::usable_device_memory()));
  if (sizes.empty()) throw cudalab::UsageError("not enough memory for even the smallest copy");
  const std::size_t largest = sizes.back();
  std::vector<unsigned char> pageable(largest);
  for (std::size_t i = 0; i < largest; ++i) pageable[i] = static_cast<unsigned char>(i * 131 % 251);
  cudalab::PinnedBuffer<unsigned char> pinned(largest);
  std::memset(pinned.data(), 0, largest);
  cudalab::DeviceBuffer<unsigned char> device(largest);

  cudalab::Table t({{"size", "size"}, {"bytes", "bytes"}, {"pageable_h2d_gbps", "pageable H2D GB/s"},
                    {"pageable_d2h_gbps", "pageable D2H GB/s"}, {"pinned_h2d_gbps", "pinned H2D GB/s"},
                    {"pinned_d2h_gbps", "pinned D2H GB/s"}, {"pageable_h2d_us", "pageable H2D us"},
                    {"pinned_h2d_us", "pinned H2D us"}});
  double first_pinned_us = 0, last_pinned_h2d = 0, last_pinned_d2h = 0, last_pageable_h2d = 0;
  for (std::size_t s : sizes) {
    const int reps = transfers::copy_repeats(s, 5 * o.common.repeat);
    const auto g = [&](double ms) { return Value(cudalab::gbps(static_cast<double>(s), ms), 2); };
    const double pg_h2d = transfers::time_copy_ms(device.data(), pageable.data(), s, cudaMemcpyHostToDevice, reps);
    const double pg_d2h = transfers::time_copy_ms(pageable.data(), device.data(), s, cudaMemcpyDeviceToHost, reps);
    const double pn_h2d = transfers::time_copy_ms(device.data(), pinned.data(), s, cudaMemcpyHostToDevice, reps);
    const double pn_d2h = transfers::time_copy_ms(pinned.data(), device.data(), s, cudaMemcpyDeviceToHost, reps);
    t.add_row({cudalab::human_bytes(static_cast<double>(s)), static_cast<long long>(s), g(pg_h2d), g(pg_d2h),
               g(pn_h2d), g(pn_d2h), Value(pg_h2d * 1e3, 1), Value(pn_h2d * 1e3, 1)});
    if (s == sizes.front()) first_pinned_us = pn_h2d * 1e3;
    last_pinned_h2d = cudalab::gbps(static_cast<double>(s), pn_h2d);
    last_pinned_d2h = cudalab::gbps(static_cast<double>(s), pn_d2h);
    last_pageable_h2d = cudalab::gbps(static_cast<double>(s), pg_h2d);
  }
  report.heading("Copy bandwidth: cudaMemcpy, pageable (std::vector) vs pinned (cudaMallocHost)");
  report.table("copies", t);

  // The round trip must deliver every byte: pageable -> device -> pinned.
  CUDA_CHECK(cudaMemcpy(device.data(), pageable.data(), largest, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(pinned.data(), device.data(), largest, cudaMemcpyDeviceToHost));
  const bool ok = std::memcmp(pinned.data(), pageable.data(), largest) == 0;
  if (!ok) std::fprintf(stderr, "transfers: the round trip host -> device -> host changed the data\n");

  const std::string at = cudalab::human_bytes(static_cast<double>(largest));
  report.field("copy_round_trip", "pageable -> device -> pinned, " + at, ok ? "every byte arrived" : "DATA CHANGED");
  report.field("pinned_h2d_gbps", "pinned H2D at " + at, Value(last_pinned_h2d, 1), "GB/s");
  report.field("pinned_d2h_gbps", "pinned D2H at " + at, Value(last_pinned_d2h, 1), "GB/s");
  report.field("pageable_h2d_gbps", "pageable H2D at " + at, Value(last_pageable_h2d, 1), "GB/s");
  report.field("pinned_over_pageable", "pinned / pageable H2D", Value(last_pinned_h2d / last_pageable_h2d, 1), "x");
  if (link.known()) {
    report.field("pinned_h2d_over_link", "pinned H2D / the link's theoretical rate",
                 Value(last_pinned_h2d / link.gbps_per_direction(), 3));
  }
  report.field("fixed_cost_us", "a " + cudalab::human_bytes(static_cast<double>(sizes.front())) + " pinned H2D copy",
               Value(first_pinned_us, 1), "us (almost all fixed cost)");
  report.field("half_rate_bytes", "size at which a copy reaches half its rate",
               cudalab::bytes_cell(transfers::half_rate_bytes(first_pinned_us, last_pinned_h2d)),
               "(fixed cost x rate)");
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, true});
  const cudalab::CopyCeiling ceiling = cudalab::measure_copy_ceiling(bench);
  report.field("copy_ceiling_gbps", "device memory copy ceiling (measured)", Value(ceiling.gbps, 0), "GB/s");
  report.field("hbm_over_pinned", "device memory / pinned H2D, measured", Value(ceiling.gbps / last_pinned_h2d, 1),
               "x (the notes' \"how many times slower\")");
  return ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

// ---- overlap ---------------------------------------------------------------------------------

inline int overlap_section(cudalab::Report& report, const Options& o, transfers::PipelineBuffers& buffers,
                    const std::vector<int>& stream_counts, int chunks) {
  const transfers::Pipeline p = buffers.view();
  const int reps = std::clamp(o.common.repeat, 1, 10);
  const double bytes = static_cast<double>(p.n) * sizeof(float);
  report.heading(fmt::format("Overlap: c = a + b, N = {} floats in {} chunks, pinned memory, chunk i on stream i mod S",
                             p.n, chunks));
  const transfers::Alone alone = transfers::time_alone(p, reps);
  const double bound = std::max({alone.h2d_ms, alone.kernel_ms, alone.d2h_ms});
  report.field("h2d_ms", "H2D alone (a and b)", Value(alone.h2d_ms, 3),
               fmt::format("ms  {:.1f} GB/s", cudalab::gbps(2 * bytes, alone.h2d_ms)));
  report.field("kernel_ms", "kernel alone", Value(alone.kernel_ms, 3),
               fmt::format("ms  {:.0f} GB/s", cudalab::gbps(3 * bytes, alone.kernel_ms)));
  report.field("d2h_ms", "D2H alone (c)", Value(alone.d2h_ms, 3),
               fmt::format("ms  {:.1f} GB/s", cudalab::gbps(bytes, alone.d2h_ms)));
  report.field("bound_ms", "bound max(H2D, kernel, D2H)", Value(bound, 3), "ms");
  report.field("serial_ms", "serial: the three in a row, one stream", Value(alone.serial_ms, 3), "ms");

  cudalab::Table t({{"streams", "streams"}, {"chunks", "chunks"}, {"total_ms", "total ms"},
                    {"over_bound", "x bound"}, {"speedup", "x faster than serial"}, {"correct", "ok"}});
  cudalab::Table timeline({{"streams", "streams"}, {"stream", "stream"}, {"chunk", "chunk"}, {"op", "op"},
                           {"start_ms", "start ms"}, {"end_ms", "end ms"}});
  bool all_ok = true;
  double reported_ratio = 0;
  int reported_streams = 0;
  for (int s : stream_counts) {
    buffers.poison_c();
    transfers::run_overlap(p, s, chunks);
    const std::size_t wrong = transfers::first_wrong(p.c, p.a, p.b, p.n);
    const bool ok = wrong == p.n;
    if (!ok) {
      std::fprintf(stderr, "transfers: %d streams: c[%zu] = %g, expected %g\n", s, wrong, static_cast<double>(p.c[wrong]),
                   static_cast<double>(p.a[wrong] + p.b[wrong]));
    }
    all_ok = all_ok && ok;
    std::vector<double> totals;
    transfers::OverlapRun last;
    for (int r = 0; r < reps; ++r) {
      last = transfers::run_overlap(p, s, chunks);
      totals.push_back(last.total_ms);
    }
    const double total = cudalab::summarize(totals).median_ms;
    t.add_row({s, chunks, Value(total, 3), Value(total / bound, 3), Value(alone.serial_ms / total, 2),
               cudalab::correct_cell(ok)});
    for (const auto& e : last.timeline) {
      timeline.add_row({s, e.stream, e.chunk, e.op, Value(e.start_ms, 4), Value(e.end_ms, 4)});
    }
    if (reported_streams != 4) {
      reported_streams = s;
      reported_ratio = total / bound;
    }
  }
  report.table("overlap", t);
  report.field("overlap_streams", "streams of the headline ratio", reported_streams);
  report.field("overlap_over_bound", "end to end / max(H2D, kernel, D2H)", Value(reported_ratio, 3),
               "(1 = perfect overlap)");
  if (report.json() || o.timeline) {
    report.heading("Timeline of the last timed run per stream count (ms from its start; a bar starts when its "
                   "stream reached it)");
    report.table("timeline", timeline);
  }
  return all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

// ---- unified memory --------------------------------------------------------------------------

inline int unified_section(cudalab::Report& report, const Options& o, std::size_t n) {
  report.heading(fmt::format("Unified memory vs explicit copies: c = a + b, N = {} floats ({} per array)", n,
                             cudalab::human_bytes(static_cast<double>(n) * sizeof(float))));
  const transfers::UnifiedReport u = transfers::run_unified(n, std::clamp(o.common.repeat, 1, 3), transfers::kInputSeed);
  const auto ms = [](double v) { return v < 0 ? Value() : Value(v, 3); };
  cudalab::Table t({{"case", "case"}, {"to_gpu_ms", "inputs to GPU ms"}, {"kernel_ms", "kernel ms"},
                    {"to_host_ms", "c to host ms"}, {"total_ms", "total ms"}, {"gbps", "GB/s over the trip"},
                    {"correct", "ok"}});
  bool ok = true;
  for (const auto& c : u.cases) {
    t.add_row({c.name, ms(c.to_gpu_ms), ms(c.kernel_ms), ms(c.to_host_ms), ms(c.total_ms),
               Value(cudalab::gbps(12.0 * static_cast<double>(n), c.total_ms), 1), cudalab::correct_cell(c.correct)});
    if (!c.correct) std::fprintf(stderr, "transfers: unified memory, %s: c is wrong\n", c.name.c_str());
    ok = ok && c.correct;
  }
  report.table("unified", t);
  if (!u.prefetch_supported) {
    report.note("  This system has no concurrent managed access (cudaDevAttrConcurrentManagedAccess = 0):");
    report.note("  cudaMemPrefetchAsync is not available, so the prefetched case is left out.");
  }
  report.note("  'on demand': the kernel's page faults move the inputs (inside its time); the host's page");
  report.note("  faults bring c back. 'GPU first touch': the pages were born on the GPU, nothing moves in.");
  return ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

// ---- when the GPU pays -----------------------------------------------------------------------

inline int crossover_section(cudalab::Report& report, const Options& o, transfers::PipelineBuffers& buffers) {
  // The buffers are already there: nothing more to fit.
  // From 1024 floats (or N, when N is smaller) up to N: never an empty list.
  const std::size_t last = std::min<std::size_t>(buffers.size(), kCrossoverMax);
  const std::vector<std::size_t> sizes =
      cudalab::sweep_sizes(std::min<std::size_t>(1024, last), last, 4, [](std::size_t) { return 0.0; });
  const std::size_t largest = sizes.back();
  std::vector<float> a(largest), b(largest), c(largest), cpu(largest);
  transfers::fill_inputs(a.data(), b.data(), largest, transfers::kInputSeed);
  const transfers::Pipeline p = buffers.view(largest);
  const int reps = std::clamp(o.common.repeat, 1, 3);
  cudalab::Table t({{"n", "N"}, {"cpu_ms", "CPU ms"}, {"gpu_pageable_ms", "GPU+copies pageable ms"},
                    {"gpu_pinned_ms", "GPU+copies pinned ms"}, {"pageable_speedup", "x CPU pageable"},
                    {"pinned_speedup", "x CPU pinned"}, {"correct", "ok"}});
  std::vector<long long> ns;
  std::vector<double> cpu_ms, pageable_ms, pinned_ms;
  bool all_ok = true;
  for (std::size_t n : sizes) {
    std::vector<double> tc, tg, tp;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      transfers::cpu_add(a.data(), b.data(), cpu.data(), n);
      tc.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    bool ok = transfers::first_wrong(cpu.data(), a.data(), b.data(), n) == n;
    std::memset(c.data(), 0xFF, n * sizeof(float));
    (void)transfers::end_to_end_ms(a.data(), b.data(), c.data(), p.d_a, p.d_b, p.d_c, n);  // warm-up
    ok = ok && transfers::first_wrong(c.data(), a.data(), b.data(), n) == n;
    for (int r = 0; r < reps; ++r) tg.push_back(transfers::end_to_end_ms(a.data(), b.data(), c.data(), p.d_a, p.d_b, p.d_c, n));
    buffers.poison_c();
    (void)transfers::end_to_end_ms(p.a, p.b, p.c, p.d_a, p.d_b, p.d_c, n);
    ok = ok && transfers::first_wrong(p.c, p.a, p.b, n) == n;
    for (int r = 0; r < reps; ++r) tp.push_back(transfers::end_to_end_ms(p.a, p.b, p.c, p.d_a, p.d_b, p.d_c, n));
    if (!ok) std::fprintf(stderr, "transfers: N = %zu: a result of c = a + b is wrong\n", n);
    all_ok = all_ok && ok;
    ns.push_back(static_cast<long long>(n));
    cpu_ms.push_back(cudalab::summarize(tc).median_ms);
    pageable_ms.push_back(cudalab::summarize(tg).median_ms);
    pinned_ms.push_back(cudalab::summarize(tp).median_ms);
    t.add_row({ns.back(), Value(cpu_ms.back(), 4), Value(pageable_ms.back(), 4), Value(pinned_ms.back(), 4),
               Value(cpu_ms.back() / pageable_ms.back(), 2), Value(cpu_ms.back() / pinned_ms.back(), 2),
               cudalab::correct_cell(ok)});
  }
  report.heading("When the GPU pays, end to end: c = a + b from host memory back to host memory vs the CPU loop");
  report.table("crossover", t);
  const auto from = [](long long n) { return n < 0 ? Value::shown(Value(), "not in this range") : Value(n); };
  report.field("crossover_pageable", "GPU faster from N = (pageable)", from(transfers::crossover(ns, cpu_ms, pageable_ms)));
  report.field("crossover_pinned", "GPU faster from N = (pinned)", from(transfers::crossover(ns, cpu_ms, pinned_ms)));
  return all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace transfers
