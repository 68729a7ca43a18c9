#pragma once
// The CPU reference that the tests and the executable both check against.
#include <cstddef>

namespace vec_add {

template <typename T>
void reference(const T* a, const T* b, T* c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

}  // namespace vec_add
