// InputSets::add_scaled's and add_rotated's device half: repetition rep's inputs are the base
// inputs times fresh_multiplier(rep), or the base keys plus fresh_rotation(rep, range) modulo
// range, or the base float keys with their exponents shifted by fresh_exponent_shift(rep)
// (common/ladder.hpp), written outside the timing.
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

// BF16 (its 16 bits) times a power of two: widened to FP32, multiplied, and its top 16 bits kept,
// exact while the product stays normal (no rounding is needed).
__global__ void scale_bf16_kernel(const std::uint16_t* __restrict__ base, std::uint16_t* __restrict__ out, std::size_t n,
                                  float m) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float x = __uint_as_float(static_cast<unsigned>(base[i]) << 16) * m;
    out[i] = static_cast<std::uint16_t>(__float_as_uint(x) >> 16);
  }
}

template <typename K>
__global__ void rotate_kernel(const K* __restrict__ base, K* __restrict__ out, std::size_t n, std::uint64_t shift,
                              std::uint64_t range) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = static_cast<K>((static_cast<std::uint64_t>(base[i]) + shift) % range);
  }
}

__global__ void shift_exponent_kernel(const std::uint32_t* __restrict__ base, std::uint32_t* __restrict__ out,
                                      std::size_t n, int k) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    out[i] = shift_exponent(base[i], k);
  }
}

template <typename T>
__global__ void rotate_rows_kernel(const T* __restrict__ base, T* __restrict__ out, std::size_t n, std::size_t cols,
                                   std::size_t shift) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t row = i / cols, col = i % cols;
    out[i] = base[row * cols + (col + shift) % cols];
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

std::uint64_t fresh_rotation(int rep, std::uint64_t range) {
  if (rep < 0 || range < 2) return 0;
  const std::uint64_t h = (range / 2) % 2 ? range / 2 : range / 2 + 1;
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(rep) + 1) * h % range);
}

int fresh_exponent_shift(int rep) {
  if (rep < 0) return 0;
  const int k = rep % 40 - 20;  // -20 .. 19
  return k >= 0 ? k + 1 : k;    // -20 .. -1, 1 .. 20
}

std::int32_t InputSets::scale(std::int32_t base_answer) const {
  if (!scaled_) return base_answer;
  const std::uint32_t wrapped =
      static_cast<std::uint32_t>(base_answer) * static_cast<std::uint32_t>(fresh_int_multiplier(current_));
  std::int32_t out;
  std::memcpy(&out, &wrapped, sizeof out);
  return out;
}

void InputSets::add_scaled(void* device, std::size_t count, Element e, std::uint64_t range) {
  if (!inputs_.empty() && !scaled_) throw std::invalid_argument("InputSets: two sets and scaled inputs do not mix");
  if ((e == Element::kU8 || e == Element::kU32) &&
      (range == 0 || range > (e == Element::kU8 ? std::uint64_t{1} << 8 : std::uint64_t{1} << 32))) {
    throw std::invalid_argument("InputSets::add_rotated: the range must be 1 .. 2^(bits of a key)");
  }
  scaled_ = true;
  current_ = -1;
  const std::size_t bytes =
      count * (e == Element::kF64 ? 8 : e == Element::kU8 ? 1 : e == Element::kBF16 || e == Element::kRows16 ? 2 : 4);
  Input in{device, bytes, {DeviceBuffer<unsigned char>(bytes), DeviceBuffer<unsigned char>(0)}, count, e, range};
  CUDA_CHECK(cudaMemcpy(in.sets[0].data(), device, bytes, cudaMemcpyDeviceToDevice));
  inputs_.push_back(std::move(in));
}

void InputSets::add_row_rotated(void* device, std::size_t rows, std::size_t cols, std::size_t element_bytes) {
  if (element_bytes != 2 && element_bytes != 4) throw std::invalid_argument("InputSets::add_row_rotated: elements of 2 or 4 bytes");
  if (cols == 0 && rows != 0) throw std::invalid_argument("InputSets::add_row_rotated: rows of no columns");
  add_scaled(device, rows * cols, element_bytes == 2 ? Element::kRows16 : Element::kRows32, cols);
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
      case Element::kBF16:
        scale_bf16_kernel<<<grid, 256>>>(reinterpret_cast<const std::uint16_t*>(in.sets[0].data()),
                                         static_cast<std::uint16_t*>(in.device), in.count, static_cast<float>(fresh_multiplier(rep)));
        break;
      case Element::kU8:
        rotate_kernel<<<grid, 256>>>(in.sets[0].data(), static_cast<unsigned char*>(in.device), in.count,
                                     fresh_rotation(rep, in.range), in.range);
        break;
      case Element::kF32Bits:
        shift_exponent_kernel<<<grid, 256>>>(reinterpret_cast<const std::uint32_t*>(in.sets[0].data()),
                                             static_cast<std::uint32_t*>(in.device), in.count, fresh_exponent_shift(rep));
        break;
      case Element::kRows16:
        rotate_rows_kernel<<<grid, 256>>>(reinterpret_cast<const std::uint16_t*>(in.sets[0].data()),
                                          static_cast<std::uint16_t*>(in.device), in.count, static_cast<std::size_t>(in.range),
                                          static_cast<std::size_t>(fresh_rotation(rep, in.range)));
        break;
      case Element::kRows32:
        rotate_rows_kernel<<<grid, 256>>>(reinterpret_cast<const std::uint32_t*>(in.sets[0].data()),
                                          static_cast<std::uint32_t*>(in.device), in.count, static_cast<std::size_t>(in.range),
                                          static_cast<std::size_t>(fresh_rotation(rep, in.range)));
        break;
      case Element::kU32:
        rotate_kernel<<<grid, 256>>>(reinterpret_cast<const unsigned*>(in.sets[0].data()), static_cast<unsigned*>(in.device),
                                     in.count, fresh_rotation(rep, in.range), in.range);
        break;
    }
    CUDA_CHECK_LAUNCH("InputSets scale");
  }
  current_ = rep;
}

}  // namespace cudalab
