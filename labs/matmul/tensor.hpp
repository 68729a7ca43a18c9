#pragma once
// matmul on Tensor Cores: C = A * B with BF16 A and B (each element its 16 bits, as
// reference.hpp's to_bf16_bits makes them), FP32 accumulation and an FP32 C, row-major like the
// SIMT ladder; cuBLAS's BF16 GEMM (cublasGemmEx) is the yardstick. Rungs: WMMA fragments, then
// mma.sync fed by ldmatrix and a cp.async pipeline, from shared memory as it is (bank
// conflicts), padded and XOR-swizzled (none), a wider tile, and software-pipelined; then Hopper's wgmma fed by TMA, in one warpgroup
// and warp-specialised (wgmma.hpp; sm_90a only).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/variants.hpp"

namespace matmul::tensor {

// The variants, in ladder order; the table in tensor.cu says what each changes.
enum class Variant { kWmma, kMmaSyncPlain, kMmaSyncPadded, kMmaSyncSwizzled, kMmaSyncWide, kMmaSyncPipelined, kWgmmaTma, kWgmmaWarpSpecialized, kWgmmaGrouped, kWgmmaPersistent, kWgmmaTmaStore, kWgmmaStreamK, kWgmmaCluster };
CUDALAB_DECLARE_VARIANTS(Variant)

// The C tile one block computes and its threads.
struct Shape {
  int block_m = 0, block_n = 0, block_k = 0, threads = 0, stages = 1;
};
Shape shape(Variant v);

// What a variant's shared-memory layout does to ldmatrix, worked out on the host from the same
// layout the kernel uses (common/banks.hpp's arithmetic): the most passes one 8 x 8 matrix read
// of A's and of B's slice takes (1: conflict-free), and whether every element of a slice has a
// place of its own. For the mma_sync rungs; std::invalid_argument for wmma.
struct LayoutCheck {
  int a_passes = 0, b_passes = 0;
  bool a_one_to_one = false, b_one_to_one = false;
};
LayoutCheck layout_check(Variant v);

// "" when variant v runs on the current device; otherwise why not (BF16 Tensor Core instructions
// need sm_80 or later; the wgmma rungs sm_90a machine code, which only compute capability 9.0
// runs). launch() throws std::runtime_error with that text instead of running anything else.
std::string unavailable(Variant v);

// C = A * B for any M, N, K >= 1: tiles over an edge load zeros and store only inside C. The
// 16-byte copies are taken when K and N are multiples of 8 and A and B are 16-byte aligned;
// otherwise the same kernel copies one element at a time (the wgmma rungs: first copy A and B
// into zero-padded rows, and that copy is part of the launch).
void launch(Variant v, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
            cudaStream_t stream = nullptr);

// Whether launch() takes variant v's 16-byte copies (wgmma: TMA straight from A and B) for these operands.
bool vector_path(const std::uint16_t* a, const std::uint16_t* b, int n, int k);

}  // namespace matmul::tensor
