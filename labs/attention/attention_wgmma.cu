// The prefill on Hopper's own path: TMA and wgmma, a producer warpgroup and two consumers. Built
// for sm_90a alone (cmake: cudalab_sm90a_kernels); attention_wgmma.hpp says what it runs.
//
// What prefill_mma_sync (the rung before) leaves on the table: every thread computes the
// addresses of its share of the cp.async copies and every warp loads its K and V fragments with
// ldmatrix before each 16 x 8 x 16 mma, so the same warps that multiply also feed; and a warp
// multiplies only its 16 rows. Here:
//  - one thread of a producer warpgroup asks the copy engine for whole tiles (Q once; K and V,
//    128 keys each, into two stages), written in the 128-byte swizzle that wgmma reads, their
//    bytes counted on the stage's `full` mbarrier; it gives its registers to the consumers
//    (setmaxnreg);
//  - two consumer warpgroups each own 64 query rows: S = Q K^T is wgmma.m64n128k16 with both
//    operands read by the Tensor Cores straight from shared memory (8 instructions at d = 128,
//    not 64 mma.sync and their ldmatrix); the online softmax runs on S's accumulators as in the
//    rung before (a row's scores sit in the 4 lanes of a quad); P, packed to BF16 in registers,
//    is the A operand of O += P V (wgmma with A from registers, V read from shared memory as an
//    N-major B), so P never goes through shared memory;
//  - a consumer hands a stage's K back (one arrival per warp on its `empty_k` mbarrier) once S is
//    computed, and its V once P V has read it; the producer refills each with the tile two
//    ahead. No block barrier in the loop.
// prefill_wgmma_pingpong adds FlashAttention-3's next two steps: the softmax of one warpgroup
// overlapped with the other's GEMMs (ping-pong), and within a warpgroup S of the next tile issued
// with P V of this one, the softmax computed while P V runs.
//
// Edges: Q, K and V are one 2-D map each of all heads' rows ([heads x tokens][d]); a tile past a
// head's last token reads the next head's rows (or zeros past the last head): such keys are
// masked to -inf, their P is 0 and their V rows count 0 x (a finite value); such query rows are
// never stored.
#include "attention_wgmma.hpp"

#include <cuda.h>
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "common/device_cache.hpp"
#include "common/hopper.cuh"
#include "common/math.hpp"
#include "common/mma.cuh"
#include "common/tensor_map.hpp"
#include "online_softmax.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "attention_wgmma.cu uses sm_90a instructions: build it for sm_90a only (cudalab_sm90a_kernels)"
#endif

namespace attention::hopper {
namespace {

using std::size_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;
namespace hw = cudalab::hopper;

constexpr unsigned kFull = 0xffffffffu;
constexpr int kBoxCols = 64;  // 64 BF16 = 128 bytes: the swizzle's row; a head of d has d / 64 such boxes

// Shared memory: Q (kWgmmaRows x D), then per stage K and V (kWgmmaKeys x D each), each tile as
// D / 64 boxes of its rows x 128 bytes (1024-byte aligned: every box is a multiple of 16 KB);
// then the barriers.
template <int D>
struct Layout {
  static constexpr int q_bytes = kWgmmaRows * D * 2;
  static constexpr int kv_bytes = kWgmmaKeys * D * 2;  // K or V of one stage
  static constexpr int q_box = kWgmmaRows * 128, kv_box = kWgmmaKeys * 128;
  static constexpr int stages = D == 64 ? 3 : 2;  // 112 KB in all at d = 64, 160 KB at d = 128
  static constexpr int barriers = 1 + 4 * stages;  // Q's; each stage's full and empty, for K and for V
  static constexpr int bytes = q_bytes + stages * 2 * kv_bytes + 8 * barriers + 1024;  // + the alignment
};

// ROWS rows of a map at `row`, all D columns (D / 64 boxes), into `dst`, counted on `bar`.
template <int D, int BoxBytes>
__device__ __forceinline__ void load_tile(unsigned char* dst, const CUtensorMap* map, int row, uint64_t* bar) {
#pragma unroll
  for (int c = 0; c < D / kBoxCols; ++c) hw::tma_load_2d(dst + c * BoxBytes, map, c * kBoxCols, row, bar);
}

// s (64 x 128: the warpgroup's query rows against the tile's keys) = Q's slab times K's tile^T:
// both K-major (a row of either is d contiguous BF16), k steps of 16 along d, 4 per 128-byte box.
template <int D>
__device__ __forceinline__ void qk(float (&s)[kWgmmaKeys / 2], const unsigned char* q_slab, const unsigned char* k_tile) {
#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks) {
    const int box = ks / 4, step = ks % 4;
    const uint64_t da = hw::desc_k_major(q_slab + box * Layout<D>::q_box + 32 * step);
    const uint64_t db = hw::desc_k_major(k_tile + box * Layout<D>::kv_box + 32 * step);
    hw::wgmma_m64n128k16_bf16<0>(s, da, db);
  }
}

// o (64 x D) += P (64 x 128 keys, BF16 A fragments in registers) times V's tile (128 keys x D):
// V is N-major (a row is d contiguous BF16 of one key), k steps of 16 keys (2,048 bytes), its
// 64-wide blocks of d one box (kv_box bytes) apart.
template <int D>
__device__ __forceinline__ void pv(float (&o)[D / 2], const uint32_t (&p)[kWgmmaKeys / 16][4], const unsigned char* v_tile) {
#pragma unroll
  for (int kk = 0; kk < kWgmmaKeys / 16; ++kk) {
    const uint64_t db = hw::desc_mn_major(v_tile + 2048 * kk, Layout<D>::kv_box);
    if constexpr (D == 64) {
      hw::wgmma_m64n64k16_bf16_rs<1>(o, p[kk], db);
    } else {
      hw::wgmma_m64n128k16_bf16_rs<1>(o, p[kk], db);
    }
  }
}

// Scale a tile's scores to base 2, mask them (past the sequence; past the diagonal), and each
// row's max in mx: element 4j + e of the accumulator is key kv0 + 8j + 2 (lane % 4) + (e & 1)
// of row ra (e < 2) or rb (tq4: lane % 4); a row's scores sit in the 4 lanes of a quad.
__device__ __forceinline__ void scale_mask_max(float (&sc)[kWgmmaKeys / 2], int tq4, int kv0, int ra, int rb, int kv_len,
                                               bool causal, int diag, float scale_log2, float (&mx)[2]) {
  mx[0] = mx[1] = -INFINITY;
#pragma unroll
  for (int j = 0; j < kWgmmaKeys / 8; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int key = kv0 + 8 * j + 2 * tq4 + (e & 1), row = e < 2 ? ra : rb;
      float x = sc[4 * j + e] * scale_log2;
      if (key >= kv_len || (causal && key > row + diag)) x = -INFINITY;
      sc[4 * j + e] = x;
      mx[e / 2] = fmaxf(mx[e / 2], x);
    }
  }
}

// The online softmax of one tile of scores, in two halves so that the second can wait for the
// P V still reading p and writing acc. probs_tile: scale to base 2, mask (past the sequence; past
// the diagonal), each row's max (element 4j + e of the accumulator is key kv0 + 8j + 2 (lane % 4)
// + (e & 1) of row ra (e < 2) or rb; a row's scores sit in the 4 lanes of a quad), the new m and
// the factor alpha for what was summed before, and sc's 2^(s - m) in place (l gets this lane's
// share; the quad's sum is taken at the end).
__device__ __forceinline__ void probs_tile(float (&sc)[kWgmmaKeys / 2], int kv0, int ra, int rb, int kv_len, bool causal,
                                           int diag, float scale_log2, float (&m)[2], float (&l)[2], float (&alpha)[2]) {
  float mx[2];
  scale_mask_max(sc, static_cast<int>(threadIdx.x) % 4, kv0, ra, rb, kv_len, causal, diag, scale_log2, mx);
  float base[2];
  online_max_step(mx, m, l, alpha, base);  // the quad's max, the rows' new m; l *= alpha
#pragma unroll
  for (int e = 0; e < kWgmmaKeys / 2; ++e) {
    sc[e] = exp2f(sc[e] - base[(e / 2) % 2]);
    l[(e / 2) % 2] += sc[e];
  }
}

// k step kk of P as the A fragment of P V, packed to BF16 pairs from the 8 probabilities x of
// accumulator groups 2kk and 2kk + 1 (keys 16kk .. 16kk + 15; hopper.cuh).
__device__ __forceinline__ void pack_p_step(uint32_t (&pk)[4], const float* x) {
  pk[0] = cudalab::pack_bf16(x[0], x[1]);  // row ra, keys 16kk + 2 (lane % 4) + {0, 1}
  pk[1] = cudalab::pack_bf16(x[2], x[3]);  // row rb
  pk[2] = cudalab::pack_bf16(x[4], x[5]);  // row ra, 8 keys further
  pk[3] = cudalab::pack_bf16(x[6], x[7]);  // row rb, 8 keys further
}

// O's two rows of this lane scaled by their alpha (the online softmax's rescale).
template <int D>
__device__ __forceinline__ void scale_rows(float (&acc)[D / 2], const float (&alpha)[2]) {
#pragma unroll
  for (int j = 0; j < D / 8; ++j) {
    acc[4 * j] *= alpha[0];
    acc[4 * j + 1] *= alpha[0];
    acc[4 * j + 2] *= alpha[1];
    acc[4 * j + 3] *= alpha[1];
  }
}

// rescale_pack: O's rows scaled by alpha, and P packed to BF16 pairs as the A fragments of P V.
template <int D>
__device__ __forceinline__ void rescale_pack(float (&acc)[D / 2], const float (&alpha)[2], const float (&sc)[kWgmmaKeys / 2],
                                             uint32_t (&p)[kWgmmaKeys / 16][4]) {
#pragma unroll
  for (int kk = 0; kk < kWgmmaKeys / 16; ++kk) pack_p_step(p[kk], sc + 8 * kk);
  scale_rows<D>(acc, alpha);
}

// Named barriers 1 and 2 (0 is __syncthreads): the turn of consumer warpgroup 0 and 1 to issue
// its GEMMs. A warpgroup waits for its own (bar.sync: its 128 threads and the other's 128
// arrivals) and, once its GEMMs are issued, passes the turn (bar.arrive on the other's).
__device__ __forceinline__ void turn_wait(int slab) {
  if (slab == 0) {
    hw::named_barrier_sync<1, 256>();
  } else {
    hw::named_barrier_sync<2, 256>();
  }
}
__device__ __forceinline__ void turn_pass(int slab) {
  if (slab == 0) {
    hw::named_barrier_arrive<2, 256>();
  } else {
    hw::named_barrier_arrive<1, 256>();
  }
}

template <int D, bool PingPong>
__global__ void __launch_bounds__(kWgmmaThreads, 1) prefill_wgmma(const __grid_constant__ CUtensorMap tq,
                                                                  const __grid_constant__ CUtensorMap tk,
                                                                  const __grid_constant__ CUtensorMap tv,
                                                                  uint16_t* __restrict__ o, int q_len, int kv_len,
                                                                  bool causal, float scale_log2) {
  using L = Layout<D>;
  constexpr int kStages = L::stages;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = hw::aligned_1024(smem_raw);
  unsigned char* q_tile = smem;
  const auto k_tile = [&](int s) { return smem + L::q_bytes + (2 * s) * L::kv_bytes; };
  const auto v_tile = [&](int s) { return smem + L::q_bytes + (2 * s + 1) * L::kv_bytes; };
  uint64_t* q_full = reinterpret_cast<uint64_t*>(smem + L::q_bytes + kStages * 2 * L::kv_bytes);
  // The ping-pong: K and V of a stage each have their own pair, K handed back as soon as S is
  // computed and V once P V has read it, so the producer can refill K while P V still runs. The
  // rung without it uses full_k and empty_k for K and V together, as before the ping-pong.
  uint64_t* full_k = q_full + 1;
  uint64_t* full_v = full_k + kStages;
  uint64_t* empty_k = full_v + kStages;
  uint64_t* empty_v = empty_k + kStages;

  // Causal: the query tiles nearest the end see the most keys; they take the first blocks.
  const int q_tiles = static_cast<int>(gridDim.x);
  const int q_tile_id = causal ? q_tiles - 1 - static_cast<int>(blockIdx.x) : static_cast<int>(blockIdx.x);
  const int head = static_cast<int>(blockIdx.y), q0 = q_tile_id * kWgmmaRows;
  const int diag = kv_len - q_len;  // query i sees keys 0 .. i + diag (causal)
  const int kv_end = causal ? min(kv_len, min(q0 + kWgmmaRows, q_len) + diag) : kv_len;
  const int tiles = kv_end > 0 ? (kv_end + kWgmmaKeys - 1) / kWgmmaKeys : 0;
  const int wg = static_cast<int>(threadIdx.x) / 128;

  if (threadIdx.x == 0) {
    hw::mbarrier_init(q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      hw::mbarrier_init(&full_k[s], 1);   // the producer's arrival, with the bytes
      hw::mbarrier_init(&full_v[s], 1);
      hw::mbarrier_init(&empty_k[s], 8);  // one per consumer warp
      hw::mbarrier_init(&empty_v[s], 8);
    }
    hw::fence_barrier_init();
  }
  __syncthreads();

  if (wg == 0) {  // the producer
    hw::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      hw::mbarrier_arrive_expect_tx(q_full, L::q_bytes);
      load_tile<D, L::q_box>(q_tile, &tq, head * q_len + q0, q_full);
      for (int t = 0; t < tiles; ++t) {
        const int s = t % kStages;
        const int row = head * kv_len + t * kWgmmaKeys, phase = (t / kStages - 1) & 1;
        if constexpr (PingPong) {
          if (t >= kStages) hw::mbarrier_wait(&empty_k[s], phase);  // K of tile t - kStages is read
          hw::mbarrier_arrive_expect_tx(&full_k[s], L::kv_bytes);
          load_tile<D, L::kv_box>(k_tile(s), &tk, row, &full_k[s]);
          if (t >= kStages) hw::mbarrier_wait(&empty_v[s], phase);  // and its V
          hw::mbarrier_arrive_expect_tx(&full_v[s], L::kv_bytes);
          load_tile<D, L::kv_box>(v_tile(s), &tv, row, &full_v[s]);
        } else {  // K and V of a stage together, on full_k and empty_k
          if (t >= kStages) hw::mbarrier_wait(&empty_k[s], phase);  // tile t - kStages is read
          hw::mbarrier_arrive_expect_tx(&full_k[s], 2 * L::kv_bytes);
          load_tile<D, L::kv_box>(k_tile(s), &tk, row, &full_k[s]);
          load_tile<D, L::kv_box>(v_tile(s), &tv, row, &full_k[s]);
        }
      }
    }
    return;
  }

  hw::setmaxnreg_inc<232>();
  const int slab = wg - 1;  // the consumer's 64 query rows of the block's 128
  const int t128 = static_cast<int>(threadIdx.x) % 128, warp = t128 / 32, lane = t128 % 32;
  const int g = lane / 4, tq4 = lane % 4;
  const int ra = q0 + 64 * slab + 16 * warp + g, rb = ra + 8;  // this thread's two query rows
  const unsigned char* q_slab = q_tile + 64 * slab * 128;    // 64 rows into each box of Q

  float acc[D / 2];
#pragma unroll
  for (int e = 0; e < D / 2; ++e) acc[e] = 0.0f;
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
  hw::mbarrier_wait(q_full, 0);

  if constexpr (PingPong) {
    // FlashAttention-3's order. In its turn a warpgroup issues S of tile t, then P V of tile t - 1
    // (two wgmma groups), and passes the turn; it waits for S alone (groups end in order), hands
    // K back, and computes tile t's probabilities while its P V and the other warpgroup's GEMMs
    // run; then it waits for P V, hands V back, and rescales O and packs P for the next turn.
    // The first tile (S alone) and the last P V are peeled off the loop: a wgmma under a branch
    // inside it would make ptxas serialise every wgmma of the kernel (its C7520).
    if (slab == 1) turn_pass(1);  // warpgroup 0 goes first
    uint32_t p[kWgmmaKeys / 16][4];
    float sc[kWgmmaKeys / 2], alpha[2];
    if (tiles > 0) {
      hw::mbarrier_wait(&full_k[0], 0);
#pragma unroll
      for (int e = 0; e < kWgmmaKeys / 2; ++e) sc[e] = 0.0f;
      turn_wait(slab);
      hw::wgmma_fence();
      qk<D>(sc, q_slab, k_tile(0));
      hw::wgmma_commit();
      turn_pass(slab);
      hw::wgmma_wait<0>();
      hw::fence_operands(sc);
      if (lane == 0) hw::mbarrier_arrive(&empty_k[0]);
      probs_tile(sc, 0, ra, rb, kv_len, causal, diag, scale_log2, m, l, alpha);
      rescale_pack<D>(acc, alpha, sc, p);
      for (int t = 1; t < tiles; ++t) {
        const int s = t % kStages, prev = (t - 1) % kStages;
        hw::mbarrier_wait(&full_k[s], (t / kStages) & 1);
#pragma unroll
        for (int e = 0; e < kWgmmaKeys / 2; ++e) sc[e] = 0.0f;
        hw::mbarrier_wait(&full_v[prev], ((t - 1) / kStages) & 1);
        turn_wait(slab);
        hw::wgmma_fence();  // acc, p and sc were written by these threads
        qk<D>(sc, q_slab, k_tile(s));
        hw::wgmma_commit();
        pv<D>(acc, p, v_tile(prev));
        hw::wgmma_commit();
        turn_pass(slab);
        hw::wgmma_wait<1>();  // S of tile t is done; P V of tile t - 1 may still run
        hw::fence_operands(sc);
        if (lane == 0) hw::mbarrier_arrive(&empty_k[s]);  // K of tile t is read
        probs_tile(sc, t * kWgmmaKeys, ra, rb, kv_len, causal, diag, scale_log2, m, l, alpha);
        hw::wgmma_wait<0>();
        hw::fence_operands(acc);
        if (lane == 0) hw::mbarrier_arrive(&empty_v[prev]);  // V of tile t - 1 is read
        rescale_pack<D>(acc, alpha, sc, p);
      }
      const int last = (tiles - 1) % kStages;
      hw::mbarrier_wait(&full_v[last], ((tiles - 1) / kStages) & 1);
      turn_wait(slab);
      hw::wgmma_fence();
      pv<D>(acc, p, v_tile(last));
      hw::wgmma_commit();
      turn_pass(slab);
      hw::wgmma_wait<0>();
      hw::fence_operands(acc);
      if (lane == 0) hw::mbarrier_arrive(&empty_v[last]);
    }
    if (slab == 0) turn_wait(0);  // warpgroup 1's last pass: every arrival on a turn is matched
  } else {
    // The rung as it was before the ping-pong: one full and one empty mbarrier a stage (full_k
    // and empty_k), K and V arriving and handed back together.
    for (int t = 0; t < tiles; ++t) {
      const int s = t % kStages, kv0 = t * kWgmmaKeys;
      hw::mbarrier_wait(&full_k[s], (t / kStages) & 1);

      float sc[kWgmmaKeys / 2];
  #pragma unroll
      for (int e = 0; e < kWgmmaKeys / 2; ++e) sc[e] = 0.0f;
      hw::wgmma_fence();
      qk<D>(sc, q_slab, k_tile(s));
      hw::wgmma_commit();
      hw::wgmma_wait<0>();
      hw::fence_operands(sc);

      float mx[2];
      scale_mask_max(sc, tq4, kv0, ra, rb, kv_len, causal, diag, scale_log2, mx);
      float alpha[2], base[2];
      online_max_step(mx, m, l, alpha, base);  // the quad's max, the rows' new m; l *= alpha
      // P = 2^(s - m), packed to BF16 pairs as the A fragments of P V: accumulator groups 2kk and
      // 2kk + 1 (keys 16kk .. 16kk + 15) are k step kk (hopper.cuh).
      uint32_t p[kWgmmaKeys / 16][4];
  #pragma unroll
      for (int kk = 0; kk < kWgmmaKeys / 16; ++kk) {
        float x[8];
  #pragma unroll
        for (int e = 0; e < 8; ++e) {
          x[e] = exp2f(sc[8 * kk + e] - base[(e / 2) % 2]);
          l[(e / 2) % 2] += x[e];  // this lane's share; the quad's sum is taken at the end
        }
        pack_p_step(p[kk], x);
      }
      scale_rows<D>(acc, alpha);
      hw::wgmma_fence();  // acc and p were written by these threads: make them the wgmma's operands
      pv<D>(acc, p, v_tile(s));
      hw::wgmma_commit();
      hw::wgmma_wait<0>();
      hw::fence_operands(acc);
      if (lane == 0) hw::mbarrier_arrive(&empty_k[s]);  // K and V of this stage are read: refill it
    }
  }

  float inv[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    l[h] += __shfl_xor_sync(kFull, l[h], 1);
    l[h] += __shfl_xor_sync(kFull, l[h], 2);
    inv[h] = l[h] > 0.0f ? 1.0f / l[h] : 0.0f;
  }
  uint16_t* oh = o + static_cast<size_t>(head) * q_len * D;
#pragma unroll
  for (int j = 0; j < D / 8; ++j) {
    const int c = 8 * j + 2 * tq4;
    if (ra < q_len) {
      *reinterpret_cast<uint32_t*>(oh + static_cast<size_t>(ra) * D + c) = cudalab::pack_bf16(acc[4 * j] * inv[0], acc[4 * j + 1] * inv[0]);
    }
    if (rb < q_len) {
      *reinterpret_cast<uint32_t*>(oh + static_cast<size_t>(rb) * D + c) =
          cudalab::pack_bf16(acc[4 * j + 2] * inv[1], acc[4 * j + 3] * inv[1]);
    }
  }
}

template <int D, bool PingPong>
void launch_d(const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o, int heads, int q_len, int kv_len,
              bool causal, float scale_log2, cudaStream_t stream) {
  constexpr int bytes = Layout<D>::bytes;
  cudalab::allow_dynamic_shared_memory(prefill_wgmma<D, PingPong>, bytes);
  const auto q_rows = static_cast<std::uint64_t>(heads) * q_len, kv_rows = static_cast<std::uint64_t>(heads) * kv_len;
  const CUtensorMap tq = cudalab::tensor_map_bf16_2d(q, D, q_rows, D, kBoxCols, kWgmmaRows);
  const CUtensorMap tk = cudalab::tensor_map_bf16_2d(k, D, kv_rows, D, kBoxCols, kWgmmaKeys);
  const CUtensorMap tv = cudalab::tensor_map_bf16_2d(v, D, kv_rows, D, kBoxCols, kWgmmaKeys);
  const dim3 grid(static_cast<unsigned>(cudalab::ceil_div(q_len, kWgmmaRows)), static_cast<unsigned>(heads));
  prefill_wgmma<D, PingPong><<<grid, kWgmmaThreads, bytes, stream>>>(tq, tk, tv, o, q_len, kv_len, causal, scale_log2);
  CUDA_CHECK_LAUNCH("prefill_wgmma");
}

}  // namespace

std::string unavailable() { return cudalab::sm90a_unavailable(prefill_wgmma<64, false>); }

void launch_prefill(int d, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o, int heads, int q_len,
                    int kv_len, bool causal, float scale_log2, bool pingpong, cudaStream_t stream) {
  // TMA's row coordinate is a 32-bit int, the tile past the last head's end included.
  const long long rows = static_cast<long long>(heads) * std::max(q_len, kv_len) + kWgmmaKeys;
  if (rows > std::numeric_limits<int>::max()) {
    throw std::invalid_argument("attention: prefill_wgmma: heads x tokens must be below 2^31");
  }
  if (d == 64) {
    (pingpong ? launch_d<64, true> : launch_d<64, false>)(q, k, v, o, heads, q_len, kv_len, causal, scale_log2, stream);
  } else if (d == 128) {
    (pingpong ? launch_d<128, true> : launch_d<128, false>)(q, k, v, o, heads, q_len, kv_len, causal, scale_log2, stream);
  } else {
    throw std::invalid_argument("attention: prefill_wgmma: head dimension 64 or 128");
  }
}

}  // namespace attention::hopper
