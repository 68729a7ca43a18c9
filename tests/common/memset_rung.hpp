// A "kernel" made of a memset for the variant driver's GPU tests (ladder_gpu_test.cpp and
// ladder_streams_gpu_test.cpp).
#pragma once

#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/ladder.hpp"

namespace cudalab_test {

// A "kernel" made of a memset: writes `value` to every byte of the buffer.
inline cudalab::Rung memset_rung(const std::string& name, cudalab::DeviceBuffer<unsigned char>& buf, int value,
                                 std::vector<std::string>& log) {
  cudalab::Rung r;
  r.name = name;
  r.bytes = static_cast<double>(buf.size());
  r.poison = [&buf, &log, name] {
    log.push_back("poison " + name);
    buf.fill_bytes(0xEE);
  };
  r.launch = [&buf, value] { CUDA_CHECK(cudaMemset(buf.data(), value, buf.size())); };
  r.check = [&buf, &log, name] {
    log.push_back("check " + name);
    for (unsigned char b : buf.download()) {
      if (b != 0x11) return false;
    }
    return true;
  };
  return r;
}

}  // namespace cudalab_test
