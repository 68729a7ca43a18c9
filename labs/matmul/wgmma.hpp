#pragma once
// matmul on Hopper's own Tensor Core path (wgmma.cu, built for sm_90a only): the tiles come in
// by TMA (bulk tensor copies that complete on an mbarrier) in the 128-byte swizzle that wgmma
// reads, and wgmma multiplies a warpgroup's 64-row slab at a time. tensor.cu's ladder rows call
// these; A, B row-major BF16 bits, C row-major FP32, any M, N, K >= 1.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace matmul::tensor::hopper {

// The tiles, as tensor.cu's shape() reports them.
constexpr int kTmaBM = 128, kTmaBN = 128, kBK = 64, kTmaThreads = 128, kTmaStages = 4;
constexpr int kWsBM = 128, kWsBN = 256, kWsThreads = 384, kWsStages = 4;
constexpr int kWsGroupRows = 8;  // wgmma_grouped: tile rows handed out together

// "" when this GPU runs the sm_90a kernels (compute capability 9.0 exactly: sm_90a machine code
// runs nowhere else); otherwise why not.
std::string unavailable();

// TMA needs each row to start on 16 bytes: K and N multiples of 8 and A, B 16-byte aligned. When
// they are not, the launchers first copy A and B into zero-padded rows of a multiple of 8
// (stream-ordered scratch), and that copy is part of what they run.
bool direct(const std::uint16_t* a, const std::uint16_t* b, int n, int k);

// One warpgroup of 128 threads computes a 128 x 128 tile (two 64-row wgmmas per k step),
// its thread 0 issuing the TMA copies of a 4-stage pipeline.
void launch_tma(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream);
// Warp specialisation: a producer warpgroup only issues TMA copies (and gives its registers
// away, setmaxnreg), two consumer warpgroups each multiply a 64 x 256 slab of a 128 x 256
// tile; full and empty mbarriers per stage hand the 4 stages back and forth.
void launch_warp_specialized(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                             cudaStream_t stream);
// The same kernel with its tiles handed out kWsGroupRows tile rows at a time (tile_order.cuh):
// the blocks in flight cover a patch of C about 8 x 16 tiles instead of a band 4 tiles tall and
// all of N wide, so they read fewer distinct panels of A and B from DRAM.
void launch_warp_specialized_grouped(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                                     cudaStream_t stream);
// Persistent: one block per SM walks the tiles in that grouped order, its pipeline running on
// from one tile to the next (the slices counted across tiles), so no block starts from an empty
// pipeline and no wave is left half full.
void launch_persistent(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                       cudaStream_t stream);
// The persistent kernel with C stored through shared memory by the copy engine (TMA stores of
// 64 x 64 FP32 boxes, 16 KB of staging per consumer warpgroup), each store left to drain while
// the warpgroup starts its next tile. Where N is not a multiple of 4 or C not 16-byte aligned,
// the slabs are stored from registers instead.
void launch_tma_store(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream);
// Stream-K on top of that: whole tiles for the full rounds of one block per SM, then, when the
// tiles left over would leave more than half of the last round idle (1025^3: 45 tiles on 132
// SMs), their slices split evenly among all the blocks, a run each that may start or end inside a
// tile; partial tiles meet in a workspace (workspace.hpp), added in block order by the block that
// holds the tile's last slice. Otherwise the last round takes whole tiles, as launch_tma_store
// does. One launch at a time per device (the workspace is shared).
void launch_stream_k(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream);

// Clusters of two blocks (two SMs of one GPC) on tile rows 2r and 2r + 1 of a column, walking such
// pairs persistently as launch_tma_store's blocks walk tiles, with its stores: each block brings
// its own A slice and half of the B slice both need, which TMA multicasts into both.
void launch_cluster(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream);

}  // namespace matmul::tensor::hopper
