#pragma once
// The 16-byte CUDA vector type of four elements, for kernels in any lab that load or store four
// elements at once (device code; include from .cu files): vec4_t<float> is float4, vec4_t<int>
// is int4, vec4_t<unsigned short> (four BF16's bits) is ushort4. vec16_t<T> is the 16-byte vector of T whatever its size: float4, int4, double2.
// A 16-byte access needs a 16-byte aligned address (cudaMalloc's are).
#include <cuda_runtime.h>

namespace cudalab {

template <typename T>
struct Vec4;
template <>
struct Vec4<float> {
  using type = float4;
};
template <>
struct Vec4<int> {
  using type = int4;
};
template <>
struct Vec4<unsigned short> {  // four BF16 (or FP16) as their bits: 8 bytes
  using type = ushort4;
};

template <typename T>
using vec4_t = typename Vec4<T>::type;

template <typename T>
struct Vec16 : Vec4<T> {};  // four 4-byte elements
template <>
struct Vec16<double> {
  using type = double2;
};

template <typename T>
using vec16_t = typename Vec16<T>::type;
static_assert(sizeof(vec16_t<float>) == 16 && sizeof(vec16_t<int>) == 16 && sizeof(vec16_t<double>) == 16);

}  // namespace cudalab
