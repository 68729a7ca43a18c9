#pragma once
// The attention lab's inputs, one formula for the CPU and the GPU: element i of a tensor made
// from `seed` is a uniform value in [-1, 1) drawn by a counter-based generator (splitmix64 of the
// seed and the index) and rounded to BF16. The GPU fills tensors of many GiB in milliseconds;
// the CPU computes the same values only for the heads it checks.
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define ATTENTION_HD __host__ __device__
#else
#define ATTENTION_HD
#endif

namespace attention {

ATTENTION_HD inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The BF16 bits of element i: 24 random bits make a float m 2^-23 - 1 in [-1, 1) (exact in FP32),
// rounded to BF16 to nearest even (no NaN or infinity can arise).
ATTENTION_HD inline std::uint16_t input_bits(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t r = splitmix64(seed * 0xD1B54A32D192ED03ull + i);
  const float x = static_cast<float>(r >> 40) * (1.0f / 8388608.0f) - 1.0f;
  std::uint32_t u = 0;
#if defined(__CUDA_ARCH__)
  u = __float_as_uint(x);
#else
  __builtin_memcpy(&u, &x, sizeof u);
#endif
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

}  // namespace attention
