#pragma once
// matmul: C = A * B for row-major FP32 matrices (A is M x K, B is K x N, C is M x N), from one
// thread per element of C through shared-memory tiles and register tiles to a warp-tiled kernel
// fed by an asynchronous-copy pipeline; cuBLAS SGEMM in the same process as the yardstick.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/variants.hpp"

namespace matmul {

// The variants, in ladder order; the table in matmul.cu says what each changes.
enum class Variant {
  kNaive,
  kCoalesced,
  kSmem16,
  kSmem32,
  kRegTile1d,
  kRegTile2d,
  kVectorized,
  kWarpTile,
  kAsyncPipeline,
};
CUDALAB_DECLARE_VARIANTS(Variant)

// What a variant's tiling implies, from its row of the table.
struct Traits {
  int block_m = 1, block_n = 1;  // the C tile one block computes (1 x 1: no tile, one element per thread)
  int threads = 256;             // threads per block
  int smem_bytes = 0;            // static shared memory per block
};
const Traits& traits(Variant v);

// The C tile one block computes for an m x n x k product, and into how many parts K is split
// (split-K: several blocks per tile, their partial sums added in a second pass): the traits'
// tile, except async_pipeline, which picks one of four tiles and 1 to 4 parts by the problem
// (matmul.cu: async_plan_for). With `fringe`, the tiles cover C's first m - m % tile rows and
// n - n % tile columns and a thin kernel the rest (one warp per element of C): async_pipeline
// takes it when the last row or column of tiles would hold at most 8 rows or columns of C (1025
// = 8 x 128 + 1). Needs a device.
struct Tile {
  int m = 1, n = 1;
  int splits = 1;
  bool fringe = false;
  int threads = 256;  // per block of the tiles' kernel
  // Global loads (of A and B elements, through L1/L2) per FMA: 2 without reuse (a 1 x 1 tile); a
  // T x T shared tile loads each element once per T FMAs (2 / T); a BM x BN block tile, 1/BN + 1/BM.
  double loads_per_fma() const { return m * n == 1 ? 2.0 : 1.0 / m + 1.0 / n; }
};
Tile tile(Variant v, int m, int n, int k);

// async_pipeline's tiles, each with K whole and in 4 parts, without and with a fringe (where C
// is smaller than one tile, the fringe is all of it), and a launch with one of them
// whatever the size (the tests run every one at every shape).
std::vector<Tile> async_tiles();
void launch_async_tile(Tile t, const float* a, const float* b, float* c, int m, int n, int k,
                       cudaStream_t stream = nullptr);

// C = A * B for any M, N, K >= 1 (edges of partial tiles handled), enqueued on `stream`. The
// 16-byte load paths are taken when K and N are multiples of 4 and the pointers 16-byte aligned;
// otherwise the same kernel loads one float at a time (never another kernel).
void launch(Variant v, const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream = nullptr);

// "" when launch() runs variant v as described on this device; otherwise what runs instead
// (async_pipeline on a GPU before sm_80: plain copies in the same pipeline, no cp.async).
std::string fallback(Variant v);

// Whether launch() takes variant v's 16-byte load path for these operands.
bool vector_path(Variant v, const float* a, const float* b, const float* c, int n, int k);

// The same product through cuBLAS (cublasSgemm, FP32 with CUBLAS_PEDANTIC_MATH: no TF32), for
// row-major operands. Owns its handle.
class Cublas {
 public:
  Cublas();
  ~Cublas();
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  void sgemm(const float* a, const float* b, float* c, int m, int n, int k, cudaStream_t stream = nullptr);
  // BF16 A and B (their 16 bits), FP32 accumulation and C: cublasGemmEx with CUBLAS_COMPUTE_32F,
  // in the default math mode (the Tensor Cores), the yardstick of tensor.hpp's rungs.
  void gemm_bf16(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                 cudaStream_t stream = nullptr);

 private:
  void* handle_ = nullptr;  // cublasHandle_t
};

}  // namespace matmul
