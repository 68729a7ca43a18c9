#pragma once
// The CPU reference that the tests and the executable both check against.
#include <cstddef>
#include <cstdint>

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

}  // namespace rgba_split
