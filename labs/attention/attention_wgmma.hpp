#pragma once
// The prefill on Hopper's own path (attention_wgmma.cu, built for sm_90a only): TMA brings Q once
// and K and V tile by tile into 128-byte-swizzled shared memory, wgmma computes S = Q K^T from
// shared memory and O += P V with P from registers, a producer warpgroup feeding two consumer
// warpgroups through full and empty mbarriers (FlashAttention-3's first ideas).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace attention::hopper {

// A block: 128 query rows (two consumer warpgroups of 64) against key tiles of 128.
constexpr int kWgmmaRows = 128, kWgmmaKeys = 128, kWgmmaThreads = 384;

// "" when this GPU runs the sm_90a kernels (compute capability 9.0 exactly); otherwise why not.
std::string unavailable();

// O for `heads` heads of q_len queries against kv_len keys, head dimension d (64 or 128), layout
// as attention.hpp's ([heads][tokens][d] BF16 bits); scale_log2 = log2(e) / sqrt(d). q, k and v
// must be 16-byte aligned (TMA); heads x tokens below 2^31.
// pingpong: the two consumer warpgroups take turns to issue their GEMMs (named barriers), each
// issuing tile t - 1's P V with tile t's S, so one's softmax runs while the other's GEMMs do.
void launch_prefill(int d, const std::uint16_t* q, const std::uint16_t* k, const std::uint16_t* v, std::uint16_t* o,
                    int heads, int q_len, int kv_len, bool causal, float scale_log2, bool pingpong, cudaStream_t stream);

}  // namespace attention::hopper
