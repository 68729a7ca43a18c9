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

}  // namespace rgba_split
