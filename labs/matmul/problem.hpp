#pragma once
// The matmul lab's problem and its two ladders: the inputs on the device (FP32, or BF16 bits for
// the Tensor Core rungs) and what a result is checked against; a rung per SIMT or Tensor Core
// variant and cuBLAS's as the yardstick; the SIMT ladder against cuBLAS SGEMM and the Tensor Core
// ladder against cuBLAS's BF16 GEMM.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/check.hpp"
#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_facts.hpp"
#include "common/driver.hpp"
#include "common/ladder.hpp"
#include "common/report.hpp"
#include "common/variants.hpp"
#include "matmul.hpp"
#include "reference.hpp"
#include "tensor.hpp"

namespace matmul {

using cudalab::Value;

// --variant and --list-variants know both ladders: the SIMT rungs (FP32), then the Tensor Core
// rungs (BF16, --precision bf16): their names, and what each changes.
inline std::vector<std::string> both_ladders_names() {
  std::vector<std::string> names = variant_names();
  for (auto v : tensor::all_variants()) names.push_back(tensor::variant_name(v));
  return names;
}
inline std::vector<std::string> both_ladders_summaries() {
  std::vector<std::string> summaries = cudalab::names_of(all_variants(), variant_summary);
  for (auto v : tensor::all_variants()) summaries.push_back("BF16: " + tensor::variant_summary(v));
  return summaries;
}

// A UsageError unless `variant` ("all", or a name of either ladder) is of the ladder that
// --precision chose (bf16: the Tensor Core rungs).
inline void require_precision(const std::string& variant, bool bf16) {
  tensor::Variant tv{};
  if (variant != "all" && tensor::parse_variant(variant, &tv) != bf16) {
    throw cudalab::UsageError(fmt::format("--variant {} runs with --precision {}", variant, bf16 ? "fp32" : "bf16"));
  }
}

// The rows' yardsticks of an FP32 ladder: the DRAM peak, this run's copy ceiling and the FP32 peak.
inline cudalab::Yardsticks fp32_yardsticks(cudalab::LabRun& run) {
  return {run.facts().theoretical_bandwidth_gbps(), run.yardsticks().copy_gbps, run.facts().theoretical_fp32_gflops()};
}

// What the kernels multiply: FP32 values as they are, or their BF16 bits (In = std::uint16_t)
// after rounding (reference.hpp); the CPU's reference uses the values really multiplied.
template <typename In>
std::vector<float> multiplied(std::vector<float> x) {
  if constexpr (std::is_same_v<In, std::uint16_t>) x = rounded_to_bf16(x);
  return x;
}
template <typename In>
std::vector<In> stored(const std::vector<float>& x) {
  if constexpr (std::is_same_v<In, std::uint16_t>) {
    return bf16_bits_of(x);
  } else {
    return x;
  }
}

// The problem's inputs on the device and what a result is checked against. Every timed
// repetition gets a fresh A (InputSets::add_scaled): the base A times fresh_multiplier(rep), ±2^k,
// and (m A) B is exactly m (A B) in any order of additions, every rounding scaled with it (in BF16
// too, where the inputs stay normal), so one reference serves all of them and a kernel that
// replays an earlier result, or caches one by its input, is wrong on the next launch.
template <typename In>
struct Problem {
  int m, n, k;
  std::vector<float> a, b;
  cudalab::DeviceBuffer<In> d_a, d_b;
  cudalab::DeviceBuffer<float> d_c;
  cudalab::InputSets sets;
  SampledReference ref;
  std::vector<float> trusted;  // cuBLAS's C for set 0, checked against ref
  Problem(int m_, int n_, int k_, std::uint64_t seed, int lines, double bound = 0)
      : m(m_),
        n(n_),
        k(k_),
        a(multiplied<In>(make_matrix(static_cast<std::size_t>(m_), static_cast<std::size_t>(k_), seed))),
        b(multiplied<In>(make_matrix(static_cast<std::size_t>(k_), static_cast<std::size_t>(n_), seed + 1))),
        d_a(stored<In>(a)),
        d_b(stored<In>(b)),
        d_c(static_cast<std::size_t>(m_) * static_cast<std::size_t>(n_)),
        ref(a, b, m_, n_, k_, lines, bound) {
    if constexpr (std::is_same_v<In, float>) {
      sets.add_scaled(d_a);
    } else {
      sets.add_scaled_bf16(d_a);
    }
  }
  // C as the base inputs would have it: what the buffers' inputs gave, divided by their multiplier
  // (a power of two: exact).
  std::vector<float> result() const {
    std::vector<float> c = d_c.download();
    const double mult = sets.scale(1.0);
    if (mult != 1.0) {
      for (float& x : c) x = static_cast<float>(x / mult);
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
  r.flops = flops(p.m, p.n, p.k);
  r.bytes = std::is_same_v<In, float> ? min_bytes(p.m, p.n, p.k) : min_bytes_bf16(p.m, p.n, p.k);
  r.poison = [&p] { p.d_c.fill_bytes(0xFF); };  // NaN: an element never written fails
  r.launch = std::move(launch);
  r.check = [&p, name] { return p.check(name); };
  r.refresh = p.sets.refresh();
  return r;
}

inline cudalab::Rung variant_rung(Variant v, Fp32Problem& p) {
  cudalab::Rung r = product_rung(variant_name(v), p, [v, &p] {
    launch(v, p.d_a.data(), p.d_b.data(), p.d_c.data(), p.m, p.n, p.k);
  });
  r.fallback = fallback(v);
  const bool vec = vector_path(v, p.d_a.data(), p.d_b.data(), p.d_c.data(), p.n, p.k);
  const Tile t = tile(v, p.m, p.n, p.k);
  const double loads = t.loads_per_fma();
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

inline cudalab::Rung tensor_rung(tensor::Variant v, Bf16Problem& p) {
  cudalab::Rung r = product_rung(tensor::variant_name(v), p, [v, &p] {
    tensor::launch(v, p.d_a.data(), p.d_b.data(), p.d_c.data(), p.m, p.n, p.k);
  });
  const tensor::Shape s = tensor::shape(v);
  const bool vec = tensor::vector_path(p.d_a.data(), p.d_b.data(), p.n, p.k);
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

inline cudalab::Rung cublas_rung(Cublas& blas, Fp32Problem& p) {
  cudalab::Rung r = product_rung("cublas", p, [&blas, &p] {
    blas.sgemm(p.d_a.data(), p.d_b.data(), p.d_c.data(), p.m, p.n, p.k);
  });
  r.baseline = true;
  return r;
}

inline cudalab::Rung cublas_bf16_rung(Cublas& blas, Bf16Problem& p) {
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
inline void trust_cublas(Cublas& blas, Fp32Problem& p) {
  trust(p, "cublas", [&] { blas.sgemm(p.d_a.data(), p.d_b.data(), p.d_c.data(), p.m, p.n, p.k); });
}

// The SIMT ladder on FP32 inputs (`chosen`: "all" or one variant), against cuBLAS SGEMM.
inline int fp32_ladder(cudalab::LabRun& run, int m, int n, int k, const std::string& chosen) {
  cudalab::Report& report = run.report();
  Fp32Problem p(m, n, k, run.common().seed, 16);
  Cublas blas;
  trust_cublas(blas, p);
  report.field("checked", "checked against the CPU (FP64)",
               fmt::format("{} rows and {} columns of C; every element against cuBLAS", p.ref.rows().size(),
                           p.ref.cols().size()));
  report.field("tolerance_relative", "tolerance (x sum |a||b|, reference.hpp)", Value(dot_error_bound(p.k), 8));
  std::vector<cudalab::Rung> rungs;
  for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
    rungs.push_back(variant_rung(v, p));
  }
  rungs.push_back(cublas_rung(blas, p));
  const cudalab::LadderResult result = cudalab::run_ladder(run.bench(), rungs);
  cudalab::report_ladder(report, result, fp32_yardsticks(run), run.common().repeat, {true, "x cuBLAS"});
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
inline int bf16_ladder(cudalab::LabRun& run, int m, int n, int k, const std::string& chosen) {
  cudalab::Report& report = run.report();
  const cudalab::DeviceFacts& facts = run.facts();
  Bf16Problem p(m, n, k, run.common().seed, 16, bf16_dot_error_bound(k));
  Cublas blas;
  // BF16 needs sm_80 or later, for cuBLAS as for the rungs: before that, one line and exit 77
  // (no usable device for this mode; ctest reports the BF16 runs as skipped).
  if (const std::string why = tensor::unavailable(tensor::Variant::kWmma); !why.empty()) {
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
  // the wgmma rungs run on compute capability 9.0 only
  for (auto v : cudalab::runnable_variants(
           cudalab::select_variants(tensor::all_variants(), tensor::variant_name, chosen), chosen, tensor::variant_name,
           [](tensor::Variant x) { return tensor::unavailable(x); }, [&](const std::string& line) { report.note(line); },
           " (this GPU is " + facts.arch() + ")")) {
    rungs.push_back(tensor_rung(v, p));
  }
  rungs.push_back(cublas_bf16_rung(blas, p));
  const cudalab::LadderResult result = cudalab::run_ladder(run.bench(), rungs);
  cudalab::report_ladder(report, result, {facts.theoretical_bandwidth_gbps(), run.yardsticks().copy_gbps, peak, "BF16"},
                         run.common().repeat, {true, "x cuBLAS"});
  if (result.best >= 0) {
    report.field("best_tflops", "best variant", Value(result.best_result().gflops() / 1e3, 2), "TFLOP/s");
  }
  if (const cudalab::RungResult* base = result.baseline(); base && base->result.correct) {
    report.field("cublas_tflops", "cuBLAS BF16 GEMM", Value(base->result.gflops() / 1e3, 2), "TFLOP/s");
  }
  return result.all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace matmul
