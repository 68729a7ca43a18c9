// InputSets::add_scaled's device half: repetition rep's inputs are the base inputs times
// fresh_multiplier(rep) (common/ladder.hpp), written outside the timing.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "common/ladder.hpp"

namespace cudalab {

namespace {

template <typename T, typename M>
__global__ void scale_kernel(const T* __restrict__ base, T* __restrict__ out, std::size_t n, M m) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if constexpr (sizeof(M) == 4 && !std::is_floating_point_v<M>) {
      out[i] = static_cast<T>(static_cast<std::uint32_t>(base[i]) * static_cast<std::uint32_t>(m));  // wraps mod 2^32
    } else {
      out[i] = static_cast<T>(base[i] * m);
    }
  }
}

unsigned grid_for(std::size_t n) {
  return static_cast<unsigned>(std::min<std::size_t>((n + 255) / 256, 65535));
}

}  // namespace

double fresh_multiplier(int rep) {
  if (rep < 0) return 1.0;
  const int k = (rep / 2) % 41 - 20;
  return (rep % 2 ? -1.0 : 1.0) * std::ldexp(1.0, k);
}

std::int32_t fresh_int_multiplier(int rep) {
  if (rep < 0) return 1;
  const auto odd = static_cast<std::int32_t>(2 * static_cast<std::int64_t>(rep % 1000000000) + 3);
  return rep % 2 ? -odd : odd;
}

std::int32_t InputSets::scale(std::int32_t base_answer) const {
  if (!scaled_) return base_answer;
  const std::uint32_t wrapped =
      static_cast<std::uint32_t>(base_answer) * static_cast<std::uint32_t>(fresh_int_multiplier(current_));
  std::int32_t out;
  std::memcpy(&out, &wrapped, sizeof out);
  return out;
}

void InputSets::add_scaled(void* device, std::size_t count, Element e) {
  if (!inputs_.empty() && !scaled_) throw std::invalid_argument("InputSets: two sets and scaled inputs do not mix");
  scaled_ = true;
  current_ = -1;
  const std::size_t bytes = count * (e == Element::kF64 ? 8 : 4);
  Input in{device, bytes, {DeviceBuffer<unsigned char>(bytes), DeviceBuffer<unsigned char>(0)}, count, e};
  CUDA_CHECK(cudaMemcpy(in.sets[0].data(), device, bytes, cudaMemcpyDeviceToDevice));
  inputs_.push_back(std::move(in));
}

void InputSets::use_rep(int rep) {
  if (!scaled_) throw std::logic_error("InputSets::use_rep: the inputs are two sets, not scaled");
  if (rep == current_) return;
  for (auto& in : inputs_) {
    const unsigned grid = grid_for(in.count);
    if (in.count == 0) continue;
    switch (in.element) {
      case Element::kF32:
        scale_kernel<<<grid, 256>>>(reinterpret_cast<const float*>(in.sets[0].data()), static_cast<float*>(in.device),
                                    in.count, static_cast<float>(fresh_multiplier(rep)));
        break;
      case Element::kF64:
        scale_kernel<<<grid, 256>>>(reinterpret_cast<const double*>(in.sets[0].data()), static_cast<double*>(in.device),
                                    in.count, fresh_multiplier(rep));
        break;
      case Element::kI32:
        scale_kernel<<<grid, 256>>>(reinterpret_cast<const int*>(in.sets[0].data()), static_cast<int*>(in.device), in.count,
                                    fresh_int_multiplier(rep));
        break;
    }
    CUDA_CHECK_LAUNCH("InputSets scale");
  }
  current_ = rep;
}

}  // namespace cudalab
