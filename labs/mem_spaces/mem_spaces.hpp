#pragma once
// mem_spaces: registers, shared (static and dynamic), constant and __device__ global memory in
// one kernel, each with its scope and lifetime; then two of the notes' remarks, measured:
// atomics on one address, and an array that spills to local memory.
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace mem_spaces {

inline constexpr int kMaxBlock = 1024;     // the static __shared__ array holds one float per thread
inline constexpr int kMaxBlocks = 65536;   // entries of the __device__ per-block scratch array
inline constexpr std::array<float, 4> kInitialWeights{0.5f, 1.0f, 1.5f, 2.0f};  // __constant__ initialiser

// ---- the demo kernel and its symbols ----
void write_weights(const std::array<float, 4>& w);   // cudaMemcpyToSymbol(c_weight)
std::array<float, 4> read_weights();                  // cudaMemcpyFromSymbol(c_weight)
void reset_globals(int blocks);                       // g_scratch[0..blocks) = 0, g_block_count = 0
std::vector<float> read_scratch(int blocks);          // cudaMemcpyFromSymbol(g_scratch)
int read_block_count();                               // cudaMemcpyFromSymbol(g_block_count)
// block threads, dynamic shared memory = block floats.
void launch_demo(const float* in, float* out, int n, int block, cudaStream_t stream = nullptr);
cudaFuncAttributes demo_attributes();
int demo_api_blocks_per_sm(int block);  // cudaOccupancyMaxActiveBlocksPerMultiprocessor, block floats dynamic

// The CPU model, in the block's order of work: phase 1 loads s_data, phase 2 writes s_dyn,
// phase 3 reads it back; out[i] exactly, scratch[b] = sum of the block's outputs.
struct DemoResult {
  std::vector<float> out, scratch;
  std::vector<double> scratch_abs;  // sum of |terms| per block, for the rounding bound
};
DemoResult reference(const std::vector<float>& in, int block, const std::array<float, 4>& w);

// ---- atomics: one counter, three ways ----
// The variants, in ladder order; the table in mem_spaces.cu says what each changes.
enum class AtomicVariant { kPerThread, kPerWarp, kPerBlock };
const std::vector<AtomicVariant>& atomic_variants();
std::string atomic_name(AtomicVariant v);
std::string atomic_summary(AtomicVariant v);
long long atomics_issued(AtomicVariant v, std::size_t n, int block);
void launch_sum(AtomicVariant v, const int* in, std::size_t n, unsigned long long* total, int block,
                cudaStream_t stream = nullptr);
cudaFuncAttributes atomic_attributes(AtomicVariant v);

// ---- atomics under contention: element i added into counter i % addresses ----
// counters[a] = the sum of every in[i] with i % addresses == a (64-bit, exact in any order).
void launch_spread_sum(const int* in, std::size_t n, unsigned long long* counters, int addresses, int block,
                       cudaStream_t stream = nullptr);
std::vector<long long> spread_sum_reference(const std::vector<int>& in, int addresses);

// ---- constant memory: broadcast against divergent reads ----
// A table of kTableWords words, in __constant__ memory and in a __device__ global copy. In round r,
// lane l of every warp reads word (l % distinct + 32 r) % kTableWords: one instruction of the
// warp asks for `distinct` different words (distinct: 1, 2, 4, 8, 16 or 32), all in one 128-byte
// line of the global copy. out[i] = the sum of its reads (unsigned, wrapping).
constexpr int kTableWords = 1024;
constexpr int kTableRounds = 64;
static_assert(16 * (kTableRounds - 1) < kTableWords, "kConstantKnown reads word 16 r");
// kConstantKnown: distinct 1 only, every round unrolled, so each word's index is a number the
// compiler knows and the word an operand of the instruction (no load instruction); round r
// reads word 16 r (64 different words), every lane alike: table_read_known_reference.
enum class TableRead { kConstant, kLdg, kConstantKnown };
std::string table_read_name(TableRead how);
void write_table(const std::vector<unsigned>& words);  // both copies; kTableWords words
void launch_table_reads(TableRead how, int distinct, unsigned* out, std::size_t threads, int block,
                        cudaStream_t stream = nullptr);
unsigned table_read_reference(const std::vector<unsigned>& words, int distinct, unsigned lane);
unsigned table_read_known_reference(const std::vector<unsigned>& words);

// ---- a per-thread array: indexed at run time (local memory) vs at compile time (registers) ----
enum class ArrayVariant { kLocalMemory, kRegisters };
std::string array_name(ArrayVariant v);
// out[i] = sum over r of a[(i + r) % 32] * (r + 1), a[k] = in[(32 * i + k) % n], unsigned arithmetic.
void launch_array(ArrayVariant v, const unsigned* in, unsigned* out, std::size_t n, int block,
                  cudaStream_t stream = nullptr);
cudaFuncAttributes array_attributes(ArrayVariant v);
unsigned array_reference(const std::vector<unsigned>& in, std::size_t i);

// ---- texture: bilinear sampling by the texture unit and by hand ----
// Every output pixel (x, y) of a width x height float image is the image sampled at
// (x + fx, y + fy) with 0 <= fx, fy < 1: the four texels around it weighted bilinearly, the edges
// clamped. The texture unit does it from a cudaArray in one tex2D fetch (cudaFilterModeLinear;
// its weights have 8 fraction bits); the hand-written kernel loads the four texels (__ldg) and
// weights them in FP32.
class BilinearTexture {
 public:
  BilinearTexture(const std::vector<float>& image, int width, int height);
  ~BilinearTexture();
  BilinearTexture(const BilinearTexture&) = delete;
  BilinearTexture& operator=(const BilinearTexture&) = delete;
  cudaTextureObject_t object() const { return tex_; }

 private:
  cudaArray_t array_ = nullptr;
  cudaTextureObject_t tex_ = 0;
};
enum class Bilinear { kTexture, kByHand };
void launch_bilinear(Bilinear how, const BilinearTexture& tex, const float* image, float* out, int width, int height,
                     float fx, float fy, cudaStream_t stream = nullptr);

// Texel (x, y) of the image, clamped into it on the right and at the bottom (as the samples read it).
inline double clamped_texel(const std::vector<float>& image, int width, int height, int x, int y) {
  x = x < width ? x : width - 1;
  y = y < height ? y : height - 1;
  return image[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)];
}

// The CPU's sample, in double.
inline double bilinear_reference(const std::vector<float>& image, int width, int height, int x, int y, double fx,
                                 double fy) {
  const auto at = [&](int xx, int yy) { return clamped_texel(image, width, height, xx, yy); };
  return (1 - fx) * (1 - fy) * at(x, y) + fx * (1 - fy) * at(x + 1, y) + (1 - fx) * fy * at(x, y + 1) +
         fx * fy * at(x + 1, y + 1);
}
// How far the texture unit's sample may be from the CPU's: its weights have 8 fraction bits, so
// each direction's weight is off by less than 1/256 and the sample by less than the spread of
// its four texels times 2/256; FP32 rounding on top (the hand-written kernel is held to that alone).
inline double bilinear_tolerance(const std::vector<float>& image, int width, int height, int x, int y, bool texture) {
  double lo = 1e300, hi = -1e300, mag = 0;
  for (int dy = 0; dy < 2; ++dy) {
    for (int dx = 0; dx < 2; ++dx) {
      const double v = clamped_texel(image, width, height, x + dx, y + dy);
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
      mag += v < 0 ? -v : v;
    }
  }
  return (texture ? (hi - lo) * 2.0 / 256.0 : 0.0) + 8.0 * mag * 0x1p-24;
}

}  // namespace mem_spaces
