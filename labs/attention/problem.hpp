#pragma once
// The attention lab's problems, each stated once for its variants (common/driver.hpp): inputs
// made on the GPU from the seed (inputs.hpp) and the CPU's answers at the rows it checks, the
// bytes a launch must move and the FLOPs it does, the poisoned output, the check, and fresh inputs
// for every timed launch that catch a replayed or cached result (softmax: each row rotated by
// another number of columns, so its answer is the base's rotated alike; attention: V times ±2^k,
// so O is the base's O times the same, exactly). Each check also reads the whole output: every softmax row sums to 1
// and every element of O is finite and no larger than the largest |v| (a convex combination of
// V's rows), so a row left unwritten is caught wherever it is.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "attention.hpp"
#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/variants.hpp"
#include "reference.hpp"

namespace attention {

class SoftmaxProblem {
 public:
  // drawn: rows compared with the CPU beyond the first and last two (-1: all; the tests).
  SoftmaxProblem(int rows, int cols, Elem e, std::uint64_t seed, cudalab::Replays replays, int drawn = 28)
      : rows_(rows), cols_(cols), e_(e), n_(static_cast<std::size_t>(rows) * cols), x_(n_ * elem_bytes(e)),
        y_(n_ * elem_bytes(e)), checked_(checked_rows(rows, seed, drawn)) {
    fill(x_.data(), seed, kSoftmaxScale);
    want_ = answers(seed, kSoftmaxScale);
    if (replays == cudalab::Replays::kCaught) {
      sets_ = std::make_unique<cudalab::InputSets>();
      sets_->add_row_rotated(x_.data(), static_cast<std::size_t>(rows), static_cast<std::size_t>(cols), elem_bytes(e));
    }
  }
  SoftmaxProblem(const SoftmaxProblem&) = delete;  // its rungs hold references to it
  SoftmaxProblem& operator=(const SoftmaxProblem&) = delete;

  // Device memory a problem of rows x cols takes at most: x, y and the base rows InputSets keeps
  // (FP32, the larger element).
  static double device_bytes(int rows, int cols) { return 3.0 * 4.0 * rows * static_cast<double>(cols); }
  double bytes() const { return 2.0 * static_cast<double>(n_ * elem_bytes(e_)); }
  double flops() const { return 0; }
  void poison() { y_.fill_bytes(0xFF); }
  cudalab::InputSets* replay_sets() { return sets_.get(); }
  unsigned char* output_bytes() { return y_.data(); }  // the tests' way to spoil a row
  bool check(const std::string& variant) const {
    const std::vector<float> y = output();
    // the inputs now: each row the base's rotated left by `shift` columns, and so its answer
    const std::size_t shift = sets_ ? static_cast<std::size_t>(sets_->rotation(static_cast<std::uint64_t>(cols_))) : 0;
    const double tol = softmax_tolerance(e_, cols_);
    for (std::size_t i = 0; i < checked_.size(); ++i) {
      const std::size_t base = static_cast<std::size_t>(checked_[i]) * cols_;
      for (int c = 0; c < cols_; ++c) {
        const double w = want_[i][(static_cast<std::size_t>(c) + shift) % static_cast<std::size_t>(cols_)], got = y[base + c];
        if (!(std::fabs(got - w) <= tol * w)) {
          std::fprintf(stderr, "attention: %s is wrong: row %d col %d: got %.8g, want %.8g\n", variant.c_str(),
                       checked_[i], c, got, w);
          return false;
        }
      }
    }
    // Every row: elements in [0, 1] that sum to 1 within the rounding of cols outputs.
    const double sum_tol = cols_ * tol + 1e-6;
    for (int r = 0; r < rows_; ++r) {
      double sum = 0;
      for (int c = 0; c < cols_; ++c) {
        const float v = y[static_cast<std::size_t>(r) * cols_ + c];
        if (!(v >= 0.0f && v <= 1.0f)) {
          std::fprintf(stderr, "attention: %s is wrong: row %d col %d is %g, not a probability\n", variant.c_str(), r, c, v);
          return false;
        }
        sum += v;
      }
      if (!(std::fabs(sum - 1.0) <= sum_tol)) {
        std::fprintf(stderr, "attention: %s is wrong: row %d sums to %.8g, not 1\n", variant.c_str(), r, sum);
        return false;
      }
    }
    return true;
  }

  std::vector<cudalab::Rung> rungs(const std::vector<Variant>& chosen) {
    std::vector<cudalab::Rung> out;
    for (Variant v : chosen) {
      if (kind_of(v) != Kind::kSoftmax) continue;
      out.push_back(cudalab::problem_rung(*this, variant_name(v), [this, v] {
        softmax(v, e_, x_.data(), y_.data(), rows_, cols_);
      }));
    }
    return out;
  }

 private:
  void fill(unsigned char* at, std::uint64_t seed, float scale) {
    if (e_ == Elem::kF32) {
      fill_inputs(reinterpret_cast<float*>(at), n_, seed, scale);
    } else {
      fill_inputs(reinterpret_cast<std::uint16_t*>(at), n_, seed, scale);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<std::vector<double>> answers(std::uint64_t seed, float scale) const {
    std::vector<std::vector<double>> out;
    std::vector<float> row(cols_);
    for (int r : checked_) {
      for (int c = 0; c < cols_; ++c) row[c] = scale * input_value(seed, static_cast<std::uint64_t>(r) * cols_ + c);
      out.push_back(softmax_row(row.data(), cols_));
    }
    return out;
  }
  std::vector<float> output() const {
    std::vector<float> y(n_);
    if (e_ == Elem::kF32) {
      CUDA_CHECK(cudaMemcpy(y.data(), y_.data(), n_ * sizeof(float), cudaMemcpyDeviceToHost));
    } else {
      std::vector<std::uint16_t> bits(n_);
      CUDA_CHECK(cudaMemcpy(bits.data(), y_.data(), n_ * sizeof(std::uint16_t), cudaMemcpyDeviceToHost));
      for (std::size_t i = 0; i < n_; ++i) y[i] = cudalab::from_bf16_bits(bits[i]);
    }
    return y;
  }

  int rows_, cols_;
  Elem e_;
  std::size_t n_;
  cudalab::DeviceBuffer<unsigned char> x_, y_;
  std::vector<int> checked_;
  std::vector<std::vector<double>> want_;  // the base rows' answers at checked_
  std::unique_ptr<cudalab::InputSets> sets_;
};

// Prefill (q_len == kv_len) or decode (q_len == 1): Q, K and V made on the GPU, O checked.
class AttentionProblem {
 public:
  // drawn: the rows checked per head beyond the first and last two (-1: all; the tests).
  AttentionProblem(Kind kind, const Shape& s, std::uint64_t seed, cudalab::Replays replays, bool with_unfused,
                   int drawn = 12)
      : kind_(kind), s_(s), seeds_(seed), q_(count(s.q_len)), k_(count(s.kv_len)), v_(count(s.kv_len)), o_(count(s.q_len)),
        ws_(s.heads, s.d, kind == Kind::kDecode ? decode_splits(s, cudalab::launch_limits().sms) : 1) {
    fill_inputs(q_.data(), q_.size(), seeds_.q, kQueryScale);
    fill_inputs(k_.data(), k_.size(), seeds_.k, 1.0f);
    fill_inputs(v_.data(), v_.size(), seeds_.v, 1.0f);
    CUDA_CHECK(cudaDeviceSynchronize());
    want_ = attention_answers(s, seeds_, drawn);
    if (replays == cudalab::Replays::kCaught) {
      sets_ = std::make_unique<cudalab::InputSets>();
      sets_->add_scaled_bf16(v_);
    }
    if (with_unfused) unfused_ = std::make_unique<Unfused>(s);
  }
  AttentionProblem(const AttentionProblem&) = delete;
  AttentionProblem& operator=(const AttentionProblem&) = delete;

  // Device memory a problem takes at most: Q and O; K, V and the base V InputSets keeps; the
  // unfused path's scores and probabilities.
  static double device_bytes(const Shape& s, bool with_unfused) {
    return 2.0 * s.heads * s.d * (2.0 * s.q_len + 3.0 * s.kv_len) + (with_unfused ? Unfused::scratch_bytes(s) : 0.0);
  }
  const Shape& shape() const { return s_; }
  double bytes() const { return attention_bytes(s_); }
  double flops() const { return attention_flops(s_); }
  void poison() { o_.fill_bytes(0xFF); }
  cudalab::InputSets* replay_sets() { return sets_.get(); }
  bool check(const std::string& variant) const {
    // O as the base V would give it: V is the base's times m now (a power of two), and so is O
    // (exactly, in BF16 too): divided back, the answers and the bound below are the base's.
    std::vector<std::uint16_t> o = o_.download();
    const double m = sets_ ? sets_->scale(1.0) : 1.0;
    if (m != 1.0) {
      for (auto& bits : o) bits = cudalab::to_bf16_bits(static_cast<float>(cudalab::from_bf16_bits(bits) / m));
    }
    for (std::size_t i = 0; i < o.size(); ++i) {
      const float x = cudalab::from_bf16_bits(o[i]);
      if (!(std::fabs(x) <= 1.0f)) {  // NaN (the poison) fails too
        const std::size_t row = i / s_.d;
        std::fprintf(stderr, "attention: %s is wrong: head %zu row %zu col %zu is %g (|o| <= max |v| = 1)\n",
                     variant.c_str(), row / s_.q_len, row % s_.q_len, i % s_.d, x);
        return false;
      }
    }
    return first_mismatch(want_, o, s_, variant) < 0;
  }
  // The elements the check compares with the CPU (the rest: bounded and finite).
  std::size_t checked() const { return want_.rows.size() * static_cast<std::size_t>(s_.d); }

  std::vector<cudalab::Rung> rungs(const std::vector<Variant>& chosen) {
    std::vector<cudalab::Rung> out;
    for (Variant v : chosen) {
      if (kind_of(v) != kind_) continue;
      out.push_back(cudalab::problem_rung(*this, variant_name(v), [this, v] {
        attend(v, s_, q_.data(), k_.data(), v_.data(), o_.data(), &ws_);
      }));
    }
    if (unfused_) {
      out.push_back(cudalab::baseline_rung(*this, "unfused (cuBLAS, softmax, cuBLAS)", [this] {
        unfused_->run(q_.data(), k_.data(), v_.data(), o_.data());
      }));
    }
    return out;
  }

 private:
  std::size_t count(int tokens) const { return static_cast<std::size_t>(s_.heads) * tokens * s_.d; }

  Kind kind_;
  Shape s_;
  Seeds seeds_;
  cudalab::DeviceBuffer<std::uint16_t> q_, k_, v_, o_;
  DecodeWorkspace ws_;
  Answers want_;  // the base inputs' answers
  std::unique_ptr<cudalab::InputSets> sets_;
  std::unique_ptr<Unfused> unfused_;
};

// Before any section runs: the device memory of each section asked for (the prefill's with the
// unfused path's scores when `unfused`), and the host memory the softmax's check reads back.
inline void require_memory(bool softmax, bool prefill, bool decode, int rows, int cols, const Shape& prefill_shape,
                           const Shape& decode_shape, bool unfused) {
  if (softmax) {
    cudalab::require_device_memory(SoftmaxProblem::device_bytes(rows, cols), "the softmax rows");
    cudalab::require_host_memory(8.0 * rows * cols, "the softmax output read back");
  }
  if (prefill) {
    cudalab::require_device_memory(AttentionProblem::device_bytes(prefill_shape, unfused),
                                   "a prefill of " + std::to_string(prefill_shape.heads) + " heads x " +
                                       std::to_string(prefill_shape.q_len) + " tokens");
  }
  if (decode) {
    cudalab::require_device_memory(AttentionProblem::device_bytes(decode_shape, false),
                                   "a KV cache of " + std::to_string(decode_shape.heads) + " heads x " +
                                       std::to_string(decode_shape.kv_len) + " tokens");
  }
}

}  // namespace attention
