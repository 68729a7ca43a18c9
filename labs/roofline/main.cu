// roofline: the notes' performance model, measured on the GPU in hand.
//   ./labs/roofline                  the roofs, the intensity dial in FP32 and FP64, instruction
//                                    throughput, and the notes' RMSNorm (BF16, 4096 x 8192)
//   ./labs/roofline 2^24 --max-k 256 a smaller, faster run
//   ./labs/roofline --precision fp64 the dial in double only
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/ladder.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "reference.hpp"
#include "roofline.hpp"

namespace {

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 26;
  int rows = 4096, cols = 8192, max_k = 2048;
  std::string precision = "both";  // the dial's type: fp32, fp64 or both
};

struct Roofs {
  double fp32 = 0, fp64 = 0, bandwidth = 0;  // FLOP/s, FLOP/s, bytes/s
};

// Every element was written (no NaN left of the poison) and a sample of them equals the CPU's f_k.
template <typename T>
bool dial_correct(const std::vector<T>& in, const std::vector<T>& out, int k) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::isnan(out[i])) {
      std::fprintf(stderr, "roofline: k = %d: element %zu was never written\n", k, i);
      return false;
    }
  }
  for (std::size_t i = 0; i < out.size(); i += (i < 1024 ? 1 : 4099)) {
    if (out[i] != roofline::dial_reference(in[i], k)) {
      std::fprintf(stderr, "roofline: k = %d: element %zu is %.9g, the CPU says %.9g\n", k, i, static_cast<double>(out[i]),
                   static_cast<double>(roofline::dial_reference(in[i], k)));
      return false;
    }
  }
  return true;
}

// The dial as a ladder of rungs, one per k: each checked against the CPU before and after its
// timing, with the FLOPs and bytes it does, so the one renderer gives GB/s, GFLOP/s and the
// percentages; the roof at its intensity is its own cell.
template <typename T>
bool dial(cudalab::Report& report, const Options& o, cudalab::Benchmarker& bench, const cudalab::Yardsticks& y,
          double roof_flops, double bandwidth, const char* key, const char* title) {
  const std::size_t n = static_cast<std::size_t>(o.n);
  std::vector<T> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<T>(i % 1000) / 1000;
  cudalab::DeviceBuffer<T> d_in(in), d_out(n);
  std::vector<cudalab::Rung> rungs;
  for (int k : roofline::dial_ks()) {
    if (k > o.max_k) break;
    cudalab::Rung r;
    r.name = fmt::format("k{}", k);
    r.bytes = 2.0 * sizeof(T) * static_cast<double>(n);
    r.flops = 2.0 * k * static_cast<double>(n);
    r.poison = [&d_out] { d_out.fill_bytes(0xFF); };
    r.launch = [&d_in, &d_out, n, k] { roofline::launch_dial(d_in.data(), d_out.data(), n, k); };
    r.check = [&in, &d_out, k] { return dial_correct(in, d_out.download(), k); };
    const double ai = roofline::dial_intensity<T>(k);
    r.cells = [k, ai, roof_flops, bandwidth] {
      return std::vector<cudalab::Cell>{{"k", "FMAs/elem", k},
                                        {"ai", "FLOP/byte", Value(ai, 2)},
                                        {"roof_gflops", "roof GFLOP/s", Value(roofline::roof(ai, roof_flops, bandwidth) / 1e9, 0)}};
    };
    rungs.push_back(std::move(r));
  }
  cudalab::LadderResult ladder = cudalab::run_ladder(bench, rungs);
  std::vector<double> ais, flops;
  for (auto& r : ladder.rungs) {
    const double ai = std::get<double>(r.cells[1].value.raw());
    const double f = r.result.gflops() * 1e9;
    if (r.result.correct) {
      ais.push_back(ai);
      flops.push_back(f);
    }
    r.cells.push_back({"percent_of_roof", "% roof",
                       r.result.correct ? Value(100.0 * f / roofline::roof(ai, roof_flops, bandwidth), 1) : Value()});
  }
  cudalab::MeasurementTable t(y, {false});
  t.add(ladder);
  report.heading(title);
  report.table(key, t.table());
  const double bend = roofline::bend(ais, flops, roof_flops, 0.5);
  report.field(std::string(key) + "_bend", "the curve reaches half the compute roof at",
               bend < 0 ? Value::shown(Value(), "not in this range") : Value(bend, 2), bend < 0 ? "" : "FLOP/byte");
  return ladder.all_ok;
}

bool instructions(cudalab::Report& report, std::size_t n) {
  std::vector<float> x(n);
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> uniform(-10.0f, 10.0f);
  for (float& v : x) v = uniform(gen);
  cudalab::Table t({{"operation", "operation"}, {"gops", "G per second"}, {"max_ulp", "max error (ulp)"},
                    {"mean_ulp", "mean error (ulp)"}});
  bool ok = true;
  const std::pair<roofline::ExpKind, const char*> exps[] = {{roofline::ExpKind::kExpf, "expf"},
                                                            {roofline::ExpKind::kIntrinsic, "__expf"},
                                                            {roofline::ExpKind::kFastMath, "expf, --use_fast_math"}};
  for (const auto& [kind, name] : exps) {
    std::vector<float> one;
    roofline::exp_throughput(kind, x, 1, &one);
    std::int64_t worst = 0;
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t d = roofline::ulp_distance(one[i], roofline::exp_reference(x[i]));
      worst = std::max(worst, d);
      total += static_cast<double>(d);
    }
    if (kind == roofline::ExpKind::kExpf && worst > 2) {  // CUDA documents expf within 2 ulp
      std::fprintf(stderr, "roofline: expf is %lld ulp off\n", static_cast<long long>(worst));
      ok = false;
    }
    const double rate = roofline::exp_throughput(kind, x, 64, nullptr);
    t.add_row({name, Value(rate / 1e9, 1), static_cast<long long>(worst), Value(total / static_cast<double>(n), 3)});
  }
  std::vector<std::uint32_t> u(n);
  for (std::size_t i = 0; i < n; ++i) u[i] = static_cast<std::uint32_t>(gen());
  const struct {
    roofline::DivKind kind;
    std::uint32_t d;
    const char* name;
  } divs[] = {{roofline::DivKind::kRuntimeDivisor, 7, "x / 7 + x % 7, 7 a kernel argument"},
              {roofline::DivKind::kRuntimeDivisor, 8, "x / 8 + x % 8, 8 a kernel argument"},
              {roofline::DivKind::kShiftMask, 8, "(x >> 3) + (x & 7)"}};
  for (const auto& dv : divs) {
    std::vector<std::uint32_t> got;
    const double rate = roofline::div_throughput(dv.kind, u, dv.d, 64, &got);
    for (std::size_t i = 0; i < n; i += 97) {
      if (got[i] != roofline::div_reference(u[i], dv.d, 64)) {
        std::fprintf(stderr, "roofline: %s is wrong at %zu\n", dv.name, i);
        ok = false;
        break;
      }
    }
    t.add_row({dv.name, Value(rate / 1e9, 1), "exact", "-"});
  }
  std::vector<float> a(n), b(n), c(n);
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = uniform(gen) / 10;
    b[i] = uniform(gen);
    c[i] = uniform(gen);
  }
  std::vector<float> fused, split;
  roofline::fma_vs_mul_add(true, a, b, c, 1, &fused);
  roofline::fma_vs_mul_add(false, a, b, c, 1, &split);
  std::size_t differ = 0;
  std::int64_t worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (fused[i] != roofline::mul_add_reference(true, a[i], b[i], c[i]) ||
        split[i] != roofline::mul_add_reference(false, a[i], b[i], c[i])) {
      std::fprintf(stderr, "roofline: a multiply-add differs from the CPU's at %zu\n", i);
      ok = false;
      break;
    }
    differ += fused[i] != split[i];
    worst = std::max(worst, roofline::ulp_distance(fused[i], split[i]));
  }
  t.add_row({"fmaf(a, v, c), dependent", Value(roofline::fma_vs_mul_add(true, a, b, c, 2048, nullptr) / 1e9, 1), "-", "-"});
  t.add_row({"__fadd_rn(__fmul_rn(a, v), c), dependent", Value(roofline::fma_vs_mul_add(false, a, b, c, 2048, nullptr) / 1e9, 1),
             "-", "-"});
  report.heading(fmt::format("Instruction throughput ({} elements; exp over [-10, 10] against exp in double)", n));
  report.table("instructions", t);
  report.field("fma_rounding_differs", "a * b + c: fused and unfused differ in", static_cast<long long>(differ),
               fmt::format("of {} results, by at most {} ulp", n, worst));
  return ok;
}

bool rmsnorm(cudalab::Report& report, const Options& o, cudalab::Benchmarker& bench, double copy_gbps, double peak_gbps) {
  const int rows = o.rows, cols = o.cols;
  const std::size_t n = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  std::vector<std::uint16_t> x(n), w(static_cast<std::size_t>(cols));
  std::mt19937 gen(11);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (auto& v : x) v = roofline::float_to_bf16(normal(gen));
  for (auto& v : w) v = roofline::float_to_bf16(1.0f + 0.1f * normal(gen));
  const auto expected = roofline::rmsnorm_reference(x, w, rows, cols, 1e-6f);
  cudalab::DeviceBuffer<std::uint16_t> d_x(x), d_w(w), d_y(n);
  d_y.fill_bytes(0xFF);
  roofline::launch_rmsnorm(d_x.data(), d_w.data(), d_y.data(), rows, cols, 1e-6f);
  const auto got = d_y.download();
  std::size_t off_by_one = 0;
  bool ok = true;
  for (std::size_t i = 0; i < n; ++i) {
    const int d = std::abs(static_cast<int>(got[i]) - static_cast<int>(expected[i]));
    if (d > 1) {
      std::fprintf(stderr, "roofline: RMSNorm element %zu is 0x%04x, the CPU says 0x%04x\n", i, got[i], expected[i]);
      ok = false;
      break;
    }
    off_by_one += d == 1;
  }
  const cudalab::Timing timing = bench.run([&] { roofline::launch_rmsnorm(d_x.data(), d_w.data(), d_y.data(), rows, cols, 1e-6f); });
  const double bytes = roofline::rmsnorm_bytes(rows, cols);
  const double g = cudalab::gbps(bytes, timing.median_ms);
  report.heading(fmt::format("The notes' RMSNorm: BF16, {} x {}, one block per row, fused", rows, cols));
  report.field("rmsnorm_bytes", "bytes (x in, y out, w once)", cudalab::bytes_cell(bytes));
  // square, add, scale, weight: 4 FLOP per element
  report.field("rmsnorm_flops", "FLOPs (4 per element)", Value(4.0 * static_cast<double>(rows) * static_cast<double>(cols), 0));
  report.field("rmsnorm_bound_peak_us", "bound at the theoretical bandwidth", Value(bytes / (peak_gbps * 1e9) * 1e6, 1), "us");
  report.field("rmsnorm_bound_copy_us", "bound at the measured copy ceiling", Value(bytes / (copy_gbps * 1e9) * 1e6, 1), "us");
  // a wrong result shows no speed
  report.field("rmsnorm_us", "measured (median)", ok ? Value(timing.median_ms * 1e3, 1) : Value(), "us");
  report.field("rmsnorm_gbps", "throughput", ok ? Value(g, 0) : Value(), "GB/s");
  report.field("rmsnorm_over_copy", "throughput / copy ceiling", ok ? Value(g / copy_gbps, 3) : Value());
  report.field("rmsnorm_correct", "against the CPU (double, rounded to BF16)",
               Value::shown(ok, ok ? fmt::format("all {} within 1 BF16 ulp ({} off by one)", n, off_by_one) : "WRONG"));
  report.field("rmsnorm_unfused_bytes", "unfused (row scales first, then a second pass over x)",
               cudalab::bytes_cell(roofline::rmsnorm_unfused_bytes(rows, cols)),
               fmt::format("({:.2f}x the fused traffic)", roofline::rmsnorm_unfused_bytes(rows, cols) / bytes));
  return ok;
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("roofline", "The roofline model measured: an intensity dial, FP32 vs FP64, instruction throughput, RMSNorm.");
  cli.positional("N", o.n, "elements of the dial (e.g. 2^26)", 1024, std::int64_t{1} << 28);
  cli.option("--max-k", o.max_k, "largest FMA count of the dial (a power of two)", 1, 2048);
  cli.option("--precision", o.precision, "the dial's type", {"both", "fp32", "fp64"});
  cli.option("--rows", o.rows, "RMSNorm rows", 1, 1 << 20);
  cli.option("--cols", o.cols, "RMSNorm columns (a multiple of 256, at most 8192)", 256, 8192);
  cli.add_common(o.common, cudalab::CommonSet::kNoSeed);  // fixed inputs: no --seed
  cli.footer("Examples:\n  roofline\n  roofline 2^24 --max-k 256\n  roofline --json");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.cols % 256 != 0) throw cudalab::UsageError(fmt::format("--cols {} is not a multiple of 256", o.cols));

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  cudalab::require_device_memory(2.0 * static_cast<double>(o.n) * sizeof(double), fmt::format("N = {}", o.n));
  cudalab::Report report("roofline", o.common.json);
  report.field("device", "device", facts.name);
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const cudalab::CopyCeiling ceiling = cudalab::measure_copy_ceiling(bench);
  Roofs roofs;
  roofs.bandwidth = ceiling.gbps * 1e9;
  const roofline::FmaPeak fp32 = roofline::fma_peak<float>(256, 8192);
  const roofline::FmaPeak fp64 = roofline::fma_peak<double>(256, 4096);
  roofs.fp32 = fp32.flops;
  roofs.fp64 = fp64.flops;
  const double lanes = facts.sm_count * cudalab::arch_lanes(facts.cc_major, facts.cc_minor).fp32 * 2.0;  // FP32 FLOP per clock
  report.heading("The roofs, measured in this run");
  report.field("copy_ceiling_gbps", "memory roof: copy ceiling", Value(ceiling.gbps, 0), "GB/s");
  report.field("peak_fp32_gflops", "FP32 roof: 8 FMA chains per thread", Value(roofs.fp32 / 1e9, 0), "GFLOP/s");
  report.field("theoretical_fp32_gflops", "FP32, theoretical (SMs x FP32 lanes x 2 x max clock)",
               Value(lanes * facts.sm_clock_khz * 1e3 / 1e9, 0), "GFLOP/s");
  report.field("fma_clock_ghz", "SM clock while the FMA kernel ran (clock64 / time)", Value(fp32.clock_hz / 1e9, 3), "GHz");
  report.field("theoretical_fp32_at_clock_gflops", "FP32, theoretical at that clock", Value(lanes * fp32.clock_hz / 1e9, 0),
               "GFLOP/s");
  report.field("peak_fp64_gflops", "FP64 roof", Value(roofs.fp64 / 1e9, 0), "GFLOP/s");
  report.field("fp64_over_fp32", "FP64 / FP32", Value(roofs.fp64 / roofs.fp32, 3));
  report.field("ridge_fp32", "ridge point FP32", Value(roofline::ridge(roofs.fp32, roofs.bandwidth), 1), "FLOP/byte");
  report.field("ridge_fp64", "ridge point FP64", Value(roofline::ridge(roofs.fp64, roofs.bandwidth), 1), "FLOP/byte");
  bool ok = true;
  // The BF16 Tensor Core roof: mma.sync (a warp's instruction, sm_80 on) and, on Hopper, wgmma
  // (a warpgroup's, sm_90a); the roof is the faster, and its ridge point follows from it.
  const roofline::TensorPeak mma = roofline::tensor_peak_bf16(256, 4096);
  if (mma.available) {
    const roofline::TensorPeak wg = roofline::tensor_peak_bf16_wgmma(4096);
    const double per_clock = facts.sm_count * static_cast<double>(cudalab::arch_lanes(facts.cc_major, facts.cc_minor).bf16_tensor_flops_per_clock);
    report.field("mma_sync_bf16_gflops", "BF16 Tensor Core, mma.sync (8 tiles per warp)", Value(mma.flops / 1e9, 0), "GFLOP/s");
    if (wg.available) {
      report.field("wgmma_bf16_gflops", "BF16 Tensor Core, wgmma m64n256k16 (2 warpgroups per SM)", Value(wg.flops / 1e9, 0),
                   "GFLOP/s");
    } else {
      report.note("  BF16 Tensor Core, wgmma: not available for this GPU (sm_90a machine code, compute capability 9.0)");
    }
    const roofline::TensorPeak& tc = wg.available && wg.flops > mma.flops ? wg : mma;
    report.field("peak_bf16_tensor_gflops", "BF16 Tensor Core roof (the faster of the two)", Value(tc.flops / 1e9, 0),
                 "GFLOP/s");
    report.field("tensor_clock_ghz", "SM clock while it ran (clock64 / time)", Value(tc.clock_hz / 1e9, 3), "GHz");
    report.field("theoretical_bf16_tensor_at_clock_gflops", "dense BF16, theoretical at that clock (SMs x FLOP/clock)",
                 per_clock > 0 ? Value(per_clock * tc.clock_hz / 1e9, 0) : Value(), per_clock > 0 ? "GFLOP/s" : "(no figure for this GPU)");
    report.field("tensor_over_theoretical", "measured / theoretical at that clock",
                 per_clock > 0 ? Value(tc.flops / (per_clock * tc.clock_hz), 3) : Value());
    report.field("ridge_bf16_tensor", "ridge point BF16 Tensor Core (the notes: about 153 on the A100)",
                 Value(roofline::ridge(tc.flops, roofs.bandwidth), 1), "FLOP/byte");
    const bool correct = mma.correct && (!wg.available || wg.correct);
    report.field("tensor_correct", "every accumulator is what its rounds add up to", correct);
    if (!correct) std::fprintf(stderr, "roofline: a Tensor Core kernel's accumulators are wrong\n");
    ok = correct;
  } else {
    report.note("  BF16 Tensor Core roof: not measured (BF16 mma needs sm_80 or later)");
  }
  // a dial row above the theoretical FP32 rate or bandwidth is suspect (FP64 is compared with its
  // bandwidth only: the device reports no FP64 rate)
  const double peak_gbps = facts.theoretical_bandwidth_gbps();
  if (o.precision != "fp64") {
    ok = dial<float>(report, o, bench, {peak_gbps, ceiling.gbps, lanes * facts.sm_clock_khz * 1e3 / 1e9}, roofs.fp32,
                     roofs.bandwidth, "dial_fp32", "The dial, FP32: load x, k FMAs, store (2k FLOP per 8 bytes)") && ok;
  }
  if (o.precision != "fp32") {
    ok = dial<double>(report, o, bench, {peak_gbps, ceiling.gbps, 0}, roofs.fp64, roofs.bandwidth, "dial_fp64",
                      "The dial, FP64: load x, k FMAs, store (2k FLOP per 16 bytes)") && ok;
  }
  ok = instructions(report, std::min<std::size_t>(static_cast<std::size_t>(o.n), std::size_t{1} << 22)) && ok;
  ok = rmsnorm(report, o, bench, ceiling.gbps, facts.theoretical_bandwidth_gbps()) && ok;
  return ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("roofline", [&] { return run(argc, argv); });
}
