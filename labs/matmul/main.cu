// matmul: C = A * B in FP32 with every rung of the SIMT ladder, each checked against the CPU and
// timed against cuBLAS SGEMM in the same process; and y = W x for a batch of vectors, from GEMV
// (memory-bound, the notes' decode) to GEMM (compute-bound, prefill).
//   ./labs/matmul                       4096^3, every variant and cuBLAS
//   ./labs/matmul 1025                  any size; M N K for a rectangle: ./labs/matmul 8192 1024 4096
//   ./labs/matmul --variant smem32 --json
//   ./labs/matmul --gemv                W 8192 x 8192 times batches of 1, 2, 4 ... 512 vectors
//   ./labs/matmul 8192 --precision bf16 the Tensor Core rungs (BF16 in, FP32 out) against cuBLAS
#include <cstdio>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
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
#include "common/variants.hpp"
#include "matmul.hpp"
#include "reference.hpp"
#include "tensor.hpp"

namespace {

using cudalab::Value;
using matmul::Variant;

struct Options {
  cudalab::CommonOptions common;
  std::string variant = "all";
  std::int64_t m = 4096, n = 4096, k = 4096;
  bool gemv = false;
  int batch_max = 512;
  std::string precision = "fp32";
};

// What the kernels multiply: FP32 values as they are, or their BF16 bits (In = std::uint16_t)
// after rounding (reference.hpp); the CPU's reference uses the values really multiplied.
template <typename In>
std::vector<float> multiplied(std::vector<float> x) {
  if constexpr (std::is_same_v<In, std::uint16_t>) x = matmul::rounded_to_bf16(x);
  return x;
}
template <typename In>
std::vector<In> stored(const std::vector<float>& x) {
  if constexpr (std::is_same_v<In, std::uint16_t>) {
    return matmul::bf16_bits_of(x);
  } else {
    return x;
  }
}

// The problem's inputs on the device and what a result is checked against. Timed repetitions
// alternate A and -A (InputSets): -A times B is exactly -(A B) in any order of additions (and
// negation is exact in BF16 too), so one reference serves both and a kernel that replays an
// earlier result is wrong on the next one.
template <typename In>
struct Problem {
  int m, n, k;
  std::vector<float> a, b;
  cudalab::DeviceBuffer<In> d_a, d_b;
  cudalab::DeviceBuffer<float> d_c;
  cudalab::InputSets sets;
  matmul::SampledReference ref;
  std::vector<float> trusted;  // cuBLAS's C for set 0, checked against ref
  Problem(int m_, int n_, int k_, std::uint64_t seed, int lines, double bound = 0)
      : m(m_),
        n(n_),
        k(k_),
        a(multiplied<In>(matmul::make_matrix(static_cast<std::size_t>(m_), static_cast<std::size_t>(k_), seed))),
        b(multiplied<In>(matmul::make_matrix(static_cast<std::size_t>(k_), static_cast<std::size_t>(n_), seed + 1))),
        d_a(stored<In>(a)),
        d_b(stored<In>(b)),
        d_c(static_cast<std::size_t>(m_) * static_cast<std::size_t>(n_)),
        ref(a, b, m_, n_, k_, lines, bound) {
    std::vector<float> minus_a(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) minus_a[i] = -a[i];
    sets.add(d_a, stored<In>(minus_a));
  }
  // C as the inputs now in the buffers would have it with set 0: -C under set 1.
  std::vector<float> result() const {
    std::vector<float> c = d_c.download();
    if (sets.current() == 1) {
      for (float& x : c) x = -x;
    }
    return c;
  }
  // The sampled rows and columns against the CPU and, once `trusted` exists, every element
  // against it. Prints the first mismatch on stderr.
  bool check(const std::string& name) const {
    const std::vector<float> c = result();
    cudalab::CheckResult r = ref.check_sampled(c);
    if (r.ok() && !trusted.empty()) r = ref.check_against(c, trusted);
    if (!r.ok()) std::fprintf(stderr, "matmul: %s is wrong: %s\n", name.c_str(), r.summary().c_str());
    return r.ok();
  }
};
using Fp32Problem = Problem<float>;
using Bf16Problem = Problem<std::uint16_t>;

template <typename In>
cudalab::Rung product_rung(const std::string& name, Problem<In>& p, std::function<void()> launch) {
  cudalab::Rung r;
  r.name = name;
  r.flops = matmul::flops(p.m, p.n, p.k);
  r.bytes = std::is_same_v<In, float> ? matmul::min_bytes(p.m, p.n, p.k) : matmul::min_bytes_bf16(p.m, p.n, p.k);
  r.poison = [&p] { p.d_c.fill_bytes(0xFF); };  // NaN: an element never written fails
  r.launch = std::move(launch);
  r.check = [&p, name] { return p.check(name); };
  r.refresh = p.sets.refresh();
  return r;
}

cudalab::Rung variant_rung(Variant v, Fp32Problem& p) {
  cudalab::Rung r = product_rung(matmul::variant_name(v), p, [v, &p] {
    matmul::launch(v, p.d_a.data(), p.d_b.data(), p.d_c.data(), p.m, p.n, p.k);
  });
  r.fallback = matmul::fallback(v);
  const bool vec = matmul::vector_path(v, p.d_a.data(), p.d_b.data(), p.d_c.data(), p.n, p.k);
  const matmul::Tile t = matmul::tile(v, p.m, p.n, p.k);
  const double loads = v == Variant::kAsyncPipeline ? t.loads_per_fma() : matmul::traits(v).loads_per_fma;
  r.cells = [t, vec, loads] {
    return std::vector<cudalab::Cell>{
        {"tile_m", "tile M", t.m},
        {"tile_n", "tile N", t.n},
        {"threads", "threads", t.threads},
        {"k_splits", "K parts", t.splits},
        {"fringe", "fringe", Value::shown(t.fringe, t.fringe ? "yes" : "-")},
        {"loads_per_fma", "loads/FMA", Value(loads, 4)},
        {"vector_loads", "16B", Value::shown(vec, vec ? "yes" : "-")},
    };
  };
  return r;
}

cudalab::Rung tensor_rung(matmul::tensor::Variant v, Bf16Problem& p) {
  cudalab::Rung r = product_rung(matmul::tensor::variant_name(v), p, [v, &p] {
    matmul::tensor::launch(v, p.d_a.data(), p.d_b.data(), p.d_c.data(), p.m, p.n, p.k);
  });
  const matmul::tensor::Shape s = matmul::tensor::shape(v);
  const bool vec = matmul::tensor::vector_path(p.d_a.data(), p.d_b.data(), p.n, p.k);
  r.cells = [s, vec] {
    return std::vector<cudalab::Cell>{
        {"tile_m", "tile M", s.block_m},
        {"tile_n", "tile N", s.block_n},
        {"threads", "threads", s.threads},
        {"stages", "stages", s.stages},
        {"vector_loads", "16B", Value::shown(vec, vec ? "yes" : "-")},
    };
  };
  return r;
}

cudalab::Rung cublas_rung(matmul::Cublas& blas, Fp32Problem& p) {
  cudalab::Rung r = product_rung("cublas", p, [&blas, &p] {
    blas.sgemm(p.d_a.data(), p.d_b.data(), p.d_c.data(), p.m, p.n, p.k);
  });
  r.baseline = true;
  return r;
}

cudalab::Rung cublas_bf16_rung(matmul::Cublas& blas, Bf16Problem& p) {
  cudalab::Rung r = product_rung("cublas_bf16", p, [&blas, &p] {
    blas.gemm_bf16(p.d_a.data(), p.d_b.data(), p.d_c.data(), p.m, p.n, p.k);
  });
  r.baseline = true;
  return r;
}

// cuBLAS's result, checked against the CPU's sampled rows and columns, becomes the reference
// for every element. Throws when cuBLAS itself is wrong.
template <typename In>
void trust(Problem<In>& p, const std::string& name, const std::function<void()>& product) {
  p.sets.use(0);
  p.d_c.fill_bytes(0xFF);
  product();
  CUDA_CHECK(cudaDeviceSynchronize());
  if (!p.check(name + " (the reference for every element)")) {
    throw std::runtime_error(name + "'s product does not match the CPU: no reference for the other elements");
  }
  p.trusted = p.d_c.download();
}
void trust_cublas(matmul::Cublas& blas, Fp32Problem& p) {
  trust(p, "cublas", [&] { blas.sgemm(p.d_a.data(), p.d_b.data(), p.d_c.data(), p.m, p.n, p.k); });
}

cudalab::Yardsticks yardsticks(const cudalab::DeviceFacts& facts, double copy_gbps) {
  return {facts.theoretical_bandwidth_gbps(), copy_gbps, facts.theoretical_fp32_gflops()};
}

int ladder(cudalab::Report& report, const Options& o, const cudalab::DeviceFacts& facts, cudalab::Benchmarker& bench,
           double copy_gbps) {
  Fp32Problem p(static_cast<int>(o.m), static_cast<int>(o.n), static_cast<int>(o.k), o.common.seed, 16);
  matmul::Cublas blas;
  trust_cublas(blas, p);
  report.field("checked", "checked against the CPU (FP64)",
               fmt::format("{} rows and {} columns of C; every element against cuBLAS", p.ref.rows().size(),
                           p.ref.cols().size()));
  report.field("tolerance_relative", "tolerance (x sum |a||b|, reference.hpp)", Value(matmul::dot_error_bound(p.k), 8));
  std::vector<cudalab::Rung> rungs;
  for (Variant v : cudalab::select_variants(matmul::all_variants(), matmul::variant_name, o.variant)) {
    rungs.push_back(variant_rung(v, p));
  }
  rungs.push_back(cublas_rung(blas, p));
  const cudalab::LadderResult result = cudalab::run_ladder(bench, rungs);
  cudalab::report_ladder(report, result, yardsticks(facts, copy_gbps), o.common.repeat, {true, "x cuBLAS"});
  if (result.best >= 0) {
    report.field("best_tflops", "best variant", Value(result.best_result().gflops() / 1e3, 2), "TFLOP/s");
  }
  if (const cudalab::RungResult* base = result.baseline(); base && base->result.correct) {
    report.field("cublas_tflops", "cuBLAS SGEMM", Value(base->result.gflops() / 1e3, 2), "TFLOP/s");
  }
  return result.all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

// The Tensor Core rungs on BF16 inputs, against cuBLAS's BF16 GEMM; % of peak against the
// dense BF16 Tensor Core peak (none shown where the table has no figure for this GPU).
int tensor_ladder(cudalab::Report& report, const Options& o, const cudalab::DeviceFacts& facts,
                  cudalab::Benchmarker& bench, double copy_gbps) {
  const int k = static_cast<int>(o.k);
  Bf16Problem p(static_cast<int>(o.m), static_cast<int>(o.n), k, o.common.seed, 16, matmul::bf16_dot_error_bound(k));
  matmul::Cublas blas;
  // BF16 needs sm_80 or later, for cuBLAS as for the rungs: before that, one line and exit 77
  // (no usable device for this mode; ctest reports the BF16 runs as skipped).
  if (const std::string why = matmul::tensor::unavailable(matmul::tensor::Variant::kWmma); !why.empty()) {
    throw cudalab::NoDeviceError("--precision bf16: " + why + " (this GPU is " + facts.arch() + ")");
  }
  trust(p, "cublas_bf16", [&] { blas.gemm_bf16(p.d_a.data(), p.d_b.data(), p.d_c.data(), p.m, p.n, p.k); });
  report.field("checked", "checked against the CPU (FP64 of the BF16-rounded inputs)",
               fmt::format("{} rows and {} columns of C; every element against cuBLAS", p.ref.rows().size(),
                           p.ref.cols().size()));
  report.field("tolerance_relative", "tolerance (x sum |a||b|, reference.hpp)", Value(p.ref.bound(), 8));
  const double peak = facts.theoretical_bf16_tensor_gflops();
  report.field("peak_bf16_tensor_gflops", "dense BF16 Tensor Core peak (SMs x FLOP/clock x max clock)",
               peak > 0 ? Value(peak, 0) : Value(), peak > 0 ? "GFLOP/s" : "(no figure for this GPU)");
  std::vector<cudalab::Rung> rungs;
  // A rung this GPU cannot run (the wgmma rungs off compute capability 9.0) is named and left
  // out, never replaced by another kernel; asked for alone, it is exit 77.
  for (auto v : cudalab::select_variants(matmul::tensor::all_variants(), matmul::tensor::variant_name, o.variant)) {
    if (const std::string why = matmul::tensor::unavailable(v); !why.empty()) {
      if (o.variant != "all") throw cudalab::NoDeviceError("--variant " + o.variant + ": " + why + " (this GPU is " + facts.arch() + ")");
      report.note(fmt::format("  {}: not available for this GPU ({})", matmul::tensor::variant_name(v), why));
      continue;
    }
    rungs.push_back(tensor_rung(v, p));
  }
  rungs.push_back(cublas_bf16_rung(blas, p));
  const cudalab::LadderResult result = cudalab::run_ladder(bench, rungs);
  cudalab::report_ladder(report, result, {facts.theoretical_bandwidth_gbps(), copy_gbps, peak, "BF16"}, o.common.repeat,
                         {true, "x cuBLAS"});
  if (result.best >= 0) {
    report.field("best_tflops", "best variant", Value(result.best_result().gflops() / 1e3, 2), "TFLOP/s");
  }
  if (const cudalab::RungResult* base = result.baseline(); base && base->result.correct) {
    report.field("cublas_tflops", "cuBLAS BF16 GEMM", Value(base->result.gflops() / 1e3, 2), "TFLOP/s");
  }
  return result.all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

// y = W x for batches of b vectors: the time stays flat while reading W dominates and grows once
// the FLOPs do. The roofline puts the bend where the intensity (about b / 2 FLOP per byte)
// reaches the ridge: the FP32 peak over this run's copy ceiling.
int gemv(cudalab::Report& report, const Options& o, const cudalab::DeviceFacts& facts, cudalab::Benchmarker& bench,
         double copy_gbps) {
  const int rows = static_cast<int>(o.m), cols = static_cast<int>(o.k);
  const double peak = facts.theoretical_fp32_gflops() * 1e9;
  const double ridge = peak / (copy_gbps * 1e9);
  double knee = 1;
  while (knee < 1e6 && matmul::batched_gemv_intensity(rows, cols, knee) < ridge) knee *= 1.01;
  report.heading(fmt::format("y = W x, W {} x {}, for batches of b vectors (cuBLAS and the best rung)", rows, cols));
  report.field("ridge_flop_per_byte", "ridge: FP32 peak / copy ceiling", Value(ridge, 1), "FLOP/byte");
  report.field("knee_predicted_batch", "batch where the intensity reaches the ridge", Value(knee, 1));
  matmul::Cublas blas;
  cudalab::MeasurementTable table(yardsticks(facts, copy_gbps), {false, "x cuBLAS"});
  bool all_ok = true;
  std::vector<std::pair<int, double>> cublas_ms;  // (batch, median ms) of the correct cuBLAS runs
  for (int b = 1; b <= o.batch_max; b *= 2) {
    Fp32Problem p(rows, b, cols, o.common.seed + static_cast<std::uint64_t>(b), 4);
    trust_cublas(blas, p);
    const double predicted_ms =
        std::max(matmul::min_bytes(rows, b, cols) / (copy_gbps * 1e9), matmul::flops(rows, b, cols) / peak) * 1e3;
    std::vector<cudalab::Rung> rungs{variant_rung(Variant::kAsyncPipeline, p), cublas_rung(blas, p)};
    for (auto& r : rungs) {
      r.cells = [predicted_ms] {
        return std::vector<cudalab::Cell>{{"roofline_ms", "roofline ms", Value(predicted_ms, 4)}};
      };
    }
    const cudalab::LadderResult result = cudalab::run_ladder(bench, rungs);
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
  // --variant and --list-variants know both ladders: the SIMT rungs (FP32), then the Tensor Core
  // rungs (BF16, --precision bf16).
  std::vector<std::string> names = matmul::variant_names();
  std::vector<std::string> summaries = cudalab::names_of(matmul::all_variants(), matmul::variant_summary);
  for (auto v : matmul::tensor::all_variants()) {
    names.push_back(matmul::tensor::variant_name(v));
    summaries.push_back("BF16: " + matmul::tensor::variant_summary(v));
  }
  cli.variant_option(o.variant, names, summaries);
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
  if (!cli.given("N")) o.n = o.m;
  if (!cli.given("K")) o.k = o.m;
  if (o.gemv) o.n = o.batch_max;
  const bool bf16 = o.precision == "bf16";
  if (o.variant != "all") {
    matmul::tensor::Variant tv{};
    const bool tensor_variant = matmul::tensor::parse_variant(o.variant, &tv);
    if (tensor_variant != bf16) {
      throw cudalab::UsageError(fmt::format("--variant {} runs with --precision {}", o.variant, bf16 ? "fp32" : "bf16"));
    }
  }
  if (bf16 && o.gemv) throw cudalab::UsageError("--gemv runs in FP32 only (leave out --precision bf16)");

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  const double mk = static_cast<double>(o.m * o.k), kn = static_cast<double>(o.k * o.n), mn = static_cast<double>(o.m * o.n);
  const std::string what = fmt::format("{} x {} x {}", o.m, o.n, o.k);
  cudalab::require_device_memory(4.0 * (2.0 * mk + kn + mn), what);       // A and its second set, B, C
  cudalab::require_host_memory(4.0 * (2.0 * mk + kn + 3.0 * mn), what);  // inputs, cuBLAS's C, two downloads
  cudalab::Report report("matmul", o.common.json);
  cudalab::report_setup(report, facts, bf16 ? "bf16 in, float accumulation and out" : "float", 0);  // threads: per row
  report.field("shape", "M x N x K", o.gemv ? fmt::format("{} x b x {}", o.m, o.k) : what);
  report.field("peak_fp32_gflops", "FP32 peak (SMs x FP32 lanes x 2 x max clock)", Value(facts.theoretical_fp32_gflops(), 0),
               "GFLOP/s");
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const cudalab::CopyCeiling ceiling = cudalab::measure_copy_ceiling(bench);
  cudalab::report_copy_ceiling(report, ceiling.gbps);
  if (bf16) return tensor_ladder(report, o, facts, bench, ceiling.gbps);
  return o.gemv ? gemv(report, o, facts, bench, ceiling.gbps) : ladder(report, o, facts, bench, ceiling.gbps);
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("matmul", [&] { return run(argc, argv); });
}
