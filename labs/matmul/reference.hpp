#pragma once
// matmul on the CPU: inputs, the FP64 reference, the tolerance and its derivation, and the
// reuse arithmetic the README works.
//
// The tolerance. A K-term FP32 dot product computed with FMAs (in any order: a tree, a split-K,
// a tile at a time) differs from the exact value by at most
//     gamma_K * sum_p |a_ip| |b_pj|,    gamma_K = K u / (1 - K u),   u = 2^-24
// (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., section 3.1). That bound is
// reached only when every rounding goes the same way. Treating the roundings as independent and
// mean-zero, Higham and Mary (SIAM J. Sci. Comput. 41(5), 2019, theorem 2.4) bound the error by
//     lambda sqrt(K) u * sum_p |a_ip| |b_pj|
// with probability at least 1 - 2 exp(-lambda^2 / 2): for lambda = 8, 1 - 2.5e-14 per element.
// The check uses the smaller of the two (the first for K < 64). The FP64 reference's own error is
// about 2^-29 of this and is ignored. A kernel that rounds its inputs to TF32 (10-bit mantissa)
// or BF16 (7-bit) makes errors of about sqrt(K) 2^-11 (or 2^-8) x the typical product: larger
// than the FP32 bound while K is below about 1000 (TF32) or 60000 (BF16) for inputs in [-1, 1].
// Past that, random signs let those roundings cancel like a random walk, and a TF32 product
// would pass. fp32_exposing_matrix closes that gap: its values round to TF32, FP16 and BF16
// always towards zero, and every product of an output element has the same sign, so a lower
// precision's errors add up (about 2^-11 x sum |a||b|, K times one rounding) instead of
// cancelling: larger than the bound's 8 sqrt(K) 2^-24 for every K below 2^20.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/bf16.hpp"
#include "common/check.hpp"
#include "common/random.hpp"

namespace matmul {

inline constexpr double kUnitRoundoff = 1.0 / 16777216.0;  // 2^-24: FP32 round to nearest
inline constexpr double kLambda = 8.0;                     // the probabilistic bound's confidence

// The error bound of a k-term FP32 dot product, relative to sum |a_p| |b_p| (see above).
inline double dot_error_bound(int k) {
  const double ku = k * kUnitRoundoff;
  const double worst = ku / (1.0 - ku);
  const double probable = kLambda * std::sqrt(static_cast<double>(k)) * kUnitRoundoff;
  return std::min(worst, probable);
}

// The Tensor Core rungs (BF16 inputs, FP32 accumulation). Their inputs are rounded to BF16 on the
// host (to_bf16 below) and the reference is the FP64 product of those rounded values, so a product
// a_ip b_pj (8-bit significands: 16 bits) is exact in FP32 and only the accumulation errs. The
// Tensor Cores add a block of products with one alignment and truncate (round toward zero)
// instead of rounding to nearest (Fasi, Higham, Mikaitis and Pranesh, "Numerical behavior of
// NVIDIA tensor cores", PeerJ Comput. Sci. 7:e330, 2021), so no probabilistic bound holds: the
// check takes the worst case with two units of 2^-24 per addition,
//     gamma = K u' / (1 - K u'),   u' = 2^-23,
// about 1e-3 x sum |a||b| at K = 8192. A wrong element (a missed tile, a wrong fragment) is off
// by about one product's size, far more.
inline double bf16_dot_error_bound(int k) {
  const double ku = k * (2.0 * kUnitRoundoff);
  return ku / (1.0 - ku);
}

// BF16 conversions (common/bf16.hpp), by their names here too.
using cudalab::bf16_bits_of;
using cudalab::from_bf16_bits;
using cudalab::rounded_to_bf16;
using cudalab::to_bf16_bits;

// A rows x cols matrix of values uniform in [-1, 1), reproducible from the seed.
inline std::vector<float> make_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed) {
  return cudalab::random_vector<float>(rows * cols, seed, -1.0f, 1.0f);
}

// A rows x cols matrix that no lower precision than FP32 computes within the FP32 bound (see the
// header): magnitudes 2^e x [0.5, 1) with e uniform in [-4, 4], a sign per row (sign_per_row: the
// A operand) or per column (the B operand), so that every product a_ip b_pj of one element of C
// has the sign s_i t_j; and in each significand bit 15 and bit 12 clear and bit 0 set, so the 13
// bits TF32 and FP16 drop are below half a unit of their last place, as are the 16 BF16 drops:
// both round every value towards zero, never to the value itself.
inline std::vector<float> fp32_exposing_matrix(std::size_t rows, std::size_t cols, std::uint64_t seed, bool sign_per_row) {
  std::vector<float> m = cudalab::random_vector<float>(rows * cols, seed, 0.5f, 1.0f);
  const auto exponents = cudalab::random_vector<int>(rows * cols, seed + 1, -4, 4);
  const auto signs = cudalab::random_vector<int>(sign_per_row ? rows : cols, seed + 2, 0, 1);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const std::size_t at = i * cols + j;
      std::uint32_t bits = 0;
      std::memcpy(&bits, &m[at], 4);
      bits = (bits & ~((1u << 15) | (1u << 12))) | 1u;
      float v = 0;
      std::memcpy(&v, &bits, 4);
      const bool negative = signs[sign_per_row ? i : j] != 0;
      m[at] = std::ldexp(negative ? -v : v, exponents[at]);
    }
  }
  return m;
}

// The exact product in FP64 and, per element, sum_p |a_ip| |b_pj| (the scale of its error bound).
struct Product {
  std::vector<double> c, abs;
};

// All of C (tests, small sizes): O(m n k) on one core, row of A times B so that B streams.
inline Product reference(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k) {
  const auto M = static_cast<std::size_t>(m), N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k);
  Product p{std::vector<double>(M * N, 0.0), std::vector<double>(M * N, 0.0)};
  for (std::size_t i = 0; i < M; ++i) {
    double* c = p.c.data() + i * N;
    double* s = p.abs.data() + i * N;
    for (std::size_t q = 0; q < K; ++q) {
      const double x = a[i * K + q];
      const float* row = b.data() + q * N;
      for (std::size_t j = 0; j < N; ++j) {
        c[j] += x * row[j];
        s[j] += std::fabs(x * row[j]);
      }
    }
  }
  return p;
}

// |got - exact| <= bound * abs (+ the smallest normal float, for an exact zero); bound is
// dot_error_bound(k) for the FP32 rungs, bf16_dot_error_bound(k) for the Tensor Core rungs.
inline bool within(double exact, double abs, double got, double bound) {
  return std::fabs(got - exact) <= bound * abs + 1.2e-38;  // NaN fails
}
inline bool within_bound(double exact, double abs, double got, int k) { return within(exact, abs, got, dot_error_bound(k)); }

// Every element of `got` (m x n) against the FP64 product, within `bound` (default: FP32's).
inline cudalab::CheckResult check_product(const Product& ref, const std::vector<float>& got, int k, double bound = 0) {
  if (bound == 0) bound = dot_error_bound(k);
  cudalab::CheckResult r;
  r.checked = got.size();
  if (got.size() != ref.c.size()) {
    r.mismatches = std::max(got.size(), ref.c.size());
    return r;
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!within(ref.c[i], ref.abs[i], got[i], bound)) {
      cudalab::detail::record(r, i, ref.c[i], got[i], cudalab::kMaxReportedMismatches);
    }
  }
  return r;
}

// The lab's check at sizes where the whole product on the CPU is too slow (4096^3 is 69 GFLOP):
// every element of C against a trusted GPU result (cuBLAS, itself checked here), with twice
// the bound and the Cauchy-Schwarz scale |a_i| |b_j| >= sum_p |a_ip| |b_pj|; and whole rows and
// columns of C (the first, the last, and evenly spaced ones between) against the FP64 product.
class SampledReference {
 public:
  // bound: relative to sum |a||b|; 0 takes FP32's, dot_error_bound(k).
  SampledReference(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k, int lines = 16,
                   double bound = 0)
      : m_(m), n_(n), k_(k), bound_(bound > 0 ? bound : dot_error_bound(k)), rows_(spread(m, lines)), cols_(spread(n, lines)) {
    const auto N = static_cast<std::size_t>(n), K = static_cast<std::size_t>(k), M = static_cast<std::size_t>(m);
    for (int i : rows_) {
      std::vector<double> c(N, 0.0), s(N, 0.0);
      for (std::size_t q = 0; q < K; ++q) {
        const double x = a[static_cast<std::size_t>(i) * K + q];
        const float* row = b.data() + q * N;
        for (std::size_t j = 0; j < N; ++j) {
          c[j] += x * row[j];
          s[j] += std::fabs(x * row[j]);
        }
      }
      row_c_.push_back(std::move(c));
      row_abs_.push_back(std::move(s));
    }
    std::vector<double> col(K);
    for (int j : cols_) {
      for (std::size_t q = 0; q < K; ++q) col[q] = b[q * N + static_cast<std::size_t>(j)];
      std::vector<double> c(M, 0.0), s(M, 0.0);
      for (std::size_t i = 0; i < M; ++i) {
        const float* row = a.data() + i * K;
        double acc = 0, abs = 0;
        for (std::size_t q = 0; q < K; ++q) {
          acc += row[q] * col[q];
          abs += std::fabs(row[q] * col[q]);
        }
        c[i] = acc;
        s[i] = abs;
      }
      col_c_.push_back(std::move(c));
      col_abs_.push_back(std::move(s));
    }
    row_norm_.assign(M, 0.0);
    col_norm_.assign(N, 0.0);
    for (std::size_t i = 0; i < M; ++i) {
      double s = 0;
      for (std::size_t q = 0; q < K; ++q) s += static_cast<double>(a[i * K + q]) * a[i * K + q];
      row_norm_[i] = std::sqrt(s);
    }
    for (std::size_t q = 0; q < K; ++q) {
      for (std::size_t j = 0; j < N; ++j) col_norm_[j] += static_cast<double>(b[q * N + j]) * b[q * N + j];
    }
    for (double& x : col_norm_) x = std::sqrt(x);
  }

  const std::vector<int>& rows() const { return rows_; }
  const std::vector<int>& cols() const { return cols_; }
  double bound() const { return bound_; }

  // The sampled rows and columns of `got` (m x n, row-major) against the FP64 product.
  cudalab::CheckResult check_sampled(const std::vector<float>& got) const {
    cudalab::CheckResult r;
    const auto N = static_cast<std::size_t>(n_);
    for (std::size_t s = 0; s < rows_.size(); ++s) {
      const std::size_t i = static_cast<std::size_t>(rows_[s]);
      for (std::size_t j = 0; j < N; ++j) note(r, i * N + j, row_c_[s][j], row_abs_[s][j], got[i * N + j]);
    }
    for (std::size_t s = 0; s < cols_.size(); ++s) {
      const std::size_t j = static_cast<std::size_t>(cols_[s]);
      for (std::size_t i = 0; i < static_cast<std::size_t>(m_); ++i) {
        note(r, i * N + j, col_c_[s][i], col_abs_[s][i], got[i * N + j]);
      }
    }
    return r;
  }

  // Every element of `got` against `trusted` (a result that passed check_sampled).
  cudalab::CheckResult check_against(const std::vector<float>& got, const std::vector<float>& trusted) const {
    cudalab::CheckResult r;
    const auto N = static_cast<std::size_t>(n_);
    const double bound = 2.0 * bound_;
    r.checked = got.size();
    for (std::size_t i = 0; i < static_cast<std::size_t>(m_); ++i) {
      for (std::size_t j = 0; j < N; ++j) {
        const std::size_t e = i * N + j;
        if (!(std::fabs(static_cast<double>(got[e]) - trusted[e]) <= bound * row_norm_[i] * col_norm_[j] + 2.4e-38)) {
          cudalab::detail::record(r, e, trusted[e], got[e], cudalab::kMaxReportedMismatches);
        }
      }
    }
    return r;
  }

 private:
  // 0, n - 1 and up to lines - 2 evenly spaced indices between, each once.
  static std::vector<int> spread(int n, int lines) {
    std::set<int> s{0, n - 1};
    for (int t = 1; t + 1 < lines; ++t) s.insert(static_cast<int>(static_cast<long long>(n - 1) * t / (lines - 1)));
    return {s.begin(), s.end()};
  }
  void note(cudalab::CheckResult& r, std::size_t index, double exact, double abs, float got) const {
    ++r.checked;
    if (!within(exact, abs, got, bound_)) cudalab::detail::record(r, index, exact, got, cudalab::kMaxReportedMismatches);
  }
  int m_, n_, k_;
  double bound_;
  std::vector<int> rows_, cols_;
  std::vector<std::vector<double>> row_c_, row_abs_, col_c_, col_abs_;
  std::vector<double> row_norm_, col_norm_;
};

// ---- the reuse arithmetic --------------------------------------------------------------------

inline double flops(double m, double n, double k) { return 2.0 * m * n * k; }

// The fewest bytes a product must move: A and B read once, C written once.
inline double min_bytes(double m, double n, double k) { return 4.0 * (m * k + k * n + m * n); }

// The same for BF16 A and B (2 bytes an element) and an FP32 C: the Tensor Core rungs.
inline double min_bytes_bf16(double m, double n, double k) { return 2.0 * (m * k + k * n) + 4.0 * m * n; }

// Elements of A and B that a T x T-tiled schedule loads from global memory: each of the
// ceil(m/T) ceil(n/T) blocks loads a T x T tile of A and of B for each of ceil(k/T) steps. For a
// square N (a multiple of T) that is 2 N^3 / T: it still grows as N^3, divided by T, not O(N^2).
inline double tiled_global_loads(long long m, long long n, long long k, long long t) {
  auto tiles = [t](long long x) { return static_cast<double>((x + t - 1) / t); };
  return tiles(m) * tiles(n) * tiles(k) * 2.0 * static_cast<double>(t * t);
}

// The notes' arithmetic: a kernel that loads 4 bytes per FLOP (2 floats per FMA) runs at most at
// bandwidth / 4 FLOP/s ("150 GB/s bandwidth implies 37.5 GFLOP/s").
inline double flops_bound_by_bandwidth(double bytes_per_s, double bytes_per_flop) { return bytes_per_s / bytes_per_flop; }

// y = W x for a batch of b vectors (W: rows x cols): FLOPs per byte moved, W read once.
inline double batched_gemv_intensity(double rows, double cols, double batch) {
  return flops(rows, batch, cols) / min_bytes(rows, batch, cols);
}

// The batch at which that intensity reaches `ridge` (FLOP per byte), to 1 % (at most 10^6).
inline double predicted_knee(double rows, double cols, double ridge) {
  double knee = 1;
  while (knee < 1e6 && batched_gemv_intensity(rows, cols, knee) < ridge) knee *= 1.01;
  return knee;
}

// The knee of a time-over-batch curve (batches doubling, in order): the batch from which every
// doubling of the batch costs at least 1.25 x the time, i.e. where the time stops being flat and
// starts growing with the work. (Not the first rise: a library may change kernels between b = 1
// and 2.) 0 when the curve never rises so, or has fewer than two points.
inline int knee_of(const std::vector<std::pair<int, double>>& batch_ms) {
  int knee = 0;
  for (std::size_t i = batch_ms.size(); i-- > 1;) {
    if (batch_ms[i].second < 1.25 * batch_ms[i - 1].second) break;
    knee = batch_ms[i - 1].first;
  }
  return knee;
}

}  // namespace matmul
