#pragma once
// The four output planes in device memory, as the executable and the tests use them: owned
// (RAII), poisoned before a launch so that an unwritten pixel fails the check, handed to
// launch() as a Planes view, and downloaded for the comparison with the CPU reference.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/device_buffer.hpp"
#include "reference.hpp"
#include "rgba_split.hpp"

namespace rgba_split {

class DevicePlanes {
 public:
  static constexpr unsigned char kPoison = 0xAB;

  explicit DevicePlanes(std::size_t bytes_per_plane) {
    for (auto& p : plane_) p = cudalab::DeviceBuffer<std::uint8_t>(bytes_per_plane);
  }

  void poison() {
    for (auto& p : plane_) p.fill_bytes(kPoison);
  }

  // The planes as launch() takes them, each starting `offset` bytes in (the tests use 1 to
  // break 16-byte alignment).
  Planes view(std::size_t offset = 0) {
    return {plane_[0].data() + offset, plane_[1].data() + offset, plane_[2].data() + offset,
            plane_[3].data() + offset};
  }

  // Copies `pixels` bytes of each plane, from `offset` on, into `out` (resized to fit).
  void download(HostPlanes& out, std::size_t pixels, std::size_t offset = 0) const {
    for (int c = 0; c < 4; ++c) {
      if (offset == 0) {
        out[c].resize(pixels);
        plane_[c].download(out[c].data(), pixels);
      } else {
        const std::vector<std::uint8_t> all = plane_[c].download();
        out[c].assign(all.begin() + static_cast<std::ptrdiff_t>(offset),
                      all.begin() + static_cast<std::ptrdiff_t>(offset + pixels));
      }
    }
  }

 private:
  cudalab::DeviceBuffer<std::uint8_t> plane_[4];
};

}  // namespace rgba_split
