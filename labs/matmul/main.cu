// matmul: C = A * B in FP32 with every rung of the SIMT ladder, each checked against the CPU and
// timed against cuBLAS SGEMM in the same process; and y = W x for a batch of vectors, from GEMV
// (memory-bound, the notes' decode) to GEMM (compute-bound, prefill).
//   ./labs/matmul                       4096^3, every variant and cuBLAS
//   ./labs/matmul 1025                  any size; M N K for a rectangle: ./labs/matmul 8192 1024 4096
//   ./labs/matmul --variant smem32 --json
//   ./labs/matmul --gemv                W 8192 x 8192 times batches of 1, 2, 4 ... 512 vectors
//   ./labs/matmul 8192 --precision bf16 the Tensor Core rungs (BF16 in, FP32 out) against cuBLAS
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "common/variants.hpp"
#include "problem.hpp"

namespace {

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::string variant = "all", precision = "fp32";
  std::int64_t m = 4096, n = 4096, k = 4096;
  bool gemv = false;
  int batch_max = 512;
};

// y = W x for batches of b vectors: the time stays flat while reading W dominates and grows once
// the FLOPs do. The roofline puts the bend where the intensity (about b / 2 FLOP per byte)
// reaches the ridge: the FP32 peak over this run's copy ceiling.
int gemv(cudalab::LabRun& run, const Options& o) {
  cudalab::Report& report = run.report();
  const double copy_gbps = run.yardsticks().copy_gbps;
  const int rows = static_cast<int>(o.m), cols = static_cast<int>(o.k);
  const double peak = run.facts().theoretical_fp32_gflops() * 1e9;
  const double ridge = peak / (copy_gbps * 1e9);
  const double knee = matmul::predicted_knee(rows, cols, ridge);
  report.heading(fmt::format("y = W x, W {} x {}, for batches of b vectors (cuBLAS and the best rung)", rows, cols));
  report.field("ridge_flop_per_byte", "ridge: FP32 peak / copy ceiling", Value(ridge, 1), "FLOP/byte");
  report.field("knee_predicted_batch", "batch where the intensity reaches the ridge", Value(knee, 1));
  matmul::Cublas blas;
  cudalab::MeasurementTable table(matmul::fp32_yardsticks(run), {false, "x cuBLAS"});
  bool all_ok = true;
  std::vector<std::pair<int, double>> cublas_ms;  // (batch, median ms) of the correct cuBLAS runs
  for (int b = 1; b <= o.batch_max; b *= 2) {
    matmul::Fp32Problem p(rows, b, cols, o.common.seed + static_cast<std::uint64_t>(b), 4);
    matmul::trust_cublas(blas, p);
    const double predicted_ms =
        std::max(matmul::min_bytes(rows, b, cols) / (copy_gbps * 1e9), matmul::flops(rows, b, cols) / peak) * 1e3;
    std::vector<cudalab::Rung> rungs{matmul::variant_rung(matmul::Variant::kAsyncPipeline, p), matmul::cublas_rung(blas, p)};
    for (auto& r : rungs) {
      r.cells = [predicted_ms] {
        return std::vector<cudalab::Cell>{{"roofline_ms", "roofline ms", Value(predicted_ms, 4)}};
      };
    }
    const cudalab::LadderResult result = cudalab::run_ladder(run.bench(), rungs);
    all_ok = all_ok && result.all_ok;
    table.add(result, {{"batch", "b", b},
                       {"intensity_flop_per_byte", "FLOP/B", Value(matmul::batched_gemv_intensity(rows, cols, b), 2)}});
    if (const cudalab::RungResult* base = result.baseline(); base && base->result.correct) {
      cublas_ms.emplace_back(b, base->result.timing.median_ms);
    }
  }
  const int code = cudalab::report_sweep(report, "Time over the batch", table, all_ok);
  const int knee_measured = matmul::knee_of(cublas_ms);
  report.field("knee_measured_batch", "cuBLAS: the batch from which each doubling costs 1.25 x the time or more",
               knee_measured > 0 ? Value(knee_measured) : Value());
  return code;
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("matmul", "C = A * B in FP32: the SIMT ladder from the naive kernel to a cp.async pipeline, against cuBLAS.");
  cli.variant_option(o.variant, matmul::both_ladders_names(), matmul::both_ladders_summaries());
  cli.option("--precision", o.precision,
             "fp32: the SIMT ladder against cuBLAS SGEMM; bf16: the Tensor Core rungs against cuBLAS's BF16 GEMM",
             {"fp32", "bf16"});
  cli.positional("M", o.m, "rows of A and C", 1, 1 << 17);
  cli.positional("N", o.n, "columns of B and C (default: M)", 1, 1 << 17);
  cli.positional("K", o.k, "columns of A, rows of B (default: M)", 1, 1 << 17);
  cli.flag("--gemv", o.gemv, "y = W x for batches 1, 2, 4 ... of vectors (W: M x K, default 8192 x 8192)");
  cli.option("--batch-max", o.batch_max, "the largest batch of --gemv", 1, 1 << 14);
  cli.add_common(o.common);
  cli.footer("Examples:\n  matmul\n  matmul 1025\n  matmul 8192 1024 4096 --variant async_pipeline\n  matmul --gemv --json\n  matmul 8192 --precision bf16");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.gemv && !cli.given("M")) o.m = 8192;
  if (!cli.given("K")) o.k = o.m;
  o.n = o.gemv ? o.batch_max : cli.given("N") ? o.n : o.m;  // --gemv: the largest batch's columns
  const bool bf16 = o.precision == "bf16";
  matmul::require_precision(o.variant, bf16);
  if (bf16 && o.gemv) throw cudalab::UsageError("--gemv runs in FP32 only (leave out --precision bf16)");

  cudalab::LabRun run("matmul", o.common, bf16 ? "bf16 in, float accumulation and out" : "float", 0);  // threads: per row
  const double mk = static_cast<double>(o.m * o.k), kn = static_cast<double>(o.k * o.n), mn = static_cast<double>(o.m * o.n);
  const std::string what = fmt::format("{} x {} x {}", o.m, o.n, o.k);
  cudalab::require_device_memory(4.0 * (2.0 * mk + kn + mn), what);       // A and its second set, B, C
  cudalab::require_host_memory(4.0 * (2.0 * mk + kn + 3.0 * mn), what);  // inputs, cuBLAS's C, two downloads
  if (o.gemv) run.report().dims("shape", "M x K (GEMV: b vectors of K)", {{"m", o.m}, {"k", o.k}});
  else run.report().dims("shape", "M x N x K", {{"m", o.m}, {"n", o.n}, {"k", o.k}});
  run.report().field("peak_fp32_gflops", "FP32 peak (SMs x FP32 lanes x 2 x max clock)",
                     Value(run.facts().theoretical_fp32_gflops(), 0), "GFLOP/s");
  run.yardsticks();  // the copy ceiling, before any ladder
  const int m = static_cast<int>(o.m), n = static_cast<int>(o.n), k = static_cast<int>(o.k);
  if (bf16) return matmul::bf16_ladder(run, m, n, k, o.variant);
  return o.gemv ? gemv(run, o) : matmul::fp32_ladder(run, m, n, k, o.variant);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("matmul", [&] { return run(argc, argv); });
}
