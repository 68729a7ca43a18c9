#pragma once
// transpose: the CPU reference, the inputs, and the bank arithmetic the microbenchmark must follow.
#include <cstddef>
#include <vector>

#include "common/banks.hpp"
#include "transpose.hpp"

namespace transpose {

inline std::vector<float> reference(const std::vector<float>& in, std::size_t rows, std::size_t cols) {
  std::vector<float> out(rows * cols);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) out[c * rows + r] = in[r * cols + c];
  }
  return out;
}

// Distinct values (exact in float up to 2^24 elements, then repeating): a transposed element in
// the wrong place shows.
inline std::vector<float> make_input(std::size_t rows, std::size_t cols) {
  std::vector<float> in(rows * cols);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % (std::size_t{1} << 24));
  return in;
}

// The conflict degree a warp's request of this case has (banks.hpp): what the cycles must follow.
inline int predicted_degree(const BankCase& c) {
  std::vector<std::size_t> bytes;
  for (int t = 0; t < 32; ++t) {
    const std::size_t off = bank_case_offset(c, t);
    bytes.push_back(c.pattern == BankPattern::kBytes ? off : off * cudalab::kBankWordBytes);
  }
  return cudalab::conflict_degree(bytes);
}

// The conflict degree of reading one column of a shared tile by a warp (lane t reads row t):
// width 32 (the plain tile), 33 (padded), or 32 with the column XOR-swizzled by the row.
inline int tile_column_degree(int width, bool swizzled, int column) {
  std::vector<std::size_t> bytes;
  for (int t = 0; t < 32; ++t) {
    const int col = swizzled ? (column ^ t) : column;
    bytes.push_back(static_cast<std::size_t>(t * width + col) * cudalab::kBankWordBytes);
  }
  return cudalab::conflict_degree(bytes);
}

}  // namespace transpose
