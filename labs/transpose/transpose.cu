// transpose: the kernels of the ladder and the bank microbenchmark.
#include "transpose.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/variants.hpp"

namespace transpose {

namespace {

constexpr int kTile = 32;

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  // STUDENT-BEGIN(transpose.naive): one element per thread
  // TASK: Thread (threadIdx.x, threadIdx.y) of block (blockIdx.x, blockIdx.y) owns column
  // c = blockIdx.x * blockDim.x + threadIdx.x and row r = blockIdx.y * blockDim.y + threadIdx.y
  // of `in` (rows x cols). If both are inside the matrix, copy in[r][c] to out[c][r] (out is
  // cols x rows). Use 64-bit offsets.
  // HINT: about 4 lines.
  // STUB: (void)in; (void)out; (void)rows; (void)cols;
  const int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int r = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (r < rows && c < cols) out[static_cast<std::size_t>(c) * rows + r] = in[static_cast<std::size_t>(r) * cols + c];
  // STUDENT-END(transpose.naive)
}

// The tile's column for element (row, col) of the tile: as is, or XOR-swizzled by the row.
template <bool Swizzle>
__device__ __forceinline__ int tile_col(int row, int col) {
  return Swizzle ? (col ^ row) : col;
}

// One 32 x 32 tile per block of 32 x BlockRows threads. Pad: the tile's row length is 33.
template <int Pad, bool Swizzle, int BlockRows>
__global__ void transpose_tile(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + Pad];
  // STUDENT-BEGIN(transpose.tile): through a shared tile
  // TASK: The block owns the tile whose top-left element is in[blockIdx.y * 32][blockIdx.x * 32].
  // Load it row by row: thread (tx, ty) reads in[row0 + ty + j][col0 + tx] for j = 0,
  // BlockRows, 2 * BlockRows, ... < 32 and stores it at tile[ty + j][tile_col<Swizzle>(ty + j, tx)]
  // (rows and columns inside the matrix only). Wait for the whole tile. Then write the
  // transposed tile, again row by row and coalesced: out[col0 + ty + j][row0 + tx] (out is
  // cols x rows) takes tile[tx][tile_col<Swizzle>(tx, ty + j)].
  // HINT: about 14 lines; two loops around one __syncthreads().
  // STUB: (void)in; (void)out; (void)rows; (void)cols; (void)tile;
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int row0 = static_cast<int>(blockIdx.y) * kTile, col0 = static_cast<int>(blockIdx.x) * kTile;
  for (int j = 0; j < kTile; j += BlockRows) {
    const int r = row0 + ty + j, c = col0 + tx;
    if (r < rows && c < cols) tile[ty + j][tile_col<Swizzle>(ty + j, tx)] = in[static_cast<std::size_t>(r) * cols + c];
  }
  __syncthreads();
  for (int j = 0; j < kTile; j += BlockRows) {
    const int r = col0 + ty + j, c = row0 + tx;  // a row and a column of out (cols x rows)
    if (r < cols && c < rows) out[static_cast<std::size_t>(r) * rows + c] = tile[tx][tile_col<Swizzle>(tx, ty + j)];
  }
  // STUDENT-END(transpose.tile)
}

unsigned tiles(int n) { return static_cast<unsigned>((n + kTile - 1) / kTile); }

// The launchers take the grid and block of launch_shape(), the one place they are worked out:
// naive, one thread per element (blocks of 32 x 8 over 32 columns and 8 rows); a tile kernel, one
// block of 32 x BlockRows threads per 32 x 32 tile.
void launch_naive(const float* in, float* out, int rows, int cols, dim3 grid, dim3 block) {
  transpose_naive<<<grid, block>>>(in, out, rows, cols);
}

template <int Pad, bool Swizzle, int BlockRows>
void launch_tile(const float* in, float* out, int rows, int cols, dim3 grid, dim3 block) {
  if (block.y != static_cast<unsigned>(BlockRows)) throw std::logic_error("transpose: a row's block_rows is not its kernel's");
  transpose_tile<Pad, Swizzle, BlockRows><<<grid, block>>>(in, out, rows, cols);
}

struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  void (*launch)(const float* in, float* out, int rows, int cols, dim3 grid, dim3 block);
  int block_rows;  // the block is 32 x block_rows threads
  bool tiled;      // one block per 32 x 32 tile (else one element per thread)
};

// The ladder, described once: a row is the whole variant (name, what it changes, its launcher
// with its grid, block and template arguments). Adding a variant is its kernel, its enum value
// and its row.
const std::vector<Row>& ladder() {
  static const std::vector<Row> rows{
      {Variant::kNaive, "naive",
       "one element per thread: coalesced reads, writes 4 x rows bytes apart down a column (32 KB at 8192)",
       launch_naive, 8, false},
      {Variant::kTiled, "tiled", "a 32 x 32 shared tile: both global accesses coalesced, a 32-way conflict reading it",
       launch_tile<0, false, 8>, 8, true},
      {Variant::kPadded, "padded", "the tile 32 x 33: a column's 32 words in 32 different banks", launch_tile<1, false, 8>, 8,
       true},
      {Variant::kSwizzled, "swizzled", "the tile 32 x 32, column XOR row: conflict-free without padding",
       launch_tile<0, true, 8>, 8, true},
      {Variant::kPaddedCoarse, "padded_coarse", "the padded tile, 32 x 4 threads: 8 elements per thread",
       launch_tile<1, false, 4>, 4, true},
  };
  return rows;
}

const Row& row_of(Variant v) { return cudalab::row_of(ladder(), v, "transpose"); }

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder())

LaunchShape launch_shape(Variant v, int rows, int cols) {
  const Row& row = row_of(v);
  LaunchShape l;
  l.block_x = kTile;
  l.block_y = row.block_rows;
  l.grid_x = tiles(cols);
  l.grid_y = row.tiled ? tiles(rows) : static_cast<unsigned>((rows + row.block_rows - 1) / row.block_rows);
  return l;
}

void launch(Variant v, const float* in, float* out, int rows, int cols) {
  const Row& row = row_of(v);
  const LaunchShape l = launch_shape(v, rows, cols);
  row.launch(in, out, rows, cols, dim3(l.grid_x, l.grid_y),
             dim3(static_cast<unsigned>(l.block_x), static_cast<unsigned>(l.block_y)));
  CUDA_CHECK_LAUNCH(row.name);
}

// ---- the bank microbenchmark ----------------------------------------------------------------

namespace {

constexpr int kBankWords = 32 * 33;  // room for stride 33: lane 31 reads word 1023
constexpr int kBankChunk = 64;       // accesses timed together; the fastest chunk is the answer

// Accesses per timed chunk for a run of `accesses` (all of them when fewer than a chunk).
__host__ __device__ constexpr int bank_chunk(int accesses) { return accesses < kBankChunk ? accesses : kBankChunk; }

// Each lane's chain stays on its own address: the word (or byte) at its offset holds that offset.
// The loads are still dependent (the next address is the value loaded), so each access waits
// for the previous one and its bank passes show in the time. The chain is timed in chunks and the
// fastest chunk kept: when the SM is shared (other processes' kernels time-sliced in, as under
// ctest -j) the clock runs on while this warp waits, which only ever lengthens a chunk.
__global__ void bank_kernel(BankPattern pattern, int stride, int accesses, long long* cycles, int* strays) {
  __shared__ unsigned words[kBankWords];
  const int lane = static_cast<int>(threadIdx.x);
  for (int i = lane; i < kBankWords; i += 32) words[i] = static_cast<unsigned>(i);
  unsigned char* bytes = reinterpret_cast<unsigned char*>(words);
  __syncwarp();
  if (pattern == BankPattern::kBytes) bytes[lane] = static_cast<unsigned char>(lane);  // word 0..7, bytes 0..31
  __syncwarp();
  unsigned off = pattern == BankPattern::kStride ? static_cast<unsigned>(lane * stride)
                 : pattern == BankPattern::kBytes ? static_cast<unsigned>(lane)
                                                  : 0u;
  const unsigned mine = off;
  const int chunk = bank_chunk(accesses);
  long long best = 0;
  for (int done = 0; chunk > 0 && done + chunk <= accesses; done += chunk) {
    long long t0 = 0, t1 = 0;
    if (pattern == BankPattern::kBytes) {
      t0 = clock64();
      for (int k = 0; k < chunk; ++k) off = *reinterpret_cast<volatile unsigned char*>(bytes + off);
      t1 = clock64();
    } else {
      t0 = clock64();
      for (int k = 0; k < chunk; ++k) off = *reinterpret_cast<volatile unsigned*>(words + off);
      t1 = clock64();
    }
    if (done == 0 || t1 - t0 < best) best = t1 - t0;
  }
  if (off != mine) atomicAdd(strays, 1);
  if (lane == 0) *cycles = best;
}

}  // namespace

std::string bank_case_name(const BankCase& c) {
  switch (c.pattern) {
    case BankPattern::kStride: return fmt::format("words, stride {}", c.stride);
    case BankPattern::kBytes: return "bytes: sTile[t]";
    case BankPattern::kBroadcast: return "broadcast: every lane word 0";
  }
  return "?";
}

std::size_t bank_case_offset(const BankCase& c, int lane) {
  switch (c.pattern) {
    case BankPattern::kStride: return static_cast<std::size_t>(lane) * static_cast<std::size_t>(c.stride);
    case BankPattern::kBytes: return static_cast<std::size_t>(lane);
    case BankPattern::kBroadcast: return 0;
  }
  return 0;
}

double bank_cycles(const BankCase& c, int accesses) {
  if (c.pattern == BankPattern::kStride && (c.stride < 0 || c.stride > 33)) {
    throw std::invalid_argument("bank_cycles: stride 0 .. 33");
  }
  cudalab::DeviceBuffer<long long> cycles(1);
  cudalab::DeviceBuffer<int> strays(1);
  strays.fill_bytes(0);
  bank_kernel<<<1, 32>>>(c.pattern, c.stride, accesses, cycles.data(), strays.data());
  CUDA_CHECK_LAUNCH("bank_kernel");
  CUDA_CHECK(cudaDeviceSynchronize());
  if (strays.download().at(0) != 0) return -1;
  return accesses > 0 ? static_cast<double>(cycles.download().at(0)) / bank_chunk(accesses) : 0.0;
}

}  // namespace transpose
