#pragma once
// The roofline lab's options and sections: the intensity dial against the roofs, the instruction
// mixes, and RMSNorm fused and unfused against the copy ceiling.
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

namespace roofline {

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

inline bool instructions(cudalab::Report& report, std::size_t n) {
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
    t.add_row({dv.name, Value(rate / 1e9, 1), Value::shown(Value(0LL), "exact"), Value()});  // integers: no rounding
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
  t.add_row({"fmaf(a, v, c), dependent", Value(roofline::fma_vs_mul_add(true, a, b, c, 2048, nullptr) / 1e9, 1), Value(),
             Value()});
  t.add_row({"__fadd_rn(__fmul_rn(a, v), c), dependent", Value(roofline::fma_vs_mul_add(false, a, b, c, 2048, nullptr) / 1e9, 1),
             Value(), Value()});
  report.heading(fmt::format("Instruction throughput ({} elements; exp over [-10, 10] against exp in double)", n));
  report.table("instructions", t);
  report.field("fma_rounding_differs", "a * b + c: fused and unfused differ in", static_cast<long long>(differ),
               fmt::format("of {} results, by at most {} ulp", n, worst));
  return ok;
}

inline bool rmsnorm(cudalab::Report& report, const Options& o, cudalab::Benchmarker& bench, double copy_gbps, double peak_gbps) {
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
  // The unfused pair beside it: the same sums in the same order, so the same bits, from 1.5x the bytes.
  const double unfused_bytes = roofline::rmsnorm_unfused_bytes(rows, cols);
  cudalab::DeviceBuffer<float> d_scales(static_cast<std::size_t>(rows));
  d_y.fill_bytes(0xFF);
  roofline::launch_rmsnorm(d_x.data(), d_w.data(), d_y.data(), rows, cols, 1e-6f, d_scales.data());
  const bool same = ok && d_y.download() == got;
  if (ok && !same) std::fprintf(stderr, "roofline: the unfused RMSNorm differs from the fused one\n");
  const cudalab::Timing unfused =
      bench.run([&] { roofline::launch_rmsnorm(d_x.data(), d_w.data(), d_y.data(), rows, cols, 1e-6f, d_scales.data()); });
  const double ug = cudalab::gbps(unfused_bytes, unfused.median_ms);
  report.field("rmsnorm_unfused_bytes", "unfused (row scales first, then a second pass over x)",
               cudalab::bytes_cell(unfused_bytes), fmt::format("({:.2f}x the fused traffic)", unfused_bytes / bytes));
  report.field("rmsnorm_unfused_us", "unfused, measured (median, both kernels)", same ? Value(unfused.median_ms * 1e3, 1) : Value(),
               "us");
  report.field("rmsnorm_unfused_gbps", "unfused throughput (its own bytes)", same ? Value(ug, 0) : Value(), "GB/s");
  report.field("rmsnorm_unfused_over_fused", "unfused time / fused time",
               same ? Value(unfused.median_ms / timing.median_ms, 2) : Value());
  report.field("rmsnorm_unfused_correct", "unfused = fused, bit for bit",
               Value::shown(same, same ? fmt::format("all {} equal", n) : "WRONG"));
  return ok && same;
}

}  // namespace roofline
