#pragma once
// roofline: the performance model of the notes, measured. A kernel with a dial for arithmetic
// intensity (k FMAs per element loaded and stored) in FP32 and FP64, a pure-FMA kernel for the
// compute roof, instruction throughput (expf vs __expf vs fast math, integer division, FMA vs
// multiply-then-add), and the notes' RMSNorm exercise in BF16.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace roofline {

// The dial's FMA counts: powers of two from 1 to 2048.
std::vector<int> dial_ks();

// out[i] = f_k(in[i]): k fused multiply-adds on the element, in up to 8 independent chains,
// then the chains summed. Each thread moves 16 bytes (4 floats or 2 doubles); in and out must be
// 16-byte aligned (std::invalid_argument otherwise). Launched on the default stream; T is float or double.
template <typename T>
void launch_dial(const T* in, T* out, std::size_t n, int k);

// The compute roof: one full wave of blocks of `threads` (as many as fit on every SM at once),
// each thread `iters` rounds of 8 independent FMA chains, no memory. flops: FLOP/s measured with
// events (2 FLOP per FMA); clock_hz: the SM clock while it ran (the longest block's clock64 cycles
// over the event time: a little low, by the launch's own time).
struct FmaPeak {
  double flops = 0, clock_hz = 0;
};
template <typename T>
FmaPeak fma_peak(int threads, int iters);

// The BF16 Tensor Core roof: one full wave of blocks of `threads`, every warp issuing
// mma.sync.m16n8k16 (BF16 A and B, FP32 accumulation) on operands in registers, 8 independent
// accumulator tiles per warp, `iters` rounds, no memory. A and B are all ones, so every
// accumulator ends at 16 x iters, exactly (iters <= 2^20): `correct` says every one did.
// `available` is false before sm_80 (no BF16 mma), and then nothing ran.
struct TensorPeak {
  bool available = false, correct = false;
  double flops = 0, clock_hz = 0;
};
TensorPeak tensor_peak_bf16(int threads, int iters);
// The same roof through Hopper's wgmma (wgmma_roof.cu, sm_90a): one block of two warpgroups per
// SM, each issuing wgmma.m64n256k16 from shared memory (A and B all ones) in chains of 4,
// `iters` rounds (1 <= iters <= 2^18); every accumulator ends at 64 x iters. `available` is
// false off compute capability 9.0 (or in a build without sm_90a code), and then nothing ran.
TensorPeak tensor_peak_bf16_wgmma(int iters);

// Instruction throughput: n independent evaluations per kernel, timed with events; ops/s.
enum class ExpKind { kExpf, kIntrinsic, kFastMath };  // expf, __expf, expf under --use_fast_math
// out[i] = sum over r < reps of exp(in[i] + r / 1024); reps = 1 gives exp(in[i]) itself.
double exp_throughput(ExpKind kind, const std::vector<float>& in, int reps, std::vector<float>* out);
enum class DivKind { kRuntimeDivisor, kShiftMask };  // x / d and x % d with d a kernel argument; x >> s, x & m
// out[i] = sum over r < reps of (x / d + x % d) with x = in[i] + r (d a power of two for kShiftMask).
double div_throughput(DivKind kind, const std::vector<std::uint32_t>& in, std::uint32_t divisor, int reps,
                      std::vector<std::uint32_t>* out);
// v = a * v + c, `reps` times from v = b, fused (fmaf) or as a rounded multiply then a rounded
// add (__fmul_rn, __fadd_rn); reps = 1 gives a * b + c. Returns the multiply-adds per second.
double fma_vs_mul_add(bool fused, const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
                      int reps, std::vector<float>* out);

// RMSNorm over rows x cols BF16 (stored as raw 16-bit patterns): y = x / sqrt(mean(x^2) + eps) * w,
// one block of up to 256 threads per row, each thread up to four 16-byte loads in flight; cols a
// multiple of 256 (whole warps) and at most 8192. With `scales` (rows floats on the device) it runs
// unfused: a first kernel writes each row's 1 / rms there, a second reads x again and scales it. The
// two kernels sum in the fused kernel's order, so both give the same bits.
void launch_rmsnorm(const std::uint16_t* x, const std::uint16_t* w, std::uint16_t* y, int rows, int cols, float eps,
                    float* scales = nullptr);

}  // namespace roofline
