#pragma once
// roofline: the CPU references (the dial's function, exp, the integer and FMA kernels, RMSNorm in
// BF16), the BF16 and ulp arithmetic, and the model: bound = min(P, AI * B), the ridge P / B.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace roofline {

// f_k of the dial, in the kernel's operations and order: up to 8 chains start at x + c, each
// takes k / chains fmas (v = v * 0.999 + 0.001), and the chains are summed in order.
template <typename T>
T dial_reference(T x, int k) {
  const int chains = std::min(k, 8);
  T acc[8];
  for (int c = 0; c < 8; ++c) acc[c] = x + static_cast<T>(c);
  for (int r = 0; r < k / chains; ++r) {
    for (int c = 0; c < chains; ++c) acc[c] = std::fma(acc[c], static_cast<T>(0.999), static_cast<T>(0.001));
  }
  T s = 0;
  for (int c = 0; c < chains; ++c) s += acc[c];
  return s;
}

// FLOP and bytes of one dial element: 2 per fma, one load and one store of T.
template <typename T>
double dial_intensity(int k) {
  return 2.0 * k / (2.0 * sizeof(T));
}

// The roofline: what a kernel of intensity `ai` (FLOP/byte) can reach under a compute roof of
// `peak` FLOP/s and a memory roof of `bandwidth` bytes/s.
inline double roof(double ai, double peak, double bandwidth) { return std::min(peak, ai * bandwidth); }
inline double ridge(double peak, double bandwidth) { return peak / bandwidth; }

// The first intensity (of ascending ones) whose measured FLOP/s reaches `share` of the peak; -1 if none.
inline double bend(const std::vector<double>& ai, const std::vector<double>& flops, double peak, double share) {
  for (std::size_t i = 0; i < ai.size() && i < flops.size(); ++i) {
    if (flops[i] >= share * peak) return ai[i];
  }
  return -1;
}

// Distance in units in the last place between two finite floats of the same sign or zero.
inline std::int64_t ulp_distance(float a, float b) {
  std::int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = std::numeric_limits<std::int32_t>::min() - ia;
  if (ib < 0) ib = std::numeric_limits<std::int32_t>::min() - ib;
  return std::llabs(static_cast<std::int64_t>(ia) - static_cast<std::int64_t>(ib));
}

// exp of a float, correctly rounded (through double): the yardstick of the GPU's three exps.
inline float exp_reference(float x) { return static_cast<float>(std::exp(static_cast<double>(x))); }

inline std::uint32_t div_reference(std::uint32_t x, std::uint32_t d, int reps) {
  std::uint32_t acc = 0;
  for (int r = 0; r < reps; ++r) {
    const std::uint32_t v = x + static_cast<std::uint32_t>(r);
    acc += v / d + v % d;
  }
  return acc;
}

// a * b + c rounded once (fused) or twice (the product first).
inline float mul_add_reference(bool fused, float a, float b, float c) {
  if (fused) return std::fma(a, b, c);
  volatile float product = a * b;  // volatile: no contraction into an fma
  return product + c;
}

// BF16: the upper 16 bits of a float, rounded to nearest even.
inline float bf16_to_float(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline std::uint16_t float_to_bf16(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);  // NaN stays NaN
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>(bits >> 16);
}

// RMSNorm of each row, in double, rounded to BF16 at the end.
inline std::vector<std::uint16_t> rmsnorm_reference(const std::vector<std::uint16_t>& x, const std::vector<std::uint16_t>& w,
                                                    int rows, int cols, float eps) {
  std::vector<std::uint16_t> y(x.size());
  for (int r = 0; r < rows; ++r) {
    const std::size_t base = static_cast<std::size_t>(r) * cols;
    double sum = 0;
    for (int c = 0; c < cols; ++c) {
      const double v = bf16_to_float(x[base + c]);
      sum += v * v;
    }
    const double scale = 1.0 / std::sqrt(sum / cols + eps);
    for (int c = 0; c < cols; ++c) {
      y[base + c] = float_to_bf16(static_cast<float>(bf16_to_float(x[base + c]) * scale * bf16_to_float(w[c])));
    }
  }
  return y;
}

// Bytes RMSNorm must move: x in, y out, w once.
inline double rmsnorm_bytes(int rows, int cols) {
  return 2.0 * 2.0 * rows * static_cast<double>(cols) + 2.0 * cols;
}
// The unfused version: one kernel computes each row's scale (reads x, writes a float per row),
// a second reads x and the scales again and writes y.
inline double rmsnorm_unfused_bytes(int rows, int cols) {
  return 3.0 * 2.0 * rows * static_cast<double>(cols) + 2.0 * cols + 2.0 * 4.0 * rows;
}

}  // namespace roofline
