#pragma once
// transpose: out = in^T for a rows x cols float matrix, from the naive kernel (coalesced reads,
// strided writes) through a shared-memory tile, its padded and swizzled forms, to more elements
// per thread; and a one-warp microbenchmark of shared memory's banks.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "common/variants.hpp"

namespace transpose {

// The variants, in ladder order; the table in transpose.cu says what each changes.
enum class Variant { kNaive, kTiled, kPadded, kSwizzled, kPaddedCoarse };
CUDALAB_DECLARE_VARIANTS(Variant)

// The grid and block variant v launches for a rows x cols input (its row of the table).
struct LaunchShape {
  unsigned grid_x = 0, grid_y = 0;
  int block_x = 0, block_y = 0;
  long long blocks() const { return static_cast<long long>(grid_x) * grid_y; }
  int threads_per_block() const { return block_x * block_y; }
};
LaunchShape launch_shape(Variant v, int rows, int cols);

// out (cols x rows) = in (rows x cols)^T, row-major, enqueued on the default stream.
void launch(Variant v, const float* in, float* out, int rows, int cols);

// The bank microbenchmark: one warp, each lane following a chain of shared-memory loads whose
// addresses depend on the previous load, so each access costs its full latency plus one pass
// per extra word its bank must serve.
enum class BankPattern { kStride, kBytes, kBroadcast };
struct BankCase {
  BankPattern pattern = BankPattern::kStride;
  int stride = 1;  // words between lanes (kStride)
};
std::string bank_case_name(const BankCase& c);
// The word (or, for kBytes, byte) offset lane t reads.
std::size_t bank_case_offset(const BankCase& c, int lane);
// Cycles per access of lane 0's chain of `accesses` loads, timed in chunks of 64 (the fastest
// chunk: another process's work on the SM only lengthens one); -1 if a lane's chain went astray.
double bank_cycles(const BankCase& c, int accesses);

}  // namespace transpose
