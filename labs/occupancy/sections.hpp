#pragma once
// The occupancy lab's options and sections: the calculator's breakdown and the notes' exercise 74,
// the what-if table, the notes' program and the runtime's sweep, launch bounds, bandwidth over
// occupancy, the tail effect and its persistent fix, grid size, and launch overhead with CUDA graphs.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/ladder.hpp"
#include "common/lab_main.hpp"
#include "common/occupancy_calc.hpp"
#include "common/random.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "occupancy_lab.hpp"

namespace occupancy_lab {

namespace occ = cudalab::occupancy;
using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  int threads = 0;
  int regs = 32;
  std::int64_t smem = 0;
  std::string arch;
  std::int64_t stream_n = std::int64_t{1} << 27;
  int launches = 1000;  // the launch-overhead section's kernels, one by one and in the graph
};

inline cudalab::Value blocks_text(int b) { return b == occ::kUnlimited ? cudalab::Value() : cudalab::Value(b); }

inline void report_breakdown(cudalab::Report& report, const occ::GpuSpec& g, const occ::KernelSpec& k) {
  const occ::Result r = occ::compute(g, k);
  report.heading(fmt::format("{}: {} threads, {} registers/thread, {} B shared memory per block", g.arch,
                             k.block_threads, k.regs_per_thread, k.static_smem + k.dynamic_smem));
  cudalab::Table t({{"resource", "resource"}, {"per_block", "per block"}, {"per_sm", "per SM"}, {"blocks", "blocks alone"}});
  // per block and per SM: numbers in JSON (warps, blocks, registers, bytes: the row's resource),
  // with their unit in the text
  t.add_row({"threads (warps)", Value::shown(r.warps_per_block, fmt::format("{} warps", r.warps_per_block)),
             Value::shown(r.max_warps, fmt::format("{} warps", r.max_warps)), blocks_text(r.by_warps)});
  t.add_row({"resident-block cap", 1, g.max_blocks_per_sm, blocks_text(r.by_blocks)});
  t.add_row({"registers", Value::shown(r.regs_allocated_per_block, fmt::format("{} (allocated)", r.regs_allocated_per_block)),
             g.regs_per_sm, blocks_text(r.by_registers)});
  t.add_row({"shared memory",
             Value::shown(r.smem_allocated_per_block,
                          fmt::format("{} B (with {} B reserved)", r.smem_allocated_per_block, g.smem_reserved_per_block)),
             Value::shown(g.smem_per_sm, fmt::format("{} B", g.smem_per_sm)), blocks_text(r.by_shared_memory)});
  report.table("resources", t);
  report.field("resident_blocks", "resident blocks per SM", r.resident_blocks);
  report.field("active_warps", "active warps per SM",
               Value::shown(r.active_warps, fmt::format("{} of {}", r.active_warps, r.max_warps)));
  report.field("occupancy_percent", "occupancy", Value(r.occupancy_percent, 2), "%");
  report.field("limited_by", "limited by", r.limiter_names());
}

// The student's calculator (exercise 74, occupancy.cu) beside the suite's, on the same kernel.
inline void report_exercise_74(cudalab::Report& report, const occ::GpuSpec& g, const occ::KernelSpec& k) {
  const occupancy_lab::Exercise74 mine = occupancy_lab::exercise_74(g, k);
  const occ::Result r = occ::compute(g, k);
  const bool agrees = mine.by_threads == r.by_warps && mine.by_blocks == r.by_blocks &&
                      mine.by_registers == r.by_registers && mine.by_shared_memory == r.by_shared_memory &&
                      mine.resident_blocks == r.resident_blocks;
  report.field("exercise_74_resident_blocks", "exercise 74 (occupancy.cu)", mine.resident_blocks, "blocks");
  report.field("exercise_74_agrees", "agrees with the calculator",
               Value::shown(agrees, agrees ? "yes" : "no (by threads, cap, registers, shared memory: " +
                                                         fmt::format("{}, {}, {}, {})", mine.by_threads, mine.by_blocks,
                                                                     mine.by_registers, mine.by_shared_memory)));
}

inline int run_what_if(const Options& o, const occ::GpuSpec& g) {
  cudalab::Report report("occupancy", o.common.json);
  occ::KernelSpec k;
  k.block_threads = o.threads;
  k.regs_per_thread = o.regs;
  k.dynamic_smem = static_cast<std::size_t>(o.smem);
  k.max_dynamic_smem = std::max<std::size_t>(k.dynamic_smem, 48 * 1024);  // opted in when needed
  report_breakdown(report, g, k);
  report_exercise_74(report, g, k);
  return cudalab::kExitSuccess;
}

// ---- the lab on a GPU -------------------------------------------------------------------

inline void notes_program(cudalab::Report& report, const occ::GpuSpec& g, int& agree, int& total) {
  report.heading("The notes' program: light_kernel over block sizes (cudaOccupancy* vs this calculator)");
  const auto light = occupancy_lab::attributes(Kernel::kLight);
  cudalab::Table t({{"block", "block"}, {"regs", "regs"}, {"api_blocks", "API blocks/SM"},
                    {"calc_blocks", "calc blocks/SM"}, {"occupancy_percent", "occupancy %"}, {"limited_by", "limited by"}});
  for (int block : {32, 64, 128, 256, 512, 768, 1024}) {
    const int api = occupancy_lab::api_blocks_per_sm(Kernel::kLight, block, 0);
    const auto r = occ::compute(g, occ::spec_from_attributes(light, block, 0));
    agree += api == r.resident_blocks;
    ++total;
    t.add_row({block, light.numRegs, api, r.resident_blocks, Value(r.occupancy_percent, 1), r.limiter_names()});
  }
  report.table("light_kernel", t);

  report.heading("smem_kernel, 256 threads, dynamic shared memory per block (opt-in beyond 48 KB)");
  auto smem = occupancy_lab::attributes(Kernel::kSharedMemory);
  // Beyond 48 KB a kernel must opt in, or the runtime reports 0 blocks.
  occupancy_lab::allow_max_dynamic_smem(Kernel::kSharedMemory, smem, g.smem_per_block_optin);
  smem = occupancy_lab::attributes(Kernel::kSharedMemory);
  cudalab::Table s({{"dynamic_smem", "dynamic smem"}, {"api_blocks", "API blocks/SM"}, {"calc_blocks", "calc blocks/SM"},
                    {"occupancy_percent", "occupancy %"}, {"limited_by", "limited by"}});
  const std::size_t max_dyn = g.smem_per_block_optin - smem.sharedSizeBytes;
  for (std::size_t kb : {0, 16, 32, 48, 64, 96, 128, 160, 192}) {
    const std::size_t bytes = kb * 1024;
    if (bytes > max_dyn) break;
    const int api = occupancy_lab::api_blocks_per_sm(Kernel::kSharedMemory, 256, bytes);
    const auto r = occ::compute(g, occ::spec_from_attributes(smem, 256, bytes));
    agree += api == r.resident_blocks;
    ++total;
    s.add_row({fmt::format("{} KB", kb), api, r.resident_blocks, Value(r.occupancy_percent, 1), r.limiter_names()});
  }
  report.table("smem_kernel", s);

  const auto light_best = occupancy_lab::suggest_block(Kernel::kLight);
  const auto reg_best = occupancy_lab::suggest_block(Kernel::kRegisters96);
  report.field("suggested_block_light", "cudaOccupancyMaxPotentialBlockSize(light_kernel)",
               fmt::format("block {} (min grid {})", light_best.block, light_best.min_grid));
  report.field("suggested_block_registers_96", "cudaOccupancyMaxPotentialBlockSize(registers_96)",
               fmt::format("block {} (min grid {})", reg_best.block, reg_best.min_grid));
}

inline void runtime_sweep(cudalab::Report& report, const occ::GpuSpec& g, int& agree, int& total) {
  report.heading("Runtime sweep: this calculator vs cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  cudalab::Table t({{"kernel", "kernel"}, {"regs", "regs"}, {"static_smem", "static smem"},
                    {"local_bytes", "local (spill) B"}, {"configs", "configs"}, {"agree", "agree"}});
  for (const auto& ks : occupancy_lab::runtime_sweep(g)) {
    agree += ks.agree;
    total += ks.configs;
    t.add_row({occupancy_lab::kernel_name(ks.kernel), ks.attr.numRegs, static_cast<long long>(ks.attr.sharedSizeBytes),
               static_cast<long long>(ks.attr.localSizeBytes), ks.configs, ks.agree});
  }
  report.table("runtime_sweep", t);
}

inline void launch_bounds(cudalab::Report& report, const occ::GpuSpec& g) {
  report.heading("__launch_bounds__(256, 4) on the same code (96 values live per thread), 256-thread blocks");
  cudalab::Table t({{"kernel", "kernel"}, {"regs", "regs/thread"}, {"local_bytes", "spill (local) B"},
                    {"blocks", "blocks/SM"}, {"occupancy_percent", "occupancy %"}, {"limited_by", "limited by"}});
  for (Kernel k : {Kernel::kRegisters96, Kernel::kRegisters96Bounded}) {
    const auto attr = occupancy_lab::attributes(k);
    const auto r = occ::compute(g, occ::spec_from_attributes(attr, 256, 0));
    t.add_row({occupancy_lab::kernel_name(k), attr.numRegs, static_cast<long long>(attr.localSizeBytes),
               occupancy_lab::api_blocks_per_sm(k, 256, 0), Value(r.occupancy_percent, 1), r.limiter_names()});
  }
  report.table("launch_bounds", t);
}

// Small grids and launch overhead. The notes' rule for a kernel with one element per thread: fill
// the GPU's resident block slots, twice over. Here a grid-stride copy-and-scale (out = 2 * in)
// over the same n with grids from 1/8 of the slots to 16 times them, and the notes' shape (one
// element per thread: n / 256 blocks) beside them.
inline bool grid_size(cudalab::LabRun& run, const cudalab::DeviceBuffer<float>& in, cudalab::DeviceBuffer<float>& out,
                      const std::vector<float>& expected, std::vector<float>& got) {
  constexpr int kBlock = 256;
  const std::size_t n = expected.size();
  const int per_sm = occupancy_lab::stream_blocks_per_sm(kBlock);
  const long long slots = static_cast<long long>(run.facts().sm_count) * per_sm;
  std::vector<cudalab::Rung> rungs;
  std::vector<std::pair<std::string, long long>> grids;
  for (int eighths : {1, 2, 4, 8, 16, 32, 128}) {
    grids.emplace_back(eighths < 8 ? fmt::format("slots/{}", 8 / eighths) : fmt::format("{}x slots", eighths / 8),
                       std::max(1LL, slots * eighths / 8));
  }
  grids.emplace_back("n/256 (one per thread)", static_cast<long long>(cudalab::ceil_div(n, std::size_t{kBlock})));
  for (const auto& [name, blocks] : grids) {
    if (blocks > (1LL << 31) - 1) continue;
    cudalab::Rung rung;
    rung.name = name;
    rung.bytes = 8.0 * static_cast<double>(n);
    rung.poison = [&out] { out.fill_bytes(0xFF); };
    rung.launch = [&in, &out, n, b = static_cast<int>(blocks)] { occupancy_lab::launch_stream(false, in.data(), out.data(), n, b, kBlock, 0); };
    rung.check = [&expected, &got, &out] {
      out.download(got.data(), got.size());
      return std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0;
    };
    rung.cells = [blocks = blocks, slots] {
      return std::vector<cudalab::Cell>{{"blocks", "blocks", blocks},
                                        {"of_slots", "x resident slots", Value(static_cast<double>(blocks) / static_cast<double>(slots), 3)}};
    };
    rungs.push_back(std::move(rung));
  }
  return run.section(cudalab::Section::titled("grid_size",
                      fmt::format("Grid size: out = 2 * in, {} floats, {}-thread blocks, {} resident slots ({} per SM); "
                                  "the notes say fill them twice over", n, kBlock, slots, per_sm)),
                     rungs) == cudalab::kExitSuccess;
}

// The dynamic shared memory that lets exactly `per_sm` blocks fit on an SM of `g` (the largest
// allocation per_sm of which fit, less what the system reserves per block).
inline std::size_t smem_for_blocks_per_sm(const occ::GpuSpec& g, int per_sm) {
  return g.smem_per_sm / static_cast<std::size_t>(per_sm) / g.smem_alloc_unit * g.smem_alloc_unit - g.smem_reserved_per_block;
}

// Residency limited with dynamic shared memory: k blocks of 256 threads per SM, one full wave,
// a grid-stride copy-and-scale. One float per iteration vs four 16-byte loads in flight.
inline bool bandwidth_vs_occupancy(cudalab::LabRun& run, const occ::GpuSpec& g, std::size_t n) {
  constexpr int kBlock = 256;
  cudalab::require_device_memory(8.0 * static_cast<double>(n), "the bandwidth-vs-occupancy run");
  const std::vector<float> host_in = cudalab::random_vector<float>(n, 5, -1.0f, 1.0f);
  std::vector<float> expected(n), got(n);  // got: one host buffer for every check (512 MiB at the default n)
  for (std::size_t i = 0; i < n; ++i) expected[i] = 2.0f * host_in[i];
  cudalab::DeviceBuffer<float> in(host_in), out(n);
  occupancy_lab::allow_stream_smem(g.smem_per_block_optin);
  std::vector<cudalab::Rung> rungs;
  for (int k : {1, 2, 3, 4, 6, 8}) {
    const std::size_t dyn = smem_for_blocks_per_sm(g, k);
    occ::KernelSpec spec;
    spec.block_threads = kBlock;
    spec.regs_per_thread = 32;
    spec.dynamic_smem = dyn;
    spec.max_dynamic_smem = g.smem_per_block_optin;
    const auto r = occ::compute(g, spec);
    const int grid = run.facts().sm_count * r.resident_blocks;
    for (bool ilp : {false, true}) {
      cudalab::Rung rung;
      rung.name = ilp ? "ilp" : "scalar";
      rung.bytes = 8.0 * static_cast<double>(n);
      rung.poison = [&out] { out.fill_bytes(0xFF); };
      rung.launch = [&in, &out, n, grid, dyn, ilp] {
        occupancy_lab::launch_stream(ilp, in.data(), out.data(), n, grid, kBlock, dyn);
      };
      rung.check = [&expected, &got, &out] {
        out.download(got.data(), got.size());
        if (std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0) return true;
        std::size_t i = 0;
        while (got[i] == expected[i]) ++i;
        std::fprintf(stderr, "occupancy: out[%zu] = %g, expected %g\n", i, static_cast<double>(got[i]),
                     static_cast<double>(expected[i]));
        return false;
      };
      rung.cells = [r, dyn] {
        return std::vector<cudalab::Cell>{{"blocks_per_sm", "blocks/SM", r.resident_blocks},
                                          {"warps_per_sm", "warps/SM", r.active_warps},
                                          {"occupancy_percent", "occupancy %", Value(r.occupancy_percent, 1)},
                                          {"dynamic_smem_bytes", "smem/block", cudalab::bytes_cell(static_cast<double>(dyn))}};
      };
      rungs.push_back(std::move(rung));
    }
  }
  const bool by_occupancy =
      run.section(cudalab::Section::titled("bandwidth_vs_occupancy",
                   fmt::format("Bandwidth vs occupancy: out = 2 * in, {} floats, {}-thread blocks, one wave "
                               "(scalar: 1 float per iteration; ilp: 4 x float4 in flight per thread)", n, kBlock)),
                  rungs) == cudalab::kExitSuccess;
  const bool by_grid = grid_size(run, in, out, expected, got);  // the same buffers, the grid swept instead
  return by_occupancy && by_grid;
}

// The tail effect and its fix. One block per wait: W + 1 blocks take two waves. The persistent
// fix: a grid of exactly one wave walks the same work cut into kSplit items of 1 / kSplit the wait,
// so the last wave is 1 / kSplit of one (items of a real kernel: tiles, rows, chunks of the input).
// The blocks are two warps each and reserve an eighth of the SM's shared memory, so 8 fit on an SM
// as a kernel limited by its tiles would: with 32 or 64 warps per SM that each wait item after
// item (256- or 128-thread blocks), the H100 took 1.8 to 2.6 x the predicted time for the split
// waits, while two warps per block gave the prediction; a wait is the block's, whatever its width.
inline bool tail_effect(cudalab::Report& report, const cudalab::DeviceFacts& f, cudalab::Benchmarker& bench) {
  constexpr int kBlock = 64, kSplit = 8, kPerSm = 8;
  const std::size_t dyn = smem_for_blocks_per_sm(occ::spec_from_device(f), kPerSm);
  const int per_sm = occupancy_lab::spin_blocks_per_sm(kBlock, dyn);
  const long long full_wave = static_cast<long long>(f.sm_count) * per_sm;
  const long long cycles = static_cast<long long>(f.sm_clock_khz) * 50 / 1000;  // kHz x 50 us
  cudalab::DeviceBuffer<unsigned long long> sink(1);
  cudalab::DeviceBuffer<unsigned> visits(static_cast<std::size_t>((2 * full_wave + 1) * kSplit));
  report.heading(fmt::format("Tail effect: every block of {} threads waits {} SM cycles (50 us at the peak clock) and reserves {} of "
                             "shared memory; {} blocks/SM x {} SMs = {} per wave; persistent: one wave of blocks walks the same work as "
                             "{} items of 1/{} the wait",
                             kBlock, cycles, cudalab::human_bytes(static_cast<double>(dyn)), per_sm, f.sm_count, full_wave, kSplit, kSplit));
  cudalab::Table t({{"launch", "launch"},
                    {"work", "work (waits)"},
                    {"blocks", "blocks"},
                    {"waves", "waves (predicted)"},
                    {"median_ms", "median ms"},
                    {"vs_one_wave", "x one wave"}});
  double one_wave_ms = 0;
  bool ok = true;
  for (long long work : {full_wave, full_wave + 1, 2 * full_wave, 2 * full_wave + 1}) {
    const auto timing =
        bench.run([&] { occupancy_lab::launch_spin(cycles, static_cast<int>(work), kBlock, sink.data(), nullptr, dyn); });
    if (work == full_wave) one_wave_ms = timing.median_ms;
    t.add_row({"a block per wait", work, work, Value(static_cast<double>(occupancy_lab::waves(work, f.sm_count, per_sm)), 3),
               Value(timing.median_ms, 4), Value(timing.median_ms / one_wave_ms, 2)});
  }
  // The persistent grid is one wave of its own kernel's blocks (spin_items fits as many as spin).
  const long long persistent_grid = static_cast<long long>(f.sm_count) * occupancy_lab::spin_items_blocks_per_sm(kBlock, dyn);
  for (long long work : {full_wave + 1, 2 * full_wave + 1}) {
    const long long items = work * kSplit;
    int launches = 0;
    visits.fill_bytes(0);
    const auto timing = bench.run([&] {
      ++launches;
      occupancy_lab::launch_spin_items(cycles / kSplit, items, static_cast<int>(persistent_grid), kBlock, visits.data(),
                                       sink.data(), nullptr, dyn);
    });
    // every item waited for once per launch: the work was all done, by a grid of one wave
    const auto seen = visits.download();
    const bool all = std::all_of(seen.begin(), seen.begin() + items, [&](unsigned v) { return v == static_cast<unsigned>(launches); });
    if (!all) std::fprintf(stderr, "occupancy: the persistent grid skipped or repeated items\n");
    ok = ok && all;
    t.add_row({fmt::format("persistent, {} items per wait", kSplit), work, persistent_grid,
               Value(occupancy_lab::persistent_waves(work, persistent_grid, kSplit), 3),
               all ? Value(timing.median_ms, 4) : Value(), all ? Value(timing.median_ms / one_wave_ms, 2) : Value()});
  }
  report.table("tail_effect", t);
  return ok;
}

// Launch overhead: launches one-thread kernels one after the other, launched one by one and as
// one CUDA graph; the time per kernel is what each launch costs beyond its (nearly no) work.
inline bool launch_overhead(cudalab::Report& report, cudalab::Benchmarker& bench, int launches) {
  cudalab::DeviceBuffer<unsigned> counter(1);
  counter.fill_bytes(0);
  occupancy_lab::BumpGraph graph(counter.data(), launches);
  report.heading(fmt::format("Launch overhead: {} launches of a one-thread kernel (it adds 1 to a counter), "
                             "one by one and as one CUDA graph ({} nodes)", launches, graph.nodes()));
  cudalab::Table t({{"launch", "launch"}, {"kernels", "kernels"}, {"median_us", "median us"}, {"us_per_kernel", "us per kernel"},
                    {"counted", "every kernel ran"}});
  bool ok = true;
  double per_kernel[2] = {0, 0};
  for (int as_graph = 0; as_graph < 2; ++as_graph) {
    unsigned expected = 0;
    CUDA_CHECK(cudaMemset(counter.data(), 0, sizeof(unsigned)));
    const auto timing = bench.run(
        [&] {
          expected += launches;
          if (as_graph) {
            graph.launch();
          } else {
            occupancy_lab::launch_bumps(counter.data(), launches);
          }
        },
        nullptr, {}, {}, [&](int) { return counter.download()[0] == expected; });
    const bool counted = timing.first_wrong_rep < 0 && counter.download()[0] == expected;
    if (!counted) std::fprintf(stderr, "occupancy: %s ran fewer kernels than it launched\n", as_graph ? "the graph" : "the launches");
    ok = ok && counted;
    per_kernel[as_graph] = timing.median_ms * 1e3 / launches;
    t.add_row({as_graph ? "CUDA graph (one cudaGraphLaunch)" : "one by one (<<<1, 1>>> each)", launches,
               counted ? Value(timing.median_ms * 1e3, 1) : Value(), counted ? Value(per_kernel[as_graph], 2) : Value(),
               cudalab::correct_cell(counted)});
  }
  report.table("launch_overhead", t);
  if (ok) report.field("graph_speedup", "one by one / graph, per kernel", Value(per_kernel[0] / per_kernel[1], 2));
  return ok;
}

}  // namespace occupancy_lab
