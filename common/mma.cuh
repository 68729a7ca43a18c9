#pragma once
// The warp-level Tensor Core instructions of the labs that issue them as PTX (matmul's mma.sync
// rungs, attention's FlashAttention-2 rung): ldmatrix and mma.sync.m16n8k16 with BF16 operands and
// FP32 accumulators. sm_80 or later; include from .cu files, inside code compiled for it.
//
// The fragments of m16n8k16 (g = lane / 4, t = lane % 4; a register holds two BF16, the lower
// column, or k, in its low half):
//   A 16 x 16: a[0] (row g, k 2t..2t+1), a[1] (row g+8, k 2t..), a[2] (row g, k 2t+8..), a[3] (row g+8, k 2t+8..)
//   B 16 x 8:  b0 (k 2t..2t+1, col g), b1 (k 2t+8..2t+9, col g)
//   D 16 x 8:  d[0], d[1] (row g, cols 2t, 2t+1), d[2], d[3] (row g+8, cols 2t, 2t+1)
#include <cuda_bf16.h>

namespace cudalab {

// Two floats rounded to BF16 and packed in one register, lo in the low half: an accumulator
// pair turned into an A fragment register (the fragments above), or two outputs stored at once.
__device__ __forceinline__ unsigned pack_bf16(float lo, float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&h);
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
// Four 8 x 8 matrices of 16-bit elements; each lane gives one row's shared-memory address.
__device__ __forceinline__ void ldmatrix_x4_at(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x4_trans_at(unsigned (&r)[4], unsigned address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const __nv_bfloat16* p) { ldmatrix_x4_at(r, smem_address(p)); }
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const __nv_bfloat16* p) { ldmatrix_x4_trans_at(r, smem_address(p)); }
// d = a b + d for one 16 x 8 tile: a is 16 x 16 (4 registers of 2 BF16), b 16 x 8 (2), d 4 floats.
__device__ __forceinline__ void mma_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
#endif

}  // namespace cudalab
