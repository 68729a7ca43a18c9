#pragma once
// The tensor map that Hopper's bulk tensor copies (TMA, cp.async.bulk.tensor) read: a 2-D
// row-major matrix of 16-bit elements in device memory and the box one copy brings into shared
// memory, 128-byte swizzled (the layout wgmma's 128-byte-swizzle descriptors read). Made through
// the driver's cuTensorMapEncodeTiled, found at run time (cudaGetDriverEntryPointByVersion), so
// nothing links libcuda. Elements of a box outside the matrix arrive as zeros.
#include <cuda.h>

#include <cstdint>

namespace cudalab {

// cols x rows elements (cols contiguous), row_elems elements from one row to the next;
// the box is box_cols x box_rows (box_cols x 2 bytes <= 128). Throws std::runtime_error when the
// driver refuses (the base must be 16-byte aligned and the row pitch a multiple of 16 bytes).
CUtensorMap tensor_map_bf16_2d(const void* base, std::uint64_t cols, std::uint64_t rows, std::uint64_t row_elems,
                               std::uint32_t box_cols, std::uint32_t box_rows);
// The same for 32-bit floats, not swizzled (box_cols x 4 bytes a multiple of 16): what a TMA store
// of an FP32 tile from a row-major shared-memory buffer reads. The row pitch must be a multiple
// of 16 bytes (row_elems a multiple of 4) and the base 16-byte aligned.
CUtensorMap tensor_map_f32_2d(const void* base, std::uint64_t cols, std::uint64_t rows, std::uint64_t row_elems,
                              std::uint32_t box_cols, std::uint32_t box_rows);

}  // namespace cudalab
