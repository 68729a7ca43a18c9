#pragma once
// The CPU reference that the tests and the executable both check against.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rgba_split {

inline void reference(const std::uint8_t* rgba, std::size_t pixels, std::uint8_t* r, std::uint8_t* g,
                      std::uint8_t* b, std::uint8_t* a) {
  for (std::size_t i = 0; i < pixels; ++i) {
    r[i] = rgba[4 * i + 0];
    g[i] = rgba[4 * i + 1];
    b[i] = rgba[4 * i + 2];
    a[i] = rgba[4 * i + 3];
  }
}

// Four planes on the host, in the order r, g, b, a.
using HostPlanes = std::array<std::vector<std::uint8_t>, 4>;

// The reference split of `pixels` pixels into four newly allocated planes.
inline HostPlanes reference_planes(const std::uint8_t* rgba, std::size_t pixels) {
  HostPlanes out;
  for (auto& p : out) p.resize(pixels);
  reference(rgba, pixels, out[0].data(), out[1].data(), out[2].data(), out[3].data());
  return out;
}

// Every byte plus `shift`, modulo 256: a timed launch's fresh image (InputSets::add_rotated), and
// its planes (the split moves bytes, so it commutes with any change of each byte).
inline std::vector<std::uint8_t> rotated(const std::vector<std::uint8_t>& v, std::uint64_t shift) {
  std::vector<std::uint8_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<std::uint8_t>((v[i] + shift) % 256);
  return out;
}

}  // namespace rgba_split
