#pragma once
// The mem_spaces lab's options and sections: the kernel attributes and occupancy of the demo,
// the constant-memory rounds, atomics on one address and under contention, constant reads and
// local memory, each checked and reported.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/check.hpp"
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
#include "mem_spaces.hpp"

namespace mem_spaces {

using cudalab::Value;
namespace occ = cudalab::occupancy;

struct Options {
  cudalab::CommonOptions common;
  int n = 4096;
  int block = 256;
  std::int64_t measure_n = std::int64_t{1} << 24;
};

inline void attribute_row(cudalab::Table& t, const std::string& name, const cudaFuncAttributes& a) {
  t.add_row({name, a.numRegs, static_cast<long long>(a.sharedSizeBytes), static_cast<long long>(a.localSizeBytes),
             static_cast<long long>(a.constSizeBytes), a.maxThreadsPerBlock});
}

// One round of the demo with the weights now in constant memory. Returns true when out matches
// the CPU model exactly, every g_scratch entry is within its rounding bound, and the block
// counter equals the number of blocks.
inline bool demo_round(cudalab::Report& report, const std::string& key, const Options& o, const std::vector<float>& in,
                const cudalab::DeviceBuffer<float>& d_in, cudalab::DeviceBuffer<float>& d_out) {
  const int blocks = (o.n + o.block - 1) / o.block;
  const std::array<float, 4> w = mem_spaces::read_weights();
  mem_spaces::reset_globals(blocks);
  d_out.fill_bytes(0xFF);
  mem_spaces::launch_demo(d_in.data(), d_out.data(), o.n, o.block);
  const std::vector<float> out = d_out.download();
  const std::vector<float> scratch = mem_spaces::read_scratch(blocks);
  const int count = mem_spaces::read_block_count();
  const auto model = mem_spaces::reference(in, o.block, w);

  const auto out_check = cudalab::check_exact(model.out, out);
  // g_scratch[b] is a float sum built by atomics in an unpredictable order: each of the
  // block's m additions rounds once, so |error| <= m * 2^-24 * sum |terms|.
  std::size_t scratch_bad = 0;
  double sum_out = 0, sum_scratch = 0;
  for (int b = 0; b < blocks; ++b) {
    const double bound = o.block * std::ldexp(1.0, -24) * model.scratch_abs[b] + 1e-30;
    if (std::fabs(static_cast<double>(scratch[b]) - model.scratch[b]) > bound) ++scratch_bad;
    sum_scratch += scratch[b];
  }
  for (float x : out) sum_out += x;

  report.field(key + "_weights", "c_weight (read back from the symbol)",
               fmt::format("{{{}, {}, {}, {}}}", w[0], w[1], w[2], w[3]));
  report.field(key + "_out", "out vs CPU model (exact)", Value::shown(Value(out_check.ok()), out_check.summary()));
  report.field(key + "_scratch", "g_scratch vs CPU model (rounding bound)",
               Value::shown(Value(scratch_bad == 0), scratch_bad == 0 ? fmt::format("all {} blocks within bound", blocks)
                                                                      : fmt::format("{} of {} blocks outside the bound",
                                                                                    scratch_bad, blocks)));
  report.field(key + "_block_count", "g_block_count", Value::shown(Value(count), fmt::format("{} (expected {})", count, blocks)));
  report.field(key + "_sum_out", "sum(out)", Value(sum_out, 4));
  report.field(key + "_sum_scratch", "sum(g_scratch)", Value(sum_scratch, 4));
  if (!out_check.ok()) std::fprintf(stderr, "mem_spaces: %s: out differs: %s\n", key.c_str(), out_check.summary().c_str());
  if (scratch_bad) std::fprintf(stderr, "mem_spaces: %s: %zu g_scratch entries differ\n", key.c_str(), scratch_bad);
  if (count != blocks) std::fprintf(stderr, "mem_spaces: %s: g_block_count %d, expected %d\n", key.c_str(), count, blocks);
  return out_check.ok() && scratch_bad == 0 && count == blocks;
}

// ---- the sections of the lab, in the order they print ----------------------------------

inline void attributes_section(cudalab::Report& report) {
  report.heading("cudaFuncGetAttributes");
  cudalab::Table attrs({{"kernel", "kernel"}, {"regs", "regs/thread"}, {"static_smem", "static smem B"},
                        {"local_bytes", "local B"}, {"const_bytes", "const B"}, {"max_threads", "max threads/block"}});
  attribute_row(attrs, "mem_space_demo", mem_spaces::demo_attributes());
  for (auto v : mem_spaces::atomic_variants()) attribute_row(attrs, mem_spaces::atomic_name(v), mem_spaces::atomic_attributes(v));
  for (auto v : {mem_spaces::ArrayVariant::kLocalMemory, mem_spaces::ArrayVariant::kRegisters}) {
    attribute_row(attrs, mem_spaces::array_name(v), mem_spaces::array_attributes(v));
  }
  report.table("attributes", attrs);
}

// Occupancy of the demo kernel on this device (the notes hard-code an A100). Returns whether the
// calculator agrees with the CUDA runtime.
inline bool occupancy_section(cudalab::Report& report, const cudalab::DeviceFacts& facts, int block) {
  const auto demo = mem_spaces::demo_attributes();
  const occ::GpuSpec g = occ::spec_from_device(facts);
  const std::size_t dyn = static_cast<std::size_t>(block) * sizeof(float);
  const occ::Result r = occ::compute(g, occ::spec_from_attributes(demo, block, dyn));
  const int api = mem_spaces::demo_api_blocks_per_sm(block);
  report.heading(fmt::format("Occupancy of mem_space_demo on this {} ({} threads, {} B static + {} B dynamic shared)",
                             g.arch, block, demo.sharedSizeBytes, dyn));
  report.field("blocks_by_threads", "blocks by threads", r.by_warps);
  report.field("blocks_by_registers", "blocks by registers", r.by_registers == occ::kUnlimited ? Value() : Value(r.by_registers));
  report.field("blocks_by_smem", "blocks by shared memory", r.by_shared_memory);
  report.field("blocks_by_limit", "blocks by the per-SM cap", r.by_blocks);
  report.field("resident_blocks", "resident blocks (calculator)", r.resident_blocks);
  report.field("api_blocks", "cudaOccupancyMaxActiveBlocksPerMultiprocessor", api,
               api == r.resident_blocks ? "(agrees)" : "(DIFFERS)");
  report.field("occupancy_percent", "occupancy", Value(r.occupancy_percent, 1), fmt::format("% (limited by {})", r.limiter_names()));
  return api == r.resident_blocks;
}

// The demo twice: __constant__ weights as compiled, then rewritten with cudaMemcpyToSymbol.
inline bool constant_rounds(cudalab::Report& report, const Options& o) {
  const std::vector<float> in = cudalab::random_vector<float>(static_cast<std::size_t>(o.n), o.common.seed, -4.f, 4.f);
  cudalab::DeviceBuffer<float> d_in(in), d_out(static_cast<std::size_t>(o.n));
  report.heading("Round 0: __constant__ weights as initialised at compile time");
  // A fresh process: c_weight must still hold its declaration's values.
  bool ok = mem_spaces::read_weights() == mem_spaces::kInitialWeights;
  if (!ok) std::fprintf(stderr, "mem_spaces: c_weight does not hold its compile-time initialiser\n");
  ok = demo_round(report, "round0", o, in, d_in, d_out) && ok;
  mem_spaces::write_weights({1.0f, 2.0f, 3.0f, 4.0f});
  report.heading("Round 1: weights rewritten with cudaMemcpyToSymbol");
  return demo_round(report, "round1", o, in, d_in, d_out) && ok;
}

// Atomics on one address: per thread, per warp, per block, each a rung of the driver (checked
// before and after its timing).
inline bool atomics_section(cudalab::LabRun& run, const Options& o) {
  const auto mn = static_cast<std::size_t>(o.measure_n);
  const std::vector<int> values = cudalab::random_vector<int>(mn, o.common.seed + 1, -1000, 1000);
  long long expected_total = 0;
  for (int v : values) expected_total += v;
  cudalab::DeviceBuffer<int> d_values(values);
  cudalab::DeviceBuffer<unsigned long long> d_total(1);
  std::vector<cudalab::Rung> rungs;
  for (auto v : mem_spaces::atomic_variants()) {
    cudalab::Rung r;
    r.name = mem_spaces::atomic_name(v);
    r.poison = [&d_total] { d_total.fill_bytes(0); };  // the kernels add into the counter
    r.launch = [&, v] { mem_spaces::launch_sum(v, d_values.data(), mn, d_total.data(), o.block); };
    r.check = [&, v] {
      const auto got = static_cast<long long>(d_total.download()[0]);
      if (got != expected_total) {
        std::fprintf(stderr, "mem_spaces: %s: sum %lld, expected %lld\n", mem_spaces::atomic_name(v).c_str(), got, expected_total);
      }
      return got == expected_total;
    };
    r.cells = [v, mn, &o] {
      return std::vector<cudalab::Cell>{{"atomics", "atomics issued", mem_spaces::atomics_issued(v, mn, o.block)}};
    };
    rungs.push_back(std::move(r));
  }
  return run.section(cudalab::Section::titled("atomics",
                      fmt::format("Summing {} ints into one counter (median of {}; speedup: against per-thread)", mn,
                                  o.common.repeat),
                      cudalab::Roofs::kNone),
                     rungs) == cudalab::kExitSuccess;
}

// atomicAdd under contention: the same sum spread over 1 .. 32768 counters.
inline bool contention_section(cudalab::LabRun& run, const Options& o) {
  cudalab::Report& report = run.report();
  const auto mn = static_cast<std::size_t>(o.measure_n);
  const std::vector<int> values = cudalab::random_vector<int>(mn, o.common.seed + 3, -1000, 1000);
  cudalab::DeviceBuffer<int> d_values(values);
  constexpr int kMostAddresses = 32768;
  cudalab::DeviceBuffer<unsigned long long> d_counters(kMostAddresses);
  std::vector<cudalab::Rung> rungs;
  for (int addresses : {1, 32, 1024, kMostAddresses}) {
    cudalab::Rung r;
    r.name = fmt::format("addresses_{}", addresses);
    r.poison = [&d_counters] { d_counters.fill_bytes(0); };  // the kernel adds into the counters
    r.launch = [&, addresses] { mem_spaces::launch_spread_sum(d_values.data(), mn, d_counters.data(), addresses, o.block); };
    r.check = [&d_counters, addresses, want = mem_spaces::spread_sum_reference(values, addresses), name = r.name] {
      const std::vector<unsigned long long> got = d_counters.download();
      for (int a = 0; a < addresses; ++a) {
        if (static_cast<long long>(got[static_cast<std::size_t>(a)]) != want[static_cast<std::size_t>(a)]) {
          std::fprintf(stderr, "mem_spaces: %s: counter %d is %lld, expected %lld\n", name.c_str(), a,
                       static_cast<long long>(got[static_cast<std::size_t>(a)]), want[static_cast<std::size_t>(a)]);
          return false;
        }
      }
      return true;
    };
    rungs.push_back(std::move(r));
  }
  const cudalab::LadderResult ladder = cudalab::run_ladder(run.bench(), rungs);
  cudalab::Table t({{"addresses", "addresses"}, {"median_ms", "median ms"}, {"g_atomics_per_s", "G atomics/s"},
                    {"x_one", "x 1 address"}, {"correct", "ok"}});
  const double one_ms = ladder.rungs.front().result.correct ? ladder.rungs.front().result.timing.median_ms : 0.0;
  for (const auto& rr : ladder.rungs) {
    const bool ok = rr.result.correct;
    const double ms = rr.result.timing.median_ms;
    t.add_row({std::stoll(rr.result.name.substr(rr.result.name.find('_') + 1)), ok ? Value(ms, 4) : Value(),
               ok && ms > 0 ? Value(static_cast<double>(mn) / (ms * 1e6), 1) : Value(),
               ok && ms > 0 && one_ms > 0 ? Value(one_ms / ms, 1) : Value(), cudalab::correct_cell(ok)});
  }
  report.heading(fmt::format("atomicAdd of {} ints into 1 .. {} counters (element i into counter i % addresses; median of {})",
                             mn, kMostAddresses, o.common.repeat));
  report.table("contention", t);
  return ladder.all_ok;
}

// A rung's check of the table reads: a thread's sum depends only on its lane (i % 32: blocks
// are whole warps), and want holds the 32 lanes' sums.
inline std::function<bool()> lane_sums_check(const cudalab::DeviceBuffer<unsigned>& d_out, std::size_t threads,
                                      std::vector<unsigned> want, std::string name) {
  return [&d_out, threads, want = std::move(want), name = std::move(name)] {
    const std::vector<unsigned> got = d_out.download();
    for (std::size_t i = 0; i < threads; ++i) {
      if (got[i] != want[i % 32]) {
        std::fprintf(stderr, "mem_spaces: %s: thread %zu summed %u, expected %u\n", name.c_str(), i, got[i], want[i % 32]);
        return false;
      }
    }
    return true;
  };
}

// Constant memory's broadcast: a warp's lanes reading 1 .. 32 different words of a
// __constant__ table, and the same reads through __ldg.
inline bool constant_reads_section(cudalab::LabRun& run, const Options& o) {
  cudalab::Report& report = run.report();
  const auto threads = static_cast<std::size_t>(o.measure_n);
  const std::vector<unsigned> words = cudalab::random_vector<unsigned>(mem_spaces::kTableWords, o.common.seed + 4, 0u, 0xFFFFFFFFu);
  mem_spaces::write_table(words);
  cudalab::DeviceBuffer<unsigned> d_out(threads);
  const std::vector<int> distincts{1, 2, 4, 8, 16, 32};
  std::vector<cudalab::Rung> rungs;
  for (auto how : {mem_spaces::TableRead::kConstant, mem_spaces::TableRead::kLdg}) {
    for (int distinct : distincts) {
      cudalab::Rung r;
      r.name = fmt::format("{}_{}", mem_spaces::table_read_name(how), distinct);
      r.poison = [&d_out] { d_out.fill_bytes(0xAB); };
      r.launch = [&, how, distinct] { mem_spaces::launch_table_reads(how, distinct, d_out.data(), threads, o.block); };
      std::vector<unsigned> want(32);
      for (unsigned lane = 0; lane < 32; ++lane) want[lane] = mem_spaces::table_read_reference(words, distinct, lane);
      r.check = lane_sums_check(d_out, threads, want, r.name);
      rungs.push_back(std::move(r));
    }
  }
  {  // one word per warp read again, every index a compile-time constant (the rounds unrolled)
    cudalab::Rung r;
    r.name = "constant_known_1";
    r.poison = [&d_out] { d_out.fill_bytes(0xAB); };
    r.launch = [&] { mem_spaces::launch_table_reads(mem_spaces::TableRead::kConstantKnown, 1, d_out.data(), threads, o.block); };
    r.check = lane_sums_check(d_out, threads, std::vector<unsigned>(32, mem_spaces::table_read_known_reference(words)),
                              r.name);
    rungs.push_back(std::move(r));
  }
  const cudalab::LadderResult ladder = cudalab::run_ladder(run.bench(), rungs);
  const std::size_t k = distincts.size();
  cudalab::Table t({{"distinct", "words per warp read"}, {"constant_ms", "__constant__ ms"}, {"constant_x", "x 1 word"},
                    {"ldg_ms", "__ldg ms"}, {"ldg_x", "x 1 word"}, {"correct", "ok"}});
  const auto ms_of = [&](std::size_t i) { return ladder.rungs[i].result.correct ? ladder.rungs[i].result.timing.median_ms : 0.0; };
  for (std::size_t j = 0; j < k; ++j) {
    const double c = ms_of(j), g = ms_of(k + j), c1 = ms_of(0), g1 = ms_of(k);
    const bool ok = ladder.rungs[j].result.correct && ladder.rungs[k + j].result.correct;
    t.add_row({distincts[j], c > 0 ? Value(c, 4) : Value(), c > 0 && c1 > 0 ? Value(c / c1, 1) : Value(),
               g > 0 ? Value(g, 4) : Value(), g > 0 && g1 > 0 ? Value(g / g1, 1) : Value(), cudalab::correct_cell(ok)});
  }
  report.heading(fmt::format("A warp reading 1 .. 32 different words of a {}-word table, {} rounds, {} threads "
                             "(median of {})", mem_spaces::kTableWords, mem_spaces::kTableRounds, threads, o.common.repeat));
  report.table("constant_reads", t);
  const cudalab::VariantResult& uniform = ladder.rungs.back().result;
  if (uniform.correct && ms_of(0) > 0) {
    report.field("constant_known_ms", "1 word, its index known at compile time: __constant__ ms",
                 Value(uniform.timing.median_ms, 4), "ms");
    report.field("constant_known_over_ldg", "that / the __ldg read of 1 word", Value(uniform.timing.median_ms / ms_of(k), 2));
    report.field("constant_known_over_lane_indexed", "that / the same word indexed per lane (the 1-word row)",
                 Value(uniform.timing.median_ms / ms_of(0), 2));
  } else {
    report.note("  1 word, index known at compile time: NO (wrong sums)");
  }
  return ladder.all_ok;
}

// A per-thread array indexed at run time (local memory) vs at compile time (registers).
inline bool local_memory_section(cudalab::LabRun& run, const Options& o) {
  const auto mn = static_cast<std::size_t>(o.measure_n);
  const std::vector<unsigned> uin = cudalab::random_vector<unsigned>(mn, o.common.seed + 2, 0u, 0xFFFFFFu);
  cudalab::DeviceBuffer<unsigned> d_uin(uin), d_uout(mn);
  std::vector<cudalab::Rung> rungs;
  for (auto v : {mem_spaces::ArrayVariant::kLocalMemory, mem_spaces::ArrayVariant::kRegisters}) {
    cudalab::Rung r;
    r.name = mem_spaces::array_name(v);
    r.poison = [&d_uout] { d_uout.fill_bytes(0xAB); };
    r.launch = [&, v] { mem_spaces::launch_array(v, d_uin.data(), d_uout.data(), mn, o.block); };
    r.check = [&, v] {
      const auto out = d_uout.download();
      std::size_t bad = 0;
      for (std::size_t i = 0; i < mn; ++i) bad += out[i] != mem_spaces::array_reference(uin, i);
      if (bad) std::fprintf(stderr, "mem_spaces: %s: %zu of %zu outputs differ\n", mem_spaces::array_name(v).c_str(), bad, mn);
      return bad == 0;
    };
    r.cells = [v] {
      const cudaFuncAttributes a = mem_spaces::array_attributes(v);
      return std::vector<cudalab::Cell>{{"local_bytes", "local B/thread", static_cast<long long>(a.localSizeBytes)},
                                        {"regs", "regs/thread", a.numRegs}};
    };
    rungs.push_back(std::move(r));
  }
  return run.section(cudalab::Section::titled("local_memory",
                      fmt::format("A 32-entry per-thread array, {} threads: run-time index vs compile-time index "
                                  "(speedup: against local memory)", mn),
                      cudalab::Roofs::kNone),
                     rungs) == cudalab::kExitSuccess;
}

// Texture memory's own hardware: the bilinear filter. The same samples by one tex2D fetch from a
// cudaArray and by four __ldg loads and three FMAs; each held to the CPU's (the texture to its
// 8-bit weights).
inline bool texture_section(cudalab::LabRun& run, const Options& o) {
  const int width = static_cast<int>(std::min<std::int64_t>(4096, o.measure_n));
  const int height = static_cast<int>(std::max<std::int64_t>(1, o.measure_n / width));
  const float fx = 0.37f, fy = 0.61f;
  const std::size_t n = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  const std::vector<float> image = cudalab::random_vector<float>(n, o.common.seed + 5, -1.0f, 1.0f);
  std::vector<double> want(n);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      want[static_cast<std::size_t>(y) * width + x] = mem_spaces::bilinear_reference(image, width, height, x, y, fx, fy);
    }
  }
  const mem_spaces::BilinearTexture tex(image, width, height);
  cudalab::DeviceBuffer<float> d_image(image), d_out(n);
  std::vector<float> got(n);
  std::vector<cudalab::Rung> rungs;
  for (auto how : {mem_spaces::Bilinear::kByHand, mem_spaces::Bilinear::kTexture}) {
    const bool texture = how == mem_spaces::Bilinear::kTexture;
    cudalab::Rung r;
    r.name = texture ? "tex2D_linear" : "by_hand_ldg";
    r.bytes = 2.0 * sizeof(float) * static_cast<double>(n);  // every texel read once, every sample written once
    r.poison = [&d_out] { d_out.fill_bytes(0xAB); };
    r.launch = [&, how] { mem_spaces::launch_bilinear(how, tex, d_image.data(), d_out.data(), width, height, fx, fy); };
    r.check = [&, texture, name = r.name] {
      d_out.download(got.data(), n);
      std::size_t bad = 0, first = n;
      for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
          const std::size_t i = static_cast<std::size_t>(y) * width + x;
          const bool off = !(std::fabs(got[i] - want[i]) <= mem_spaces::bilinear_tolerance(image, width, height, x, y, texture));
          if (off && first == n) first = i;
          bad += off;
        }
      }
      if (bad) {
        std::fprintf(stderr, "mem_spaces: %s: %zu of %zu samples off (first at %zu: %g, the CPU says %g)\n", name.c_str(), bad, n,
                     first, static_cast<double>(got[first]), want[first]);
      }
      return bad == 0;
    };
    rungs.push_back(std::move(r));
  }
  return run.section(cudalab::Section::titled("texture",
                      fmt::format("Bilinear samples of a {} x {} float image at (x + {}, y + {}), edges clamped: "
                                  "four __ldg loads and FMAs by hand vs one tex2D fetch filtered by the texture unit "
                                  "(speedup: against by hand)", width, height, fx, fy)),
                     rungs) == cudalab::kExitSuccess;
}

}  // namespace mem_spaces
