#pragma once
// The attention lab's CPU side: the inputs of the heads it checks (inputs.hpp's formula), the
// FP64 answers of softmax and attention, the rows it checks, and the bounds a result must keep.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "attention.hpp"
#include "common/bf16.hpp"
#include "common/random.hpp"
#include "inputs.hpp"

namespace attention {

// The seeds of the tensors of one problem.
struct Seeds {
  std::uint64_t q, k, v;
  explicit Seeds(std::uint64_t seed) : q(seed * 3 + 1), k(seed * 3 + 2), v(seed * 3 + 3) {}
};

// Queries are the generator's values times 4 (exact in BF16): scores q.k / sqrt(d) then have a
// spread of about 1.3, so each row's softmax is peaked, neither uniform nor one-hot.
inline constexpr float kQueryScale = 4.0f;
// Softmax rows are the generator's values times 8 (exact): exp() spans e^-16 .. e^16 in a row.
inline constexpr float kSoftmaxScale = 8.0f;

inline float input_value(std::uint64_t seed, std::uint64_t i) { return cudalab::from_bf16_bits(input_bits(seed, i)); }

// Rows [first, first + count) of a [heads][tokens][d] tensor's head h, as floats.
inline std::vector<float> head_rows(std::uint64_t seed, int tokens, int d, int h, float scale = 1.0f) {
  std::vector<float> x(static_cast<std::size_t>(tokens) * d);
  const std::uint64_t base = static_cast<std::uint64_t>(h) * tokens * d;
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = scale * input_value(seed, base + i);
  return x;
}

// --- softmax -------------------------------------------------------------------------------

// The FP64 softmax of one row.
inline std::vector<double> softmax_row(const float* x, int cols) {
  double m = -INFINITY;
  for (int c = 0; c < cols; ++c) m = std::max(m, static_cast<double>(x[c]));
  std::vector<double> y(cols);
  double sum = 0;
  for (int c = 0; c < cols; ++c) sum += (y[c] = std::exp(static_cast<double>(x[c]) - m));
  for (auto& v : y) v /= sum;
  return y;
}

// How far an element of a softmax may be from the FP64 answer, relative to it: FP32 math (the
// difference x - max and its exp: a few units of 2^-24 times |x - max| <= 16, the row's sum:
// log2(cols) additions of a tree, the division), and the output's own rounding (2^-24 for FP32,
// BF16's 2^-8). A row that misses the rescaling of a running max, an element or a pass is off
// by far more.
inline double softmax_tolerance(Elem e, int cols) {
  const double u = 1.0 / 16777216.0;
  const double math = (48.0 + 4.0 * std::log2(static_cast<double>(cols) + 1)) * u;
  return math + (e == Elem::kBf16 ? cudalab::kBf16UnitRoundoff : u);
}

// The rows a check compares: all of a small problem (or all, drawn < 0); else the first two, the
// last two and `drawn` drawn from the seed.
inline std::vector<int> checked_rows(int rows, std::uint64_t seed, int drawn = 28) {
  std::set<int> r;
  if (drawn < 0 || rows <= drawn + 4) {
    for (int i = 0; i < rows; ++i) r.insert(i);
  } else {
    for (int i : {0, 1, rows - 2, rows - 1}) r.insert(i);
    const auto pick = cudalab::random_vector<std::uint32_t>(drawn, seed ^ 0x5EEDu, 0u, static_cast<std::uint32_t>(rows - 1));
    r.insert(pick.begin(), pick.end());
  }
  return {r.begin(), r.end()};
}

// --- attention -----------------------------------------------------------------------------

// One output row's answer and the scale of its error bound.
struct RowAnswer {
  std::vector<double> o;  // d values
  double weighted_abs_v = 0;  // sum_j p_j |v_j| per element, its largest over the d columns
};

// Query row q (d floats) of a head against keys and values (kv_len x d floats): keys 0 .. last
// (last = the query's own position for a causal prefill, kv_len - 1 otherwise).
inline RowAnswer attention_row(const float* q, const float* k, const float* v, int d, int last) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> s(last + 1);
  double m = -INFINITY;
  for (int j = 0; j <= last; ++j) {
    double dot = 0;
    for (int c = 0; c < d; ++c) dot += static_cast<double>(q[c]) * k[static_cast<std::size_t>(j) * d + c];
    s[j] = dot * scale;
    m = std::max(m, s[j]);
  }
  double sum = 0;
  for (auto& x : s) sum += (x = std::exp(x - m));
  RowAnswer a;
  a.o.assign(d, 0.0);
  std::vector<double> w(d, 0.0);
  for (int j = 0; j <= last; ++j) {
    const double p = s[j] / sum;
    for (int c = 0; c < d; ++c) {
      const double x = v[static_cast<std::size_t>(j) * d + c];
      a.o[c] += p * x;
      w[c] += p * std::fabs(x);
    }
  }
  a.weighted_abs_v = *std::max_element(w.begin(), w.end());
  return a;
}

// How far an element of O may be from the FP64 answer: its BF16 rounding (2^-8 |o|), P rounded to
// BF16 before P V (the Tensor Core rungs; 2^-8 sum p_j |v_j|), and the FP32 scores, exponentials
// and sums (2^-10 sum p_j |v_j|: the scores err by about 1e-5, far below it). A missed key tile,
// a wrong rescale or a wrong fragment is off by a sizeable share of sum p_j |v_j|.
inline double attention_bound(double want, double weighted_abs_v) {
  const double u = cudalab::kBf16UnitRoundoff;
  return u * std::fabs(want) + (u + u / 4) * weighted_abs_v + 1e-30;
}

// A problem's answers at the rows it checks: per checked head, its rows.
struct Answers {
  struct Row {
    int head, row;
    RowAnswer a;
  };
  std::vector<Row> rows;
};

// The heads a check covers: every head of a small problem, else the first, the last and two drawn.
inline std::vector<int> checked_heads(int heads, std::uint64_t seed) {
  std::set<int> h;
  if (heads <= 4) {
    for (int i = 0; i < heads; ++i) h.insert(i);
  } else {
    h.insert(0);
    h.insert(heads - 1);
    const auto pick = cudalab::random_vector<std::uint32_t>(2, seed ^ 0xBEEFu, 0u, static_cast<std::uint32_t>(heads - 1));
    h.insert(pick.begin(), pick.end());
  }
  return {h.begin(), h.end()};
}

// The answers of a shape at its checked heads and rows (decode: the one query row of each).
// `drawn`: the rows drawn per head beyond the first and last two (-1: every row).
inline Answers attention_answers(const Shape& s, const Seeds& seeds, int drawn = 12) {
  Answers out;
  for (int h : checked_heads(s.heads, seeds.q)) {
    const auto q = head_rows(seeds.q, s.q_len, s.d, h, kQueryScale);
    const auto k = head_rows(seeds.k, s.kv_len, s.d, h);
    const auto v = head_rows(seeds.v, s.kv_len, s.d, h);
    for (int r : checked_rows(s.q_len, seeds.q + static_cast<std::uint64_t>(h), drawn)) {
      const int last = s.causal ? r + (s.kv_len - s.q_len) : s.kv_len - 1;
      out.rows.push_back({h, r, attention_row(q.data() + static_cast<std::size_t>(r) * s.d, k.data(), v.data(), s.d, last)});
    }
  }
  return out;
}

// The index of the first element of O (BF16 bits, the whole [heads][q_len][d] tensor) outside its
// bound at the checked rows, or -1; the first few mismatches on stderr as "<lab>: <what> is wrong".
inline long long first_mismatch(const Answers& want, const std::vector<std::uint16_t>& o, const Shape& s,
                                const std::string& what) {
  long long first = -1;
  int shown = 0;
  for (const auto& r : want.rows) {
    for (int c = 0; c < s.d; ++c) {
      const std::size_t i = (static_cast<std::size_t>(r.head) * s.q_len + r.row) * s.d + c;
      const double got = cudalab::from_bf16_bits(o[i]);
      const double bound = attention_bound(r.a.o[c], r.a.weighted_abs_v);
      if (!(std::fabs(got - r.a.o[c]) <= bound)) {
        if (first < 0) first = static_cast<long long>(i);
        if (shown++ < 3) {
          std::fprintf(stderr, "attention: %s is wrong: head %d row %d col %d: got %.6g, want %.6g (bound %.3g)\n",
                       what.c_str(), r.head, r.row, c, got, r.a.o[c], bound);
        }
      }
    }
  }
  return first;
}

// FLOPs of attention: 2 q_len kv_len d for Q K^T and as many for P V, about half of each for a
// causal prefill (the keys a query sees: (q_len + 1) / 2 of kv_len on average).
inline double attention_flops(const Shape& s) {
  const double pairs = s.causal ? static_cast<double>(s.q_len) * (s.q_len + 1) / 2.0 + static_cast<double>(s.q_len) * (s.kv_len - s.q_len)
                                : static_cast<double>(s.q_len) * s.kv_len;
  return 4.0 * pairs * s.d * s.heads;
}

// Bytes a fused kernel must move at least: Q, K and V read once, O written once (BF16).
inline double attention_bytes(const Shape& s) {
  return 2.0 * s.heads * s.d * (2.0 * s.q_len + 2.0 * s.kv_len);
}

}  // namespace attention
