#pragma once
// coalescing: the CPU references, and the arithmetic of sectors: which 32-byte sectors one
// warp-wide request touches, hence the bytes the memory system moves for the bytes asked for.
#include <cmath>
#include <cstddef>
#include <set>
#include <vector>

#include "coalescing.hpp"

namespace coalescing {

inline constexpr std::size_t kSectorBytes = 32;
inline constexpr std::size_t kLineBytes = 128;

// The distinct 32-byte sectors of 32 lanes reading 4-byte elements at byte addresses
// base + lane * step_bytes.
inline std::size_t sectors_per_request(std::size_t base_bytes, std::size_t step_bytes) {
  std::set<std::size_t> sectors;
  for (std::size_t lane = 0; lane < 32; ++lane) {
    const std::size_t first = base_bytes + lane * step_bytes;
    sectors.insert(first / kSectorBytes);
    sectors.insert((first + 3) / kSectorBytes);
  }
  return sectors.size();
}

// Bytes moved per useful byte of a warp's read (1 when every byte of every sector is used).
inline double read_amplification(std::size_t base_bytes, std::size_t step_bytes) {
  return static_cast<double>(sectors_per_request(base_bytes, step_bytes) * kSectorBytes) / (32.0 * 4.0);
}

// Bytes one launch moves through DRAM at best: the sectors its reads touch plus its writes
// (always coalesced here), for the stride experiment.
inline double stride_bytes_moved(std::size_t n, int stride) {
  const double per_warp_read = static_cast<double>(sectors_per_request(0, 4 * static_cast<std::size_t>(stride)) * kSectorBytes);
  return per_warp_read * static_cast<double>(n) / 32.0 + 4.0 * static_cast<double>(n);
}

inline std::vector<float> make_input(std::size_t n) {
  std::vector<float> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 4099) * 0.5f;
  return in;
}

inline std::vector<float> reference_stride(const std::vector<float>& in, std::size_t n, int stride) {
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = in[i * static_cast<std::size_t>(stride)];
  return out;
}

inline std::vector<float> reference_offset(const std::vector<float>& in, std::size_t n, int offset) {
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = in[i + static_cast<std::size_t>(offset)];
  return out;
}

inline std::vector<Particle> make_particles(std::size_t n) {
  std::vector<Particle> p(n);
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = Particle{static_cast<float>(i % 1000), static_cast<float>(i % 7), static_cast<float>(i % 13) - 6.0f, 1.0f};
  }
  return p;
}

// The update both layouts compute: x + vx * dt as one fused multiply-add, as the kernels do.
inline float moved(float x, float vx, float dt) { return std::fma(vx, dt, x); }

inline std::vector<float> reference_scale_2d(const std::vector<float>& in) {
  std::vector<float> out(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = 2.0f * in[i];
  return out;
}

}  // namespace coalescing
