// matmul on Hopper's own path: TMA brings the tiles, wgmma multiplies them. Built for sm_90a
// alone (cmake: cudalab_sm90a_kernels); wgmma.hpp says what each launcher runs.
//
// What mma.sync left on the table: every warp loads its own fragments from shared memory with
// ldmatrix and issues 16 x 8 x 16 products one at a time, and the threads themselves compute
// the addresses of every cp.async. Here one thread asks the copy engine for a whole 128 x 64
// slice (cp.async.bulk.tensor), which writes it in the 128-byte swizzle and counts its bytes on
// an mbarrier; a warpgroup (4 warps) then issues wgmma.m64nNk16, whose operands the Tensor
// Cores read from shared memory themselves through descriptors, and which runs asynchronously
// while the warpgroup issues the next one. Edges: the copy engine fills what lies outside A and
// B with zeros, and the stores to C check their row and column.
#include "wgmma.hpp"

#include <cuda.h>
#include <cuda_bf16.h>

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/hopper.cuh"
#include "common/math.hpp"
#include "common/tensor_map.hpp"
#include "tile_order.cuh"
#include "workspace.hpp"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "wgmma.cu uses sm_90a instructions: build it for sm_90a only (cudalab_sm90a_kernels)"
#endif

namespace matmul::tensor::hopper {
namespace {

using std::size_t;
using std::uint64_t;
namespace hw = cudalab::hopper;

// A slice: 64 k of BM rows of A (each row 128 bytes, swizzled) and of BN columns of B (BN / 64
// blocks, each 64 k rows of 64 n: 8 KB).
constexpr int kBBlockBytes = kBK * 128;
template <int BM, int BN>
struct Slice {
  static constexpr int a_bytes = BM * 128, b_bytes = BN / 64 * kBBlockBytes, bytes = a_bytes + b_bytes;
};
template <int BM, int BN, int Stages>
constexpr int smem_bytes() {
  return Stages * Slice<BM, BN>::bytes + 1024 + 2 * Stages * 8;  // stages, alignment, barriers
}

// One thread: slice at k0 into `stage`, its bytes counted on `full`.
template <int BM, int BN>
__device__ __forceinline__ void load_slice(unsigned char* stage, const CUtensorMap* ta, const CUtensorMap* tb,
                                           uint64_t* full, int m0, int n0, int k0) {
  hw::mbarrier_arrive_expect_tx(full, Slice<BM, BN>::bytes);
  hw::tma_load_2d(stage, ta, k0, m0, full);
#pragma unroll
  for (int q = 0; q < BN / 64; ++q) hw::tma_load_2d(stage + Slice<BM, BN>::a_bytes + q * kBBlockBytes, tb, n0 + 64 * q, k0, full);
}

// The same for one block of a cluster of two that share B's slice (rung 6): its own A, and half
// of B (rank r: the 64-wide blocks r * BN / 128 ...), which the copy engine writes into both
// blocks' stages (multicast), counting its bytes on the `full` barrier at the same offset in each.
// This block's barrier expects the whole slice: the other half arrives from the peer's copies.
template <int BM, int BN>
__device__ __forceinline__ void load_slice_shared_b(unsigned char* stage, const CUtensorMap* ta, const CUtensorMap* tb,
                                                    uint64_t* full, int m0, int n0, int k0, unsigned rank) {
  hw::mbarrier_arrive_expect_tx(full, Slice<BM, BN>::bytes);
  hw::tma_load_2d(stage, ta, k0, m0, full);
#pragma unroll
  for (int q = 0; q < BN / 128; ++q) {
    const int block = static_cast<int>(rank) * (BN / 128) + q;
    hw::tma_load_2d_multicast(stage + Slice<BM, BN>::a_bytes + block * kBBlockBytes, tb, n0 + 64 * block, k0, full, 0x3);
  }
}

// acc (a 64 x BN slab) += the slab's 64 rows of A's slice (from a_slab) times B's slice: four
// k steps of 16. A is K-major (a step is 32 bytes along the row); B is N-major (a step is 16 k
// rows, 2048 bytes; its 64-wide blocks of n are kBBlockBytes apart).
template <int BN>
__device__ __forceinline__ void mma_slice(float (&acc)[BN / 2], const unsigned char* a_slab, const unsigned char* b) {
#pragma unroll
  for (int ks = 0; ks < kBK / 16; ++ks) {
    const uint64_t da = hw::desc_k_major(a_slab + 32 * ks), db = hw::desc_mn_major(b + 2048 * ks, kBBlockBytes);
    if constexpr (BN == 128) {
      hw::wgmma_m64n128k16_bf16<1>(acc, da, db);
    } else {
      hw::wgmma_m64n256k16_bf16<1>(acc, da, db);
    }
  }
}

// The warpgroup's 64 x BN slab of C at (row0, col0), from the accumulator layout (hopper.cuh).
template <int BN>
__device__ __forceinline__ void store_slab(const float (&acc)[BN / 2], float* __restrict__ c, int m, int n, int row0,
                                           int col0) {
  const int t = static_cast<int>(threadIdx.x) % 128, lane = t % 32;
  const int r = row0 + 16 * (t / 32) + lane / 4;
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int col = col0 + 8 * j + 2 * (lane % 4);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int row = r + 8 * half;
      if (row >= m) continue;
      float* dst = c + static_cast<size_t>(row) * n + col;
      const float x = acc[4 * j + 2 * half], y = acc[4 * j + 2 * half + 1];
      if (col + 1 < n && n % 2 == 0) {
        *reinterpret_cast<float2*>(dst) = make_float2(x, y);
      } else {
        if (col < n) dst[0] = x;
        if (col + 1 < n) dst[1] = y;
      }
    }
  }
}

// The same slab through shared memory and the copy engine (rung 4): kChunkCols columns at a time
// into this warpgroup's staging buffer (row-major, kChunkCols floats a row), then one TMA store of
// the chunk that thread 0 of the warpgroup issues and the warpgroup does not wait for: before
// writing the buffer again, thread 0 waits until the store before has read it (wait_group.read)
// and a named barrier (one per warpgroup: 1 + slab) holds the others until then. The last chunk's
// store drains while the warpgroup starts the next tile. The copy engine clips at C's edges.
constexpr int kChunkCols = 64, kChunkBytes = 64 * kChunkCols * 4;  // 16 KB a warpgroup
template <int BN>
__device__ __forceinline__ void store_slab_tma(const float (&acc)[BN / 2], float* stage, const CUtensorMap* tc, int row0,
                                               int col0, int slab) {
  const int t = static_cast<int>(threadIdx.x) % 128, lane = t % 32;
  const int r = 16 * (t / 32) + lane / 4;
#pragma unroll
  for (int q = 0; q < BN / kChunkCols; ++q) {
    if (t == 0) hw::bulk_wait_group_read<0>();  // the store before has read the buffer
    hw::named_barrier_sync(1 + slab, 128);
#pragma unroll
    for (int jj = 0; jj < kChunkCols / 8; ++jj) {
      const int j = q * (kChunkCols / 8) + jj, col = 8 * jj + 2 * (lane % 4);
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        *reinterpret_cast<float2*>(stage + (r + 8 * half) * kChunkCols + col) =
            make_float2(acc[4 * j + 2 * half], acc[4 * j + 2 * half + 1]);
      }
    }
    hw::fence_proxy_async_shared();  // these writes, visible to the copy engine
    hw::named_barrier_sync(1 + slab, 128);
    if (t == 0) {
      hw::tma_store_2d(tc, stage, col0 + q * kChunkCols, row0);
      hw::bulk_commit_group();
    }
  }
}

// ---- 1. TMA + wgmma, one warpgroup --------------------------------------------------------------
// Thread 0 keeps 3 slices in flight ahead of the one being multiplied; each slice's two 64-row
// wgmma chains (one per half of the tile) are committed as a group and the warpgroup waits only
// for the group before (wait_group 1), so the Tensor Cores always have the next one queued. A
// stage is refilled once every thread has seen the group that read it finish (a block barrier).
__global__ void __launch_bounds__(kTmaThreads) matmul_wgmma_tma(const __grid_constant__ CUtensorMap ta,
                                                                const __grid_constant__ CUtensorMap tb,
                                                                float* __restrict__ c, int m, int n, int k) {
  using S = Slice<kTmaBM, kTmaBN>;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = hw::aligned_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kTmaStages * S::bytes);
  const int m0 = static_cast<int>(blockIdx.y) * kTmaBM, n0 = static_cast<int>(blockIdx.x) * kTmaBN;
  const int slices = (k + kBK - 1) / kBK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kTmaStages; ++s) hw::mbarrier_init(&full[s], 1);
    hw::fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int s = 0; s < kTmaStages - 1 && s < slices; ++s) {
      load_slice<kTmaBM, kTmaBN>(smem + s * S::bytes, &ta, &tb, &full[s], m0, n0, s * kBK);
    }
  }
  float acc[2][kTmaBN / 2] = {};
  for (int t = 0; t < slices; ++t) {
    const int s = t % kTmaStages;
    hw::mbarrier_wait(&full[s], (t / kTmaStages) & 1);
    const unsigned char* stage = smem + s * S::bytes;
    hw::wgmma_fence();
    mma_slice<kTmaBN>(acc[0], stage, stage + S::a_bytes);
    mma_slice<kTmaBN>(acc[1], stage + 64 * 128, stage + S::a_bytes);
    hw::wgmma_commit();
    hw::wgmma_wait<1>();  // slice t - 1's group is done for this thread ...
    __syncthreads();      // ... and for every thread: its stage may be refilled
    const int next = t + kTmaStages - 1;
    if (threadIdx.x == 0 && next < slices) {
      load_slice<kTmaBM, kTmaBN>(smem + (next % kTmaStages) * S::bytes, &ta, &tb, &full[next % kTmaStages], m0, n0,
                                 next * kBK);
    }
  }
  hw::wgmma_wait<0>();
  store_slab<kTmaBN>(acc[0], c, m, n, m0, n0);
  store_slab<kTmaBN>(acc[1], c, m, n, m0 + 64, n0);
}

// ---- 2. Warp specialisation: a producer warpgroup and two consumers ------------------------------
// Rung 1's warpgroup both waits for copies and multiplies, and stops at a block barrier every
// slice. Here warpgroup 0 only produces: one of its threads waits for a stage to be empty,
// announces its bytes on the stage's full barrier and issues the copies; it needs few registers
// and gives them to the consumers (setmaxnreg: 40 for it, 232 for them). Warpgroups 1 and 2
// each multiply a 64 x 256 slab (m64n256k16: 128 accumulators a thread) of a 128 x 256 tile,
// twice rung 1's work per slice, and hand a stage back (one arrival per warp on its empty
// barrier) as soon as the group that read it has finished. No block barrier in the loop.
// The warp-specialised kernels' stage barriers, by thread 0, seen by the block: a stage is full
// once the producer has arrived with its bytes, empty once every consumer warp has arrived.
// In a cluster of two sharing B (rung 6) the consumer warps of both blocks release each stage.
__device__ __forceinline__ void init_stage_barriers(uint64_t* full, uint64_t* empty, int releasing_warps = 8) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < kWsStages; ++s) {
      hw::mbarrier_init(&full[s], 1);                  // the producer's arrival (with the bytes)
      hw::mbarrier_init(&empty[s], releasing_warps);  // one per consumer warp
    }
    hw::fence_barrier_init();
  }
  __syncthreads();
}

// The warp-specialised loops, with g the block's slices so far (in the persistent rungs, over all
// its tiles: the stage ring and its phases run on from one tile to the next). The producer (one
// thread) loads slices i0 .. i1 of the tile at (m0, n0), each into the next stage once the
// consumers have released it.
// SharedB (rung 6): the block is `rank` of a cluster of two that share B (load_slice_shared_b).
template <bool SharedB = false>
__device__ __forceinline__ void produce_slices(unsigned char* smem, const CUtensorMap* ta, const CUtensorMap* tb,
                                               uint64_t* full, uint64_t* empty, int& g, int m0, int n0, int i0, int i1,
                                               unsigned rank = 0) {
  using S = Slice<kWsBM, kWsBN>;
  for (int i = i0; i < i1; ++i, ++g) {
    const int s = g % kWsStages;
    if (g >= kWsStages) hw::mbarrier_wait(&empty[s], (g / kWsStages - 1) & 1);  // slice g - Stages is read
    if constexpr (SharedB) {
      load_slice_shared_b<kWsBM, kWsBN>(smem + s * S::bytes, ta, tb, &full[s], m0, n0, i * kBK, rank);
    } else {
      load_slice<kWsBM, kWsBN>(smem + s * S::bytes, ta, tb, &full[s], m0, n0, i * kBK);
    }
  }
}

// A consumer warpgroup: acc = its 64-row slab of A's slices i0 .. i1 times B's, each stage handed
// back (one arrival per warp) as soon as the group that read it has finished; the last one too
// when ReleaseLast (a persistent block's next tile loads into it), not where the block ends.
// Peer (rung 6, a cluster of two sharing B): the peer block's producer writes into this block's
// stages too, so each warp also releases the stage on the peer's `empty` barrier (lane 1, while
// lane 0 arrives on its own block's).
template <bool ReleaseLast = true, bool Peer = false>
__device__ __forceinline__ void consume_slices(float (&acc)[kWsBN / 2], const unsigned char* smem, uint64_t* full,
                                               uint64_t* empty, int slab, int& g, int i0, int i1, unsigned peer = 0) {
  using S = Slice<kWsBM, kWsBN>;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const auto release = [&](int s) {
    if (lane == 0) hw::mbarrier_arrive(&empty[s]);
    if constexpr (Peer) {
      if (lane == 1) hw::mbarrier_arrive_remote(&empty[s], peer);
    }
  };
#pragma unroll
  for (int e = 0; e < kWsBN / 2; ++e) acc[e] = 0.0f;
  for (int i = i0; i < i1; ++i, ++g) {
    const int s = g % kWsStages;
    hw::mbarrier_wait(&full[s], (g / kWsStages) & 1);
    const unsigned char* stage = smem + s * S::bytes;
    hw::wgmma_fence();
    mma_slice<kWsBN>(acc, stage + slab * 64 * 128, stage + S::a_bytes);
    hw::wgmma_commit();
    hw::wgmma_wait<1>();  // the group that read slice g - 1 is done: hand its stage back
    if (i > i0) release((g - 1) % kWsStages);
  }
  hw::wgmma_wait<0>();
  if (ReleaseLast) release((g - 1) % kWsStages);  // the last slice is read too
}

// GroupRows 0: the tiles in row order (blockIdx.x along N); g > 0: handed out g tile rows at a
// time (grouped_tile, tile_order.cuh), so the blocks in flight share panels of A and B in L2.
template <int GroupRows>
__global__ void __launch_bounds__(kWsThreads, 1) matmul_wgmma_ws(const __grid_constant__ CUtensorMap ta,
                                                                 const __grid_constant__ CUtensorMap tb,
                                                                 float* __restrict__ c, int m, int n, int k) {
  using S = Slice<kWsBM, kWsBN>;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = hw::aligned_1024(smem_raw);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + kWsStages * S::bytes);
  uint64_t* empty = full + kWsStages;
  int m0 = static_cast<int>(blockIdx.y) * kWsBM, n0 = static_cast<int>(blockIdx.x) * kWsBN;
  if constexpr (GroupRows > 0) {
    const int2 tile = grouped_tile(GroupRows);  // (column, row) of the tile
    m0 = tile.y * kWsBM;
    n0 = tile.x * kWsBN;
  }
  const int slices = (k + kBK - 1) / kBK;
  const int wg = static_cast<int>(threadIdx.x) / 128;
  init_stage_barriers(full, empty);
  int g = 0;
  if (wg == 0) {
    hw::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) produce_slices(smem, &ta, &tb, full, empty, g, m0, n0, 0, slices);
  } else {
    hw::setmaxnreg_inc<232>();
    const int slab = wg - 1;
    float acc[kWsBN / 2];
    consume_slices<false>(acc, smem, full, empty, slab, g, 0, slices);
    store_slab<kWsBN>(acc, c, m, n, m0 + 64 * slab, n0);
  }
}

// The slab at (row0, col0) into C: through shared memory and the copy engine (TmaStore), or
// from registers.
template <bool TmaStore>
__device__ __forceinline__ void store_tile_slab(const float (&acc)[kWsBN / 2], float* staging, const CUtensorMap* tc,
                                                float* c, int m, int n, int row0, int col0, int slab) {
  if constexpr (TmaStore) {
    store_slab_tma<kWsBN>(acc, staging + slab * (kChunkBytes / 4), tc, row0, col0, slab);
  } else {
    store_slab<kWsBN>(acc, c, m, n, row0, col0);
  }
}

// The persistent kernels' shared memory (rungs 3 to 6): the stages from the first 1024-byte
// boundary, with TmaStore a 16 KB staging buffer per consumer after them, then each stage's full
// and empty barriers.
struct PersistentShared {
  unsigned char* stages;
  float* staging;
  uint64_t* full;
  uint64_t* empty;
};
template <bool TmaStore>
__device__ __forceinline__ PersistentShared persistent_shared() {
  using S = Slice<kWsBM, kWsBN>;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* stages = hw::aligned_1024(smem_raw);
  auto* full = reinterpret_cast<uint64_t*>(stages + kWsStages * S::bytes + (TmaStore ? 2 * kChunkBytes : 0));
  return {stages, reinterpret_cast<float*>(stages + kWsStages * S::bytes), full, full + kWsStages};
}

// ---- 3. Persistent blocks: one per SM walks the tiles ---------------------------------------------
// Rung 2 launches a block per tile: at 8192^3 that is 2,048 blocks in 15.5 waves of 132, each
// block filling its pipeline from empty, and the last wave half idle. Here the grid is one block
// per SM (a block fills an SM's shared memory anyway) and block b takes tiles b, b + grid, ... in
// the grouped order (grouped_tile_of). The producer and the consumers count slices across the
// block's tiles (g), so the stages, their full/empty barriers and the phase parities run on
// without a break: the producer starts loading the next tile's slices while the consumers still
// multiply the last ones of this tile and store it.
//
// TmaStore (rung 4, wgmma_tma_store): each consumer stores its slab through shared memory and
// the copy engine (store_slab_tma, 16 KB of staging a warpgroup after the stages) instead of
// from registers: the stores leave as whole 64 x 64 boxes, and the consumer goes on to the next
// tile while the last one drains.
template <int GroupRows, bool TmaStore>
__global__ void __launch_bounds__(kWsThreads, 1) matmul_wgmma_persistent(const __grid_constant__ CUtensorMap ta,
                                                                         const __grid_constant__ CUtensorMap tb,
                                                                         const __grid_constant__ CUtensorMap tc,
                                                                         float* __restrict__ c, int m, int n, int k) {
  const PersistentShared sh = persistent_shared<TmaStore>();
  unsigned char* smem = sh.stages;
  float* staging = sh.staging;  // TmaStore: a buffer per consumer
  uint64_t *full = sh.full, *empty = sh.empty;
  const int tiles_m = (m + kWsBM - 1) / kWsBM, tiles_n = (n + kWsBN - 1) / kWsBN, tiles = tiles_m * tiles_n;
  const int slices = (k + kBK - 1) / kBK;
  const int wg = static_cast<int>(threadIdx.x) / 128;
  init_stage_barriers(full, empty);
  if (wg == 0) {
    hw::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      int g = 0;  // the block's slices so far, over all its tiles
      for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += static_cast<int>(gridDim.x)) {
        const TileAt at = grouped_tile_of(tile, tiles_n, tiles_m, GroupRows);
        produce_slices(smem, &ta, &tb, full, empty, g, at.row * kWsBM, at.col * kWsBN, 0, slices);
      }
    }
  } else {
    hw::setmaxnreg_inc<232>();
    const int slab = wg - 1;
    float acc[kWsBN / 2];
    int g = 0;
    for (int tile = static_cast<int>(blockIdx.x); tile < tiles; tile += static_cast<int>(gridDim.x)) {
      const TileAt at = grouped_tile_of(tile, tiles_n, tiles_m, GroupRows);
      consume_slices(acc, smem, full, empty, slab, g, 0, slices);
      store_tile_slab<TmaStore>(acc, staging, &tc, c, m, n, at.row * kWsBM + 64 * slab, at.col * kWsBN, slab);
    }
    if constexpr (TmaStore) {
      if (threadIdx.x % 128 == 0) hw::bulk_wait_group<0>();  // every store done before the block ends
    }
  }
}

// ---- 5. Stream-K: the last wave's idle SMs get work too -------------------------------------------
// Rung 4 hands whole tiles out: at 8192^3 the 2,048 tiles are 15 full rounds of 132 blocks and a
// 16th in which 68 blocks work and 64 wait; at 1025^3 (45 tiles of 17 slices) 87 of the 132 SMs
// never start. Here the work is counted in slices (one 64-deep k step of one tile): every block
// first takes whole tiles for as many full rounds as there are (b, b + grid, ... as in rung 4),
// then, if the tiles left over would leave more than half of the last round idle, their slices
// are split evenly among all the blocks, each a contiguous run of them, which may begin or end
// inside a tile (otherwise the last round takes whole tiles as rung 4 does: stream_k_plan says
// why). A run that ends inside a tile leaves a partial sum: the block writes it (its
// accumulators as they are, 128 floats a thread) to its slot of a workspace and raises its flag;
// the block whose run covers the tile's last slice adds the partials of the blocks before it, in
// order (the same bits every launch), and stores the tile. Each block walks its run backwards, so its partial (the run's end) is the
// first thing it computes, and a block waits only on blocks of a lower index: the run's start,
// finished last, is where it collects the partials of its predecessors, which they wrote first.
// The flags hold the launch's epoch (next_stream_k_epoch), so they never need clearing. What it
// measured (the lab's README): at 1025^3 on an H100 the partial sums and the short runs cost more
// than the idle SMs did.
using Flag = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;
constexpr int kPartialFloats = 64 * kWsBN;  // a consumer's 64 x 256 slab

template <bool TmaStore>
__global__ void __launch_bounds__(kWsThreads, 1) matmul_wgmma_stream_k(const __grid_constant__ CUtensorMap ta,
                                                                       const __grid_constant__ CUtensorMap tb,
                                                                       const __grid_constant__ CUtensorMap tc,
                                                                       float* __restrict__ c, int m, int n, int k,
                                                                       StreamK w, float* __restrict__ partials,
                                                                       unsigned* __restrict__ flags, unsigned epoch) {
  const PersistentShared sh = persistent_shared<TmaStore>();
  unsigned char* smem = sh.stages;
  float* staging = sh.staging;  // TmaStore: a buffer per consumer
  uint64_t *full = sh.full, *empty = sh.empty;
  const int tiles_m = (m + kWsBM - 1) / kWsBM, tiles_n = (n + kWsBN - 1) / kWsBN;
  const int b = static_cast<int>(blockIdx.x), wg = static_cast<int>(threadIdx.x) / 128;
  init_stage_barriers(full, empty);
  if (wg == 0) {
    hw::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      int g = 0;
      for_each_piece(w, b, [&](int tile, int i0, int i1) {
        const TileAt at = grouped_tile_of(tile, tiles_n, tiles_m, kWsGroupRows);
        produce_slices(smem, &ta, &tb, full, empty, g, at.row * kWsBM, at.col * kWsBN, i0, i1);
      });
    }
  } else {
    hw::setmaxnreg_inc<232>();
    const int slab = wg - 1, t = static_cast<int>(threadIdx.x) % 128;
    float acc[kWsBN / 2];
    int g = 0;
    for_each_piece(w, b, [&](int tile, int i0, int i1) {
      const TileAt at = grouped_tile_of(tile, tiles_n, tiles_m, kWsGroupRows);
      consume_slices(acc, smem, full, empty, slab, g, i0, i1);
      if (i1 < w.slices) {  // the tile goes on in the next block: leave the partial sum there
        float4* mine = reinterpret_cast<float4*>(partials + (static_cast<size_t>(b) * 2 + slab) * kPartialFloats);
#pragma unroll
        for (int e = 0; e < kWsBN / 8; ++e) {
          __stcg(&mine[e * 128 + t], make_float4(acc[4 * e], acc[4 * e + 1], acc[4 * e + 2], acc[4 * e + 3]));
        }
        __threadfence();
        hw::named_barrier_sync(1 + slab, 128);
        if (t == 0) Flag(flags[b * 2 + slab]).store(epoch, cuda::memory_order_release);
        return;
      }
      if (i0 > 0) {  // the tile began in earlier blocks: add their partials, lowest block first
        for (int j = w.first_block_of(tile); j < b; ++j) {
          if (w.start(j) == w.start(j + 1)) continue;  // no slices, no partial
          if (t == 0) {
            while (Flag(flags[j * 2 + slab]).load(cuda::memory_order_acquire) != epoch) __nanosleep(64);
          }
          hw::named_barrier_sync(1 + slab, 128);
          const float4* theirs = reinterpret_cast<const float4*>(partials + (static_cast<size_t>(j) * 2 + slab) * kPartialFloats);
#pragma unroll
          for (int e = 0; e < kWsBN / 8; ++e) {
            const float4 v = __ldcg(&theirs[e * 128 + t]);
            acc[4 * e] += v.x;
            acc[4 * e + 1] += v.y;
            acc[4 * e + 2] += v.z;
            acc[4 * e + 3] += v.w;
          }
        }
      }
      store_tile_slab<TmaStore>(acc, staging, &tc, c, m, n, at.row * kWsBM + 64 * slab, at.col * kWsBN, slab);
    });
    if constexpr (TmaStore) {
      if (t == 0) hw::bulk_wait_group<0>();
    }
  }
}

// ---- 6. Clusters: two blocks share B's slices by TMA multicast ----------------------------------
// Rung 4's blocks each bring their own 128 x 64 slice of A and 64 x 256 slice of B from L2 for
// every 64 of K: 48 KB a slice, two thirds of it B, for 128 x 256 x 64 multiply-adds. The blocks
// on tiles (2r, c) and (2r + 1, c) need the same B. Here they run as a cluster of two (two SMs of
// one GPC, launched together) that walks pairs of tile rows in the grouped order, persistent as
// rung 4 and storing C as it does: each block brings its own A and half of B's slice, which the
// copy engine writes into both blocks' stages (load_slice_shared_b): 32 KB from L2 a slice
// instead of 48, each B byte read once for two tiles. The price is that the two blocks move in
// step: block r's producer refills a stage of both blocks, so it waits until the consumers of
// both have released it (each consumer warp arrives on its own block's `empty` barrier and on the
// peer's: 16 arrivals a stage), and a block's consumers start a slice only once both producers'
// copies have landed. Both blocks walk the same pairs with the same slices, so their rings and
// phases stay in step. On the last pair of an odd count of tile rows, rank 1's tile lies below C:
// its A is zeros from the copy engine, and it stores nothing. Cluster barriers at the start (the
// peer's barriers exist before anything is written into it) and at the end (neither block leaves
// while the other may still arrive on its barriers).
template <bool TmaStore>
__global__ void __launch_bounds__(kWsThreads, 1) matmul_wgmma_cluster(const __grid_constant__ CUtensorMap ta,
                                                                      const __grid_constant__ CUtensorMap tb,
                                                                      const __grid_constant__ CUtensorMap tc,
                                                                      float* __restrict__ c, int m, int n, int k) {
  const PersistentShared sh = persistent_shared<TmaStore>();
  const unsigned rank = hw::cluster_rank();
  const int tiles_m = (m + kWsBM - 1) / kWsBM, pairs_m = (tiles_m + 1) / 2, tiles_n = (n + kWsBN - 1) / kWsBN;
  const int pairs = pairs_m * tiles_n, clusters = static_cast<int>(gridDim.x) / 2;
  const int slices = (k + kBK - 1) / kBK;
  const int wg = static_cast<int>(threadIdx.x) / 128;
  init_stage_barriers(sh.full, sh.empty, 16);
  hw::cluster_sync();
  if (wg == 0) {
    hw::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      int g = 0;
      for (int pair = static_cast<int>(blockIdx.x) / 2; pair < pairs; pair += clusters) {
        const TileAt at = grouped_tile_of(pair, tiles_n, pairs_m, kWsGroupRows / 2);  // 4 pairs: rung 4's 8 tile rows
        produce_slices<true>(sh.stages, &ta, &tb, sh.full, sh.empty, g, (2 * at.row + static_cast<int>(rank)) * kWsBM,
                             at.col * kWsBN, 0, slices, rank);
      }
    }
    __syncwarp();  // the producer's warp meets again here: its other lanes wait for thread 0, not in the cluster barrier
  } else {
    hw::setmaxnreg_inc<232>();
    const int slab = wg - 1;
    float acc[kWsBN / 2];
    int g = 0;
    for (int pair = static_cast<int>(blockIdx.x) / 2; pair < pairs; pair += clusters) {
      const TileAt at = grouped_tile_of(pair, tiles_n, pairs_m, kWsGroupRows / 2);
      consume_slices<true, true>(acc, sh.stages, sh.full, sh.empty, slab, g, 0, slices, rank ^ 1u);
      const int row0 = (2 * at.row + static_cast<int>(rank)) * kWsBM + 64 * slab;
      if (row0 < m) store_tile_slab<TmaStore>(acc, sh.staging, &tc, c, m, n, row0, at.col * kWsBN, slab);
    }
    if constexpr (TmaStore) {
      if (threadIdx.x % 128 == 0) hw::bulk_wait_group<0>();
    }
  }
  hw::cluster_sync();
}

// dst (rows x cols_pad) = src (rows x cols), zeros beyond col cols.
__global__ void pad_rows(const __nv_bfloat16* __restrict__ src, __nv_bfloat16* __restrict__ dst, int rows, int cols,
                         int cols_pad) {
  const size_t total = static_cast<size_t>(rows) * cols_pad;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const int r = static_cast<int>(i / cols_pad), q = static_cast<int>(i % cols_pad);
    dst[i] = q < cols ? src[static_cast<size_t>(r) * cols + q] : __float2bfloat16(0.0f);
  }
}

// The operands as TMA sees them: rows of a multiple of 8 elements, 16-byte aligned; padded copies
// in stream-ordered scratch when the caller's are not (freed after the product is enqueued).
class Operands {
 public:
  Operands(const std::uint16_t* a, const std::uint16_t* b, int m, int n, int k, cudaStream_t stream)
      : a_(a), b_(b), lda_(k), ldb_(n), stream_(stream) {
    if (direct(a, b, n, k)) return;
    lda_ = cudalab::round_up(k, 8);
    ldb_ = cudalab::round_up(n, 8);
    CUDA_CHECK(cudaMallocAsync(&pa_, static_cast<size_t>(m) * lda_ * 2, stream));
    CUDA_CHECK(cudaMallocAsync(&pb_, static_cast<size_t>(k) * ldb_ * 2, stream));
    const auto* sa = reinterpret_cast<const __nv_bfloat16*>(a);
    const auto* sb = reinterpret_cast<const __nv_bfloat16*>(b);
    pad_rows<<<1024, 256, 0, stream>>>(sa, static_cast<__nv_bfloat16*>(pa_), m, k, lda_);
    CUDA_CHECK_LAUNCH("pad_rows");
    pad_rows<<<1024, 256, 0, stream>>>(sb, static_cast<__nv_bfloat16*>(pb_), k, n, ldb_);
    CUDA_CHECK_LAUNCH("pad_rows");
    a_ = static_cast<const std::uint16_t*>(pa_);
    b_ = static_cast<const std::uint16_t*>(pb_);
  }
  ~Operands() {
    if (pa_) cudaFreeAsync(pa_, stream_);
    if (pb_) cudaFreeAsync(pb_, stream_);
  }
  Operands(const Operands&) = delete;
  Operands& operator=(const Operands&) = delete;
  // A (m x k, lda a row) in boxes of 64 k x box_m rows; B (k x n, ldb a row) in boxes of 64 n x 64 k.
  CUtensorMap map_a(int m, int box_m) const { return cudalab::tensor_map_bf16_2d(a_, lda_, m, lda_, kBK, box_m); }
  CUtensorMap map_b(int k) const { return cudalab::tensor_map_bf16_2d(b_, ldb_, k, ldb_, 64, kBK); }

 private:
  const std::uint16_t* a_;
  const std::uint16_t* b_;
  int lda_, ldb_;
  cudaStream_t stream_;
  void* pa_ = nullptr;
  void* pb_ = nullptr;
};

dim3 grid_for(int m, int n, int bm, int bn) {
  return dim3(static_cast<unsigned>(cudalab::ceil_div(n, bn)), static_cast<unsigned>(cudalab::ceil_div(m, bm)));
}

}  // namespace

std::string unavailable() { return cudalab::sm90a_unavailable(matmul_wgmma_tma); }

bool direct(const std::uint16_t* a, const std::uint16_t* b, int n, int k) {
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  return n % 8 == 0 && k % 8 == 0 && aligned(a) && aligned(b);
}

void launch_tma(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream) {
  constexpr int bytes = smem_bytes<kTmaBM, kTmaBN, kTmaStages>();
  cudalab::allow_dynamic_shared_memory(matmul_wgmma_tma, bytes);
  const Operands ops(a, b, m, n, k, stream);
  matmul_wgmma_tma<<<grid_for(m, n, kTmaBM, kTmaBN), kTmaThreads, bytes, stream>>>(ops.map_a(m, kTmaBM), ops.map_b(k), c,
                                                                                   m, n, k);
  CUDA_CHECK_LAUNCH("matmul_wgmma_tma");
}

namespace {
template <int GroupRows>
void launch_ws(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream) {
  constexpr int bytes = smem_bytes<kWsBM, kWsBN, kWsStages>();
  cudalab::allow_dynamic_shared_memory(matmul_wgmma_ws<GroupRows>, bytes);
  const Operands ops(a, b, m, n, k, stream);
  matmul_wgmma_ws<GroupRows><<<grid_for(m, n, kWsBM, kWsBN), kWsThreads, bytes, stream>>>(ops.map_a(m, kWsBM),
                                                                                          ops.map_b(k), c, m, n, k);
  CUDA_CHECK_LAUNCH("matmul_wgmma_ws");
}
}  // namespace

void launch_warp_specialized(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                             cudaStream_t stream) {
  launch_ws<0>(a, b, c, m, n, k, stream);
}

void launch_warp_specialized_grouped(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                                     cudaStream_t stream) {
  launch_ws<kWsGroupRows>(a, b, c, m, n, k, stream);
}

namespace {
// The persistent and stream-K kernels' shared memory: the stages, and with TmaStore a staging
// buffer per consumer; C as the copy engine stores it (TmaStore: boxes of 64 x 64 floats; unused
// otherwise).
template <bool TmaStore>
constexpr int persistent_smem_bytes() {
  return smem_bytes<kWsBM, kWsBN, kWsStages>() + (TmaStore ? 2 * kChunkBytes : 0);
}
template <bool TmaStore>
CUtensorMap map_c(float* c, int m, int n) {
  return TmaStore ? cudalab::tensor_map_f32_2d(c, n, m, n, kChunkCols, 64) : CUtensorMap{};
}
// The copy engine stores rows that start on 16 bytes: N a multiple of 4 and C 16-byte aligned;
// otherwise the slabs are stored from registers, as wgmma_persistent does.
bool tma_stores(const float* c, int n) { return n % 4 == 0 && reinterpret_cast<std::uintptr_t>(c) % 16 == 0; }

template <bool TmaStore>
void launch_persistent_as(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                          cudaStream_t stream) {
  constexpr int bytes = persistent_smem_bytes<TmaStore>();
  cudalab::allow_dynamic_shared_memory(matmul_wgmma_persistent<kWsGroupRows, TmaStore>, bytes);
  const Operands ops(a, b, m, n, k, stream);
  const CUtensorMap tc = map_c<TmaStore>(c, m, n);
  const long long tiles = static_cast<long long>(cudalab::ceil_div(m, kWsBM)) * cudalab::ceil_div(n, kWsBN);
  const int sms = cudalab::launch_limits().sms;  // one block per SM (the suite's per-device cache)
  const auto grid = static_cast<unsigned>(tiles < sms ? tiles : sms);
  matmul_wgmma_persistent<kWsGroupRows, TmaStore>
      <<<grid, kWsThreads, bytes, stream>>>(ops.map_a(m, kWsBM), ops.map_b(k), tc, c, m, n, k);
  CUDA_CHECK_LAUNCH("matmul_wgmma_persistent");
}

// The epoch of the next stream-K launch on `device`, from 1 (a fresh workspace holds 0). One count
// per device for both kinds of the kernel, since they share the workspace's flags: a count per
// template instance would let a launch of one kind meet flags the other raised with its own
// number, and read partial sums before they are written.
unsigned next_stream_k_epoch(int device) {
  static unsigned epochs[64] = {};
  unsigned& e = epochs[device % 64];
  if (++e == 0) e = 1;
  return e;
}

template <bool TmaStore>
void launch_stream_k_as(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                        cudaStream_t stream) {
  constexpr int bytes = persistent_smem_bytes<TmaStore>();
  cudalab::allow_dynamic_shared_memory(matmul_wgmma_stream_k<TmaStore>, bytes);
  const Operands ops(a, b, m, n, k, stream);
  const CUtensorMap tc = map_c<TmaStore>(c, m, n);
  const cudalab::LaunchLimits& device = cudalab::launch_limits();
  const StreamK w = stream_k_plan(cudalab::ceil_div(m, kWsBM) * cudalab::ceil_div(n, kWsBN), cudalab::ceil_div(k, kBK),
                                  device.sms);
  // A partial slab per consumer of every block, then a flag per slab; the flags hold the epoch of
  // the launch that raised them (a count per device, from 1: the workspace starts zeroed).
  const std::size_t partial_bytes = static_cast<std::size_t>(device.sms) * 2 * kPartialFloats * sizeof(float);
  auto* space =
      static_cast<unsigned char*>(workspace(Workspace::kStreamK, partial_bytes + device.sms * 2 * sizeof(unsigned)));
  const unsigned epoch = next_stream_k_epoch(device.device);
  matmul_wgmma_stream_k<TmaStore><<<static_cast<unsigned>(w.grid), kWsThreads, bytes, stream>>>(
      ops.map_a(m, kWsBM), ops.map_b(k), tc, c, m, n, k, w, reinterpret_cast<float*>(space),
      reinterpret_cast<unsigned*>(space + partial_bytes), epoch);
  CUDA_CHECK_LAUNCH("matmul_wgmma_stream_k");
}

template <bool TmaStore>
void launch_cluster_as(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream) {
  constexpr int bytes = persistent_smem_bytes<TmaStore>();
  const auto kernel = matmul_wgmma_cluster<TmaStore>;
  cudalab::allow_dynamic_shared_memory(kernel, bytes);
  const Operands ops(a, b, m, n, k, stream);
  const CUtensorMap ta = ops.map_a(m, kWsBM), tb = ops.map_b(k), tc = map_c<TmaStore>(c, m, n);
  const long long pairs =
      static_cast<long long>(cudalab::ceil_div(cudalab::ceil_div(m, kWsBM), 2)) * cudalab::ceil_div(n, kWsBN);
  // As many clusters as the GPU holds at once (cudaOccupancyMaxActiveClusters, the suite's cache).
  const int at_once = cudalab::resident_clusters(reinterpret_cast<const void*>(kernel), 2, kWsThreads, bytes);
  const long long clusters = pairs < at_once ? pairs : (at_once > 0 ? at_once : 1);
  const cudalab::ClusterLaunch launch(static_cast<unsigned>(2 * clusters), kWsThreads, bytes, stream, 2);
  CUDA_CHECK(cudaLaunchKernelEx(&launch.config, kernel, ta, tb, tc, c, m, n, k));
  CUDA_CHECK_LAUNCH("matmul_wgmma_cluster");
}

}  // namespace

void launch_cluster(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (tma_stores(c, n)) {
    launch_cluster_as<true>(a, b, c, m, n, k, stream);
  } else {
    launch_cluster_as<false>(a, b, c, m, n, k, stream);
  }
}

void launch_stream_k(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (tma_stores(c, n)) {
    launch_stream_k_as<true>(a, b, c, m, n, k, stream);
  } else {
    launch_stream_k_as<false>(a, b, c, m, n, k, stream);
  }
}

void launch_persistent(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                       cudaStream_t stream) {
  launch_persistent_as<false>(a, b, c, m, n, k, stream);
}

void launch_tma_store(const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, cudaStream_t stream) {
  if (tma_stores(c, n)) {
    launch_persistent_as<true>(a, b, c, m, n, k, stream);
  } else {
    launch_persistent_as<false>(a, b, c, m, n, k, stream);
  }
}

}  // namespace matmul::tensor::hopper
