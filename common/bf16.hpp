#pragma once
// BF16 on the host: a float rounded to BF16 (its top 16 bits, round to nearest even) and widened
// back, for the labs whose kernels read BF16 (matmul's Tensor Core rungs, attention). The CPU
// references compute with the widened values: what a BF16 kernel really multiplies.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace cudalab {

// BF16's unit roundoff: 8 significand bits, round to nearest.
inline constexpr double kBf16UnitRoundoff = 1.0 / 256.0;

// float -> BF16 (the top 16 bits) with round to nearest even, and back; NaN stays NaN.
inline std::uint16_t to_bf16_bits(float x) {
  std::uint32_t u = 0;
  std::memcpy(&u, &x, sizeof u);
  if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x007FFFFFu) != 0) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}
inline float from_bf16_bits(std::uint16_t h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
  float x = 0;
  std::memcpy(&x, &u, sizeof x);
  return x;
}
// Every element rounded to BF16 and widened again: the values a BF16 kernel really multiplies.
inline std::vector<float> rounded_to_bf16(const std::vector<float>& x) {
  std::vector<float> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) r[i] = from_bf16_bits(to_bf16_bits(x[i]));
  return r;
}
inline std::vector<std::uint16_t> bf16_bits_of(const std::vector<float>& x) {
  std::vector<std::uint16_t> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) r[i] = to_bf16_bits(x[i]);
  return r;
}

}  // namespace cudalab
