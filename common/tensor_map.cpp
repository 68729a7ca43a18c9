#include "common/tensor_map.hpp"

#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>

#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"

namespace cudalab {
namespace {

PFN_cuTensorMapEncodeTiled_v12000 encode_function() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || p == nullptr) {
      throw std::runtime_error("tensor_map_bf16_2d: the driver has no cuTensorMapEncodeTiled (CUDA 12 or later)");
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

CUtensorMap encode_2d(const char* who, CUtensorMapDataType type, std::uint64_t elem_bytes, CUtensorMapSwizzle swizzle,
                      const void* base, std::uint64_t cols, std::uint64_t rows, std::uint64_t row_elems,
                      std::uint32_t box_cols, std::uint32_t box_rows) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {row_elems * elem_bytes};  // bytes from one row to the next (dimension 0 is contiguous)
  const cuuint32_t box[2] = {box_cols, box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode_function()(&map, type, 2, const_cast<void*>(base), dims, strides, box, element_strides,
                                       CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                       CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    throw std::runtime_error(std::string(who) + ": cuTensorMapEncodeTiled failed with CUresult " +
                             std::to_string(static_cast<int>(r)) + " (" + std::to_string(cols) + " x " +
                             std::to_string(rows) + ", box " + std::to_string(box_cols) + " x " +
                             std::to_string(box_rows) + ")");
  }
  return map;
}

}  // namespace

CUtensorMap tensor_map_bf16_2d(const void* base, std::uint64_t cols, std::uint64_t rows, std::uint64_t row_elems,
                               std::uint32_t box_cols, std::uint32_t box_rows) {
  return encode_2d("tensor_map_bf16_2d", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, CU_TENSOR_MAP_SWIZZLE_128B, base, cols,
                   rows, row_elems, box_cols, box_rows);
}

CUtensorMap tensor_map_f32_2d(const void* base, std::uint64_t cols, std::uint64_t rows, std::uint64_t row_elems,
                              std::uint32_t box_cols, std::uint32_t box_rows) {
  return encode_2d("tensor_map_f32_2d", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, CU_TENSOR_MAP_SWIZZLE_NONE, base, cols,
                   rows, row_elems, box_cols, box_rows);
}

}  // namespace cudalab
