#pragma once
// attention: the operator of a transformer layer, from its parts to one fused kernel.
//
//   softmax   y = softmax(x) of each row (FP32 or BF16 in and out, FP32 math): three passes over
//             the row, one pass with the online (running max) rescaling and a second to write,
//             and the row held in registers (one read, one write: the copy's bytes).
//   prefill   O = softmax(Q K^T / sqrt(d)) V for every query of a sequence (BF16 Q, K, V and O,
//             FP32 accumulation, head dim 64 or 128, causal or not): the unfused path (two
//             cuBLAS GEMMs and this lab's softmax, the S x S scores through DRAM), a fused SIMT
//             kernel with the online softmax (FlashAttention-1's idea: one warp per query row),
//             and FlashAttention-2's loop order on mma.sync Tensor Core instructions (a warp per
//             16 query rows, P kept in registers as the A operand of P V), and on Hopper the same
//             loop on wgmma fed by TMA, a producer warpgroup and two consumers (sm_90a only);
//             causal key tiles past the diagonal are skipped, not masked.
//   decode    the same for one query token against a long KV cache: a block per head, and the
//             cache split over the SMs (flash-decoding) with a second kernel that merges the
//             splits' partial results.
//
// Layout: Q, K, V and O are [heads][tokens][d], row-major, BF16 (the raw 16 bits), one head
// after another (batch x heads flattened: `heads`).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/device_buffer.hpp"
#include "common/variants.hpp"

namespace attention {

enum class Variant {
  kSoftmaxThreePass,
  kSoftmaxOnline,
  kSoftmaxRegisters,
  kPrefillFusedSimt,
  kPrefillMmaSync,
  kPrefillWgmma,
  kPrefillWgmmaPingpong,
  kDecodePerHead,
  kDecodeSplit,
};
CUDALAB_DECLARE_VARIANTS(Variant)

enum class Kind { kSoftmax, kPrefill, kDecode };
Kind kind_of(Variant v);
// "" when this GPU runs the variant; otherwise why not (the Hopper rungs, prefill_wgmma and
// prefill_wgmma_pingpong: compute capability 9.0 with sm_90a machine code in the build). A
// variant it does not run is named and left out.
std::string unavailable(Variant v);
const char* kind_name(Kind k);

// The element type of softmax's rows.
enum class Elem { kF32, kBf16 };
inline std::size_t elem_bytes(Elem e) { return e == Elem::kF32 ? 4 : 2; }

// The longest row softmax_registers holds (1024 threads x 32 values); the lab's --cols limit.
inline constexpr int kMaxSoftmaxCols = 32768;

// y[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r), for rows x cols elements of type
// `e` (x and y may not overlap). Throws std::invalid_argument for a variant that is not a softmax
// or cols past kMaxSoftmaxCols.
void softmax(Variant v, Elem e, const void* x, void* y, int rows, int cols, cudaStream_t stream = nullptr);

// One attention problem: `heads` independent heads (batch x heads), queries of q_len tokens
// against keys and values of kv_len tokens, head dimension d (64 or 128). causal: query i (of a
// prefill, q_len == kv_len) sees keys 0 .. i only. A decode has q_len == 1 and sees every key.
struct Shape {
  int heads = 1;
  int q_len = 1;
  int kv_len = 1;
  int d = 128;
  bool causal = false;
};
// Whether the lab's kernels take this head dimension.
inline bool supported_dim(int d) { return d == 64 || d == 128; }

// Scratch for the split decode: each split's running max, sum and unnormalised output.
class DecodeWorkspace {
 public:
  DecodeWorkspace(int heads, int d, int max_splits);
  int max_splits() const { return max_splits_; }
  float* partials() { return partials_.data(); }  // [heads][splits][d + 2]

 private:
  int max_splits_;
  cudalab::DeviceBuffer<float> partials_;
};

// The number of splits the split decode uses for this shape on `sms` SMs: enough blocks to fill
// the GPU twice over, each split at least 256 keys.
int decode_splits(const Shape& s, int sms);

// O for the shape by a fused variant (prefill or decode: its kind must match q_len, 1 for a
// decode). q, k, v and o are BF16 bits as in the layout above. Throws std::invalid_argument for
// a head dimension other than 64 or 128, a causal prefill with q_len != kv_len, or a variant of
// another kind.
void attend(Variant v, const Shape& s, const std::uint16_t* q, const std::uint16_t* k, const std::uint16_t* vv,
            std::uint16_t* o, DecodeWorkspace* ws, cudaStream_t stream = nullptr);

// The unfused prefill, the library baseline: S = Q K^T / sqrt(d) by cuBLAS (FP32 scores in
// DRAM), P = softmax(S) by softmax_registers (BF16, the causal mask applied), O = P V by cuBLAS.
class Unfused {
 public:
  explicit Unfused(const Shape& s);
  ~Unfused();
  Unfused(const Unfused&) = delete;
  Unfused& operator=(const Unfused&) = delete;
  void run(const std::uint16_t* q, const std::uint16_t* k, const std::uint16_t* v, std::uint16_t* o,
           cudaStream_t stream = nullptr);
  // The bytes of the scores and probabilities it keeps in DRAM.
  static double scratch_bytes(const Shape& s);

 private:
  Shape s_;
  void* handle_ = nullptr;
  cudalab::DeviceBuffer<float> scores_;
  cudalab::DeviceBuffer<std::uint16_t> probs_;
};

// The causal mask of the unfused path, row by row: softmax of x where column c > row r (within
// each head's q_len x kv_len block of rows) counts as -inf. Used by Unfused; public for its test.
void masked_softmax_bf16(const float* x, std::uint16_t* y, int heads, int q_len, int kv_len, bool causal,
                         cudaStream_t stream = nullptr);

// Fills n elements with `scale` times the uniform values in [-1, 1) of (seed, index), BF16 or
// FP32: the numbers of reference.hpp's input_value, so inputs of many GiB are made on the GPU and
// the CPU computes only the rows it checks. scale a power of two keeps them exact.
void fill_inputs(std::uint16_t* x, std::size_t n, std::uint64_t seed, float scale, cudaStream_t stream = nullptr);
void fill_inputs(float* x, std::size_t n, std::uint64_t seed, float scale, cudaStream_t stream = nullptr);

}  // namespace attention
