// scan kernels: prefix sums of n values of type T (int or float).
//
// Napkin math: a scan reads 4 bytes and writes 4 bytes per element, so it is bound by DRAM like a
// copy: 2^28 ints = 2.15 GB moved, >= 0.45 ms at the H200's 4.8 TB/s. The three-kernel variants
// move more: each tile's elements are read, written, then read and written again to add the
// tile's prefix (about 16 bytes per element). The single-pass look-back reads and writes each
// element once, and a tile learns its prefix from the tiles before it while it runs.
//
// Integer sums wrap as the hardware adds (unsigned arithmetic): the same answer in every order.
// Float sums depend on the order of additions; reference.hpp bounds the difference.
#include <cuda/atomic>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "common/dispatch.hpp"
#include "common/math.hpp"
#include "common/variants.hpp"
#include "scan.hpp"

namespace scan {

namespace {

// a + b; for int as unsigned arithmetic (wrapping, never undefined)
template <typename T>
__host__ __device__ __forceinline__ T plus(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
  } else {
    return a + b;
  }
}

// ---- 1. Kogge-Stone: one element per thread, log2(B) steps, every thread adds every step ----
// (n log n additions: not work-efficient, but short: one add and one barrier per step)
template <typename T, int B>
__global__ void kogge_stone_tiles(const T* in, T* out, std::size_t n, bool exclusive, T* tile_sums) {
  __shared__ T s[2][B];
  const int t = static_cast<int>(threadIdx.x);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * B + static_cast<std::size_t>(t);
  const T x = i < n ? in[i] : T(0);
  T incl = x;
  // STUDENT-BEGIN(scan.kogge_stone): the Kogge-Stone block scan
  // TASK: Leave in `incl` the sum of x over threads 0..t of this block (an inclusive scan of
  // one element per thread). Put x in s[0][t]; then for offset = 1, 2, 4, ... below B, each
  // thread adds the value `offset` places to its left (when there is one) and writes the sum to
  // the other buffer, with a __syncthreads() between the steps (two buffers: no thread reads a
  // value another thread overwrites in the same step).
  // HINT: about 10 lines; the README draws the steps.
  // STUB: (void)s;
  int cur = 0;
  s[0][t] = x;
  for (int offset = 1; offset < B; offset <<= 1) {
    __syncthreads();
    T v = s[cur][t];
    if (t >= offset) v = plus(s[cur][t - offset], v);
    s[cur ^ 1][t] = v;
    cur ^= 1;
  }
  __syncthreads();
  incl = s[cur][t];
  // STUDENT-END(scan.kogge_stone)
  __shared__ T left[B];  // each thread's inclusive sum, for its right neighbour's exclusive one
  left[t] = incl;
  __syncthreads();
  if (i < n) out[i] = exclusive ? (t > 0 ? left[t - 1] : T(0)) : incl;
  if (tile_sums && t == B - 1) tile_sums[blockIdx.x] = incl;
}

// ---- 2. Brent-Kung: two elements per thread, an up-sweep and a down-sweep (2n additions) ----
template <typename T, int B>
__global__ void brent_kung_tiles(const T* in, T* out, std::size_t n, bool exclusive, T* tile_sums) {
  __shared__ T s[2 * B];
  const int t = static_cast<int>(threadIdx.x);
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * (2 * B);
  const std::size_t a = base + static_cast<std::size_t>(t), b = a + B;
  const T xa = a < n ? in[a] : T(0), xb = b < n ? in[b] : T(0);
  s[t] = xa;
  s[t + B] = xb;
  T total = T(0);
  // STUDENT-BEGIN(scan.brent_kung): the Brent-Kung (work-efficient) block scan
  // TASK: Turn s[0..2B) into its exclusive scan and leave the sum of all 2B values in `total`.
  // Up-sweep: for d = 1, 2, 4, ... below 2B, after a __syncthreads(), thread t adds s[idx - d]
  // into s[idx] for idx = (t + 1) * 2d - 1 (when idx < 2B). Then read the total from s[2B - 1],
  // synchronise, and let thread 0 clear s[2B - 1]. Down-sweep: for d = B, B/2, ..., 1, after a
  // __syncthreads(), the same threads swap: s[idx - d] takes s[idx], s[idx] adds the old s[idx - d].
  // HINT: about 20 lines; the README draws both sweeps.
  // STUB: (void)total;
  for (int d = 1; d < 2 * B; d <<= 1) {
    __syncthreads();
    const int idx = (t + 1) * 2 * d - 1;
    if (idx < 2 * B) s[idx] = plus(s[idx - d], s[idx]);
  }
  __syncthreads();
  total = s[2 * B - 1];
  __syncthreads();
  if (t == 0) s[2 * B - 1] = T(0);
  for (int d = B; d >= 1; d >>= 1) {
    __syncthreads();
    const int idx = (t + 1) * 2 * d - 1;
    if (idx < 2 * B) {
      const T left = s[idx - d];
      s[idx - d] = s[idx];
      s[idx] = plus(s[idx], left);
    }
  }
  // STUDENT-END(scan.brent_kung)
  __syncthreads();
  if (a < n) out[a] = exclusive ? s[t] : plus(s[t], xa);
  if (b < n) out[b] = exclusive ? s[t + B] : plus(s[t + B], xb);
  if (tile_sums && t == 0) tile_sums[blockIdx.x] = total;
}

// ---- 3. Warp shuffles: ITEMS elements per thread in registers, a shuffle scan per warp ----

// The inclusive scan of v over the lanes of a warp (5 shuffles).
template <typename T>
__device__ __forceinline__ T warp_inclusive_scan(T v) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
#pragma unroll
  for (int offset = 1; offset < 32; offset <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, v, offset);
    if (lane >= offset) v = plus(y, v);
  }
  return v;
}

// A block's tile is B / 32 warp chunks of 32 * ITEMS consecutive elements; a warp's chunk is
// ITEMS / 4 groups of 128 elements, and lane l holds elements 4l .. 4l+3 of each group: one
// 16-byte vector per group, so a warp's load or store of a group is 512 consecutive bytes
// (coalesced), and each lane's four elements are consecutive.
template <typename T, int ITEMS>
__device__ __forceinline__ std::size_t chunk_start(std::size_t tile_first) {
  return tile_first + (threadIdx.x >> 5) * (32 * ITEMS) + 4 * (threadIdx.x & 31);
}

// Loads the lane's ITEMS elements (16-byte vectors when `vec` and the whole chunk is in range;
// zeros past n).
template <typename T, int ITEMS>
__device__ __forceinline__ void load_items(const T* in, std::size_t first, std::size_t n, bool vec, T (&v)[ITEMS]) {
  static_assert(sizeof(T) == 4 && ITEMS % 4 == 0, "four 4-byte elements per 16-byte vector");
  if (vec && first + 128 * (ITEMS / 4 - 1) + 4 <= n) {
#pragma unroll
    for (int k = 0; k < ITEMS; k += 4) {
      const int4 q = *reinterpret_cast<const int4*>(in + first + 32 * k);
      v[k] = __builtin_bit_cast(T, q.x);
      v[k + 1] = __builtin_bit_cast(T, q.y);
      v[k + 2] = __builtin_bit_cast(T, q.z);
      v[k + 3] = __builtin_bit_cast(T, q.w);
    }
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const std::size_t i = first + 32 * (k & ~3) + (k & 3);
      v[k] = i < n ? in[i] : T(0);
    }
  }
}

template <typename T, int ITEMS>
__device__ __forceinline__ void store_items(T* out, std::size_t first, std::size_t n, bool vec, const T (&v)[ITEMS]) {
  if (vec && first + 128 * (ITEMS / 4 - 1) + 4 <= n) {
#pragma unroll
    for (int k = 0; k < ITEMS; k += 4) {
      *reinterpret_cast<int4*>(out + first + 32 * k) =
          make_int4(__builtin_bit_cast(int, v[k]), __builtin_bit_cast(int, v[k + 1]), __builtin_bit_cast(int, v[k + 2]),
                    __builtin_bit_cast(int, v[k + 3]));
    }
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const std::size_t i = first + 32 * (k & ~3) + (k & 3);
      if (i < n) out[i] = v[k];
    }
  }
}

// The block scan of a tile laid out as above: v becomes each element's scan within the block
// (inclusive or exclusive); returns the block's total (every thread gets it). Per group: each
// lane adds its four elements in turn, a shuffle scan over the lanes, and the group's total
// carries into the next group; then the warps' totals are scanned by the first warp.
template <typename T, int B, int ITEMS>
__device__ __forceinline__ T block_scan_items(T (&v)[ITEMS], bool exclusive) {
  __shared__ T warp_sums[B / 32];
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  T carry = T(0);  // the warp's groups before this one
#pragma unroll
  for (int k = 0; k < ITEMS; k += 4) {
    T own[4];
    T run = T(0);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      own[j] = run;  // this lane's elements before element j
      run = plus(run, v[k + j]);
    }
    const T lanes_incl = warp_inclusive_scan(run);
    T before = __shfl_up_sync(0xffffffffu, lanes_incl, 1);  // the lanes to the left
    if (lane == 0) before = T(0);
    before = plus(carry, before);
#pragma unroll
    for (int j = 0; j < 4; ++j) v[k + j] = plus(before, exclusive ? own[j] : plus(own[j], v[k + j]));
    carry = plus(carry, __shfl_sync(0xffffffffu, lanes_incl, 31));
  }
  if (lane == 31) warp_sums[warp] = carry;
  __syncthreads();
  if (warp == 0) {  // the warps' totals, scanned by the first warp
    T w = lane < B / 32 ? warp_sums[lane] : T(0);
    w = warp_inclusive_scan(w);
    if (lane < B / 32) warp_sums[lane] = w;
  }
  __syncthreads();
  const T total = warp_sums[B / 32 - 1];
  if (warp > 0) {
    const T before = warp_sums[warp - 1];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) v[k] = plus(before, v[k]);
  }
  __syncthreads();  // warp_sums is read by every thread before a next call overwrites it
  return total;
}

template <typename T, int B, int ITEMS>
__global__ void __launch_bounds__(B) warp_shuffle_tiles(const T* in, T* out, std::size_t n, bool exclusive, T* tile_sums,
                                                        bool vec) {
  const std::size_t first = chunk_start<T, ITEMS>(static_cast<std::size_t>(blockIdx.x) * (B * ITEMS));
  T v[ITEMS];
  load_items(in, first, n, vec, v);
  const T total = block_scan_items<T, B, ITEMS>(v, exclusive);
  store_items(out, first, n, vec, v);
  if (tile_sums && threadIdx.x == 0) tile_sums[blockIdx.x] = total;
}

// ---- 4. Single pass, decoupled look-back (Merrill and Garland, 2016) ----
// Each block takes the next tile from a ticket counter (so a tile waits only for tiles that
// blocks already hold), scans it, and publishes its total in the tile's state word: "aggregate"
// (the tile's own total) at once, "prefix" (everything up to and including it) once it knows
// its prefix. It learns that prefix by looking back over its predecessors, 32 at a time: their
// aggregates add up until a prefix is met. Flag and value share one 64-bit word, written and
// read as one atomic, so no reader sees a flag with the wrong value.
constexpr unsigned long long kAggregate = kLookBackAggregate, kPrefix = kLookBackPrefix;

template <typename T>
__device__ __forceinline__ T value_of(unsigned long long word) {
  return __builtin_bit_cast(T, static_cast<unsigned>(word));
}

using StateRef = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

// Warp 0 of tile `tile` (> 0): the sum of every element before the tile, from the tiles' states.
template <typename T>
__device__ T look_back(unsigned long long* state, long long tile) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  T prefix = T(0);
  // STUDENT-BEGIN(scan.lookback): the decoupled look-back
  // TASK: Return (in every lane of the warp) the sum of all elements of tiles 0 .. tile-1. Look
  // at 32 predecessors at once: lane k reads the state of tile `end - k` (end starts at tile - 1)
  // with StateRef(state[j]).load(cuda::memory_order_relaxed), and reads again while its flag
  // (word >> 32) is 0 (not yet published) and any lane's is. The nearest lane whose flag is
  // kPrefix ends the look-back: add the values (value_of<T>) of lanes 0 up to it. With no
  // prefix among the 32, add all 32 aggregates and move the window 32 tiles back.
  // HINT: about 20 lines: __ballot_sync finds the prefix lanes, __ffs the nearest, a shuffle
  // sum (__shfl_xor_sync) adds the window.
  // STUB: (void)state; (void)tile; (void)lane;
  long long end = tile - 1;
  for (;;) {
    const long long j = end - lane;
    unsigned long long word =
        j >= 0 ? StateRef(state[j]).load(cuda::memory_order_relaxed) : look_back_word(kPrefix, T(0));
    while (__any_sync(0xffffffffu, (word >> 32) == 0)) {
      if ((word >> 32) == 0) word = StateRef(state[j]).load(cuda::memory_order_relaxed);
    }
    const unsigned prefixes = __ballot_sync(0xffffffffu, (word >> 32) == kPrefix);
    const int stop = prefixes ? __ffs(static_cast<int>(prefixes)) - 1 : 31;
    T v = lane <= stop ? value_of<T>(word) : T(0);
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) v = plus(v, __shfl_xor_sync(0xffffffffu, v, offset));
    prefix = plus(prefix, v);
    if (prefixes) break;
    end -= 32;
  }
  // STUDENT-END(scan.lookback)
  return prefix;
}

// The tile this block scans: the next of the ticket counter, so a tile waits only for tiles that
// blocks already hold (a block index would wait on blocks that may not be resident yet).
__device__ __forceinline__ long long take_tile(unsigned long long* ticket) {
  __shared__ long long s_tile;
  if (threadIdx.x == 0) s_tile = static_cast<long long>(atomicAdd(ticket, 1ull));
  __syncthreads();
  return s_tile;
}

// Publishes tile's total (its aggregate at once, its inclusive prefix once known) and returns,
// in every thread of the block, the sum of every tile before it. Called by the whole block.
// The stores, and the look-back's loads, are relaxed: a state word carries its flag and its value
// together and nothing else is read on its strength, so the word's atomicity is the whole
// contract (a release store would wait for every earlier access of the thread; an acquire load
// would invalidate the SM's L1 after every read).
template <typename T>
__device__ __forceinline__ T tile_prefix(unsigned long long* state, long long tile, T total) {
  __shared__ T s_prefix;
  if (threadIdx.x < 32) {
    if (tile == 0) {
      if (threadIdx.x == 0) {
        StateRef(state[0]).store(look_back_word(kPrefix, total), cuda::memory_order_relaxed);
        s_prefix = T(0);
      }
    } else {
      if (threadIdx.x == 0) StateRef(state[tile]).store(look_back_word(kAggregate, total), cuda::memory_order_relaxed);
      const T before = look_back<T>(state, tile);
      if (threadIdx.x == 0) {
        StateRef(state[tile]).store(look_back_word(kPrefix, plus(before, total)), cuda::memory_order_relaxed);
        s_prefix = before;
      }
    }
  }
  __syncthreads();
  return s_prefix;
}

template <typename T, int B, int ITEMS>
__global__ void __launch_bounds__(B) decoupled_lookback(const T* in, T* out, std::size_t n, bool exclusive,
                                                        unsigned long long* state, unsigned long long* ticket, bool vec) {
  const long long tile = take_tile(ticket);
  const std::size_t first = chunk_start<T, ITEMS>(static_cast<std::size_t>(tile) * (B * ITEMS));
  T v[ITEMS];
  load_items(in, first, n, vec, v);
  const T total = block_scan_items<T, B, ITEMS>(v, exclusive);
  const T before = tile_prefix<T>(state, tile, total);
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) v[k] = plus(before, v[k]);
  store_items(out, first, n, vec, v);
}

// ---- stream compaction on the look-back: keep the x > 0 (keep(), scan.hpp), in order ----

// The element index of item k of a lane whose chunk starts at `first` (load_items' layout).
template <int ITEMS>
__device__ __forceinline__ std::size_t item_index(std::size_t first, int k) {
  return first + 32 * static_cast<std::size_t>(k & ~3) + static_cast<std::size_t>(k & 3);
}

// One pass: each tile counts what it keeps, scans the flags in the block (each kept element's
// place in the tile), learns from the look-back how many the tiles before it kept, and writes
// its kept elements there. The last tile writes the total. Counts are 32-bit (n < 2^32).
// STAGED: each warp compacts its own chunk into shared memory as it goes, a group of four
// elements a lane at a time (a shuffle scan of the lanes' counts), so no element's place is kept
// in a register; once the tile's prefix is known each warp writes its kept elements out as one
// run, lane l the l-th, l + 32-th, ... of them: a warp's 32 stores are 32 consecutive elements
// (128 bytes). Without it each lane keeps the places of its ITEMS elements (a block scan of
// flags) and stores its own kept elements where they land, and a warp's stores spread over about
// twice the bytes they write, in pieces.
template <typename T, int B, int ITEMS, bool STAGED>
__global__ void __launch_bounds__(B) select_single_pass(const T* in, T* out, std::size_t n, unsigned long long* count,
                                                        unsigned long long* state, unsigned long long* ticket,
                                                        long long tiles, bool vec) {
  const long long tile = take_tile(ticket);
  const std::size_t first = chunk_start<T, ITEMS>(static_cast<std::size_t>(tile) * (B * ITEMS));
  T v[ITEMS];
  load_items(in, first, n, vec, v);
  unsigned total, before;
  if constexpr (STAGED) {
    __shared__ T staged[B * ITEMS];
    __shared__ unsigned warp_kept[B / 32];
    const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
    T* mine = staged + warp * (32 * ITEMS);  // the warp's kept elements, in order
    // how many of the lane's elements from `first` on are in range, as a 32-bit count
    const int left = first >= n ? 0 : (n - first < 32 * ITEMS ? static_cast<int>(n - first) : 32 * ITEMS);
    unsigned kept = 0;  // kept by the warp's groups before this one
#pragma unroll
    for (int k = 0; k < ITEMS; k += 4) {
      bool keeps[4];
      unsigned c = 0;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        keeps[j] = 32 * k + j < left && keep(v[k + j]);
        c += keeps[j] ? 1u : 0u;
      }
      const unsigned incl = warp_inclusive_scan(c);
      unsigned at = kept + incl - c;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        if (keeps[j]) mine[at++] = v[k + j];
      }
      kept += __shfl_sync(0xffffffffu, incl, 31);
    }
    if (lane == 0) warp_kept[warp] = kept;
    __syncthreads();
    unsigned warps_before = 0;
    total = 0;
#pragma unroll
    for (int w = 0; w < B / 32; ++w) {
      const unsigned c = warp_kept[w];
      if (w < warp) warps_before += c;
      total += c;
    }
    before = tile_prefix<unsigned>(state, tile, total);  // its barrier also orders `mine`'s writes and reads
    T* dst = out + static_cast<std::size_t>(before) + warps_before;
    for (unsigned i = static_cast<unsigned>(lane); i < kept; i += 32) dst[i] = mine[i];
  } else {
    unsigned place[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) place[k] = item_index<ITEMS>(first, k) < n && keep(v[k]) ? 1u : 0u;
    bool kept[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) kept[k] = place[k] != 0;
    total = block_scan_items<unsigned, B, ITEMS>(place, true);
    before = tile_prefix<unsigned>(state, tile, total);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      if (kept[k]) out[static_cast<std::size_t>(before) + place[k]] = v[k];
    }
  }
  if (tile == tiles - 1 && threadIdx.x == 0) *count = static_cast<unsigned long long>(before) + total;
}

// The three-kernel compaction's first and last steps: a 0/1 flag per element; then, after the
// exclusive scan of the flags (each kept element's place), every kept element to its place.
template <typename T>
__global__ void select_flags(const T* in, int* flags, std::size_t n) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    flags[i] = keep(in[i]) ? 1 : 0;
  }
}

template <typename T>
__global__ void select_scatter(const T* in, const int* places, T* out, std::size_t n, unsigned long long* count) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const T x = in[i];
    const unsigned place = static_cast<unsigned>(places[i]);  // the scan wrapped as unsigned: n < 2^32
    if (keep(x)) out[place] = x;
    if (i == n - 1) *count = static_cast<unsigned long long>(place) + (keep(x) ? 1u : 0u);
  }
}

// ---- the three-kernel scan-then-propagate ----

// Adds tile_prefix[b] to every element of tile b (b >= 1; tile 0's prefix is 0).
template <typename T>
__global__ void add_tile_prefix(T* out, std::size_t n, std::size_t tile, const T* tile_prefix) {
  const std::size_t b = static_cast<std::size_t>(blockIdx.x) + 1;
  const T p = tile_prefix[b];
  const std::size_t end = (b + 1) * tile < n ? (b + 1) * tile : n;
  for (std::size_t i = b * tile + threadIdx.x; i < end; i += blockDim.x) out[i] = plus(out[i], p);
}

// What one tile launch needs.
template <typename T>
struct Pass {
  const T* in;
  T* out;
  std::size_t n;
  bool exclusive;
  T* tile_sums;  // nullptr: one tile, no totals needed
  cudaStream_t stream;
};

constexpr int kKsBlock = 512, kBkBlock = 512, kShuffleBlock = 256, kShuffleItems = 8, kLookbackBlock = 128,
              kLookbackItems = 32;

bool vec_ok(const void* in, const void* out) { return cudalab::is_aligned(in, 16) && cudalab::is_aligned(out, 16); }

template <typename T>
void launch_kogge_stone(const Pass<T>& p, unsigned grid) {
  kogge_stone_tiles<T, kKsBlock><<<grid, kKsBlock, 0, p.stream>>>(p.in, p.out, p.n, p.exclusive, p.tile_sums);
}
template <typename T>
void launch_brent_kung(const Pass<T>& p, unsigned grid) {
  brent_kung_tiles<T, kBkBlock><<<grid, kBkBlock, 0, p.stream>>>(p.in, p.out, p.n, p.exclusive, p.tile_sums);
}
template <typename T>
void launch_warp_shuffle(const Pass<T>& p, unsigned grid) {
  warp_shuffle_tiles<T, kShuffleBlock, kShuffleItems>
      <<<grid, kShuffleBlock, 0, p.stream>>>(p.in, p.out, p.n, p.exclusive, p.tile_sums, vec_ok(p.in, p.out));
}

template <typename T>
struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  std::size_t tile;  // elements per block
  void (*launch_tiles)(const Pass<T>&, unsigned grid);  // nullptr: the single-pass kernel
};

// The ladder, described once: adding a variant is its kernel and launcher above, its enum value
// in scan.hpp and its row here.
template <typename T>
const std::vector<Row<T>>& ladder() {
  static const std::vector<Row<T>> rows{
      {Variant::kKoggeStone, "kogge_stone", "3 kernels; block scan: Kogge-Stone, 1 element/thread, n log n adds",
       kKsBlock, launch_kogge_stone<T>},
      {Variant::kBrentKung, "brent_kung", "3 kernels; block scan: Brent-Kung up/down sweep, 2 elements/thread",
       2 * kBkBlock, launch_brent_kung<T>},
      {Variant::kWarpShuffle, "warp_shuffle", "3 kernels; 8 elements/thread, 16-byte coalesced loads, shuffle scans",
       std::size_t{kShuffleBlock} * kShuffleItems, launch_warp_shuffle<T>},
      {Variant::kDecoupledLookback, "decoupled_lookback", "1 pass: tiles learn their prefix by looking back",
       std::size_t{kLookbackBlock} * kLookbackItems, nullptr},
  };
  return rows;
}

template <typename T>
const Row<T>& row_of(Variant v) {
  return cudalab::row_of(ladder<T>(), v, "scan");
}

// Scans `n` elements with row's tile kernel; for more than one tile, scans the tiles' totals
// (exclusive, in place, the same way: one level deeper) and adds each tile's prefix.
template <typename T>
int scan_levels(const Row<T>& row, bool exclusive, const T* in, T* out, std::size_t n, T* sums, cudaStream_t stream) {
  const std::size_t grid = cudalab::ceil_div(n, row.tile);
  row.launch_tiles({in, out, n, exclusive, grid > 1 ? sums : nullptr, stream}, static_cast<unsigned>(grid));
  CUDA_CHECK_LAUNCH(row.name);
  if (grid == 1) return 1;
  const int deeper = scan_levels(row, true, sums, sums, grid, sums + grid, stream);
  add_tile_prefix<T><<<static_cast<unsigned>(grid - 1), 256, 0, stream>>>(out, n, row.tile, sums);
  CUDA_CHECK_LAUNCH("add_tile_prefix");
  return deeper + 2;
}

// look_back_probe's kernel: warp 0 looks back from `tile` over `state`; warp 1 (lane 0) waits
// for warp 0 to start, then about 20 us, then publishes the late words one by one. The two are
// warps of one block, so each runs while the other waits. The start flag is written and read
// with read-modify-write atomics: racecheck counts a relaxed load and store of shared memory
// from two warps with no barrier between them as a race, an atomic RMW as none.
template <typename T>
__global__ void look_back_probe_kernel(unsigned long long* state, long long tile, const LateWord* later, int n_later,
                                       T* result, int* agree) {
  __shared__ int started;
  if (threadIdx.x == 0) started = 0;
  __syncthreads();
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) atomicExch(&started, 1);
    const T got = look_back<T>(state, tile);
    const T first = __shfl_sync(0xffffffffu, got, 0);
    const bool same = __all_sync(0xffffffffu, got == first);
    if (threadIdx.x == 0) {
      *result = got;
      *agree = same;
    }
  } else if (threadIdx.x == 32) {
    while (atomicAdd(&started, 0) == 0) {
    }
    const long long t0 = clock64();
    while (clock64() - t0 < 40000) __nanosleep(1000);  // about 20 us at 2 GHz
    for (int i = 0; i < n_later; ++i) StateRef(state[later[i].tile]).store(later[i].word, cuda::memory_order_relaxed);
  }
}

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder<int>())

const char* kind_name(Kind k) { return k == Kind::kInclusive ? "inclusive" : "exclusive"; }

std::size_t tile_elements(Variant v) { return row_of<int>(v).tile; }

template <typename T>
Workspace<T>::Workspace(std::size_t capacity)
    : capacity_(capacity),
      sums_(capacity / 256 + 64),
      state_(capacity / (std::size_t{kLookbackBlock} * kLookbackItems) + 2) {}

template <typename T>
int scan(Variant v, Kind kind, const T* in, T* out, std::size_t n, Workspace<T>& ws, cudaStream_t stream) {
  if (n > ws.capacity_) throw std::invalid_argument("scan: n exceeds the workspace capacity");
  if (n == 0) return 0;
  const Row<T>& row = row_of<T>(v);
  const bool exclusive = kind == Kind::kExclusive;
  if (row.launch_tiles) return scan_levels(row, exclusive, in, out, n, ws.sums_.data(), stream);
  const std::size_t tiles = cudalab::ceil_div(n, row.tile);
  if (tiles > static_cast<std::size_t>(INT32_MAX)) throw std::invalid_argument("scan: too many tiles for one grid");
  unsigned long long* state = ws.state_.data();  // tiles' states, then the ticket counter
  CUDA_CHECK(cudaMemsetAsync(state, 0, (tiles + 1) * sizeof(unsigned long long), stream));
  decoupled_lookback<T, kLookbackBlock, kLookbackItems><<<static_cast<unsigned>(tiles), kLookbackBlock, 0, stream>>>(
      in, out, n, exclusive, state, state + tiles, vec_ok(in, out));
  CUDA_CHECK_LAUNCH(row.name);
  return 2;
}

template <typename T>
T look_back_probe(const std::vector<unsigned long long>& now, const std::vector<LateWord>& later, long long tile,
                  bool* lanes_agree) {
  if (tile < 1 || static_cast<std::size_t>(tile) != now.size()) {
    throw std::invalid_argument("look_back_probe: needs one state word for each tile before tile >= 1");
  }
  for (const LateWord& w : later) {
    if (w.tile < 0 || w.tile >= tile) throw std::invalid_argument("look_back_probe: a late word past the tiles");
  }
  cudalab::DeviceBuffer<unsigned long long> state(now);
  const cudalab::DeviceBuffer<LateWord> late(later);
  cudalab::DeviceBuffer<T> result(1);
  cudalab::DeviceBuffer<int> agree(1);
  look_back_probe_kernel<T><<<1, 64>>>(state.data(), tile, late.data(), static_cast<int>(later.size()), result.data(),
                                       agree.data());
  CUDA_CHECK_LAUNCH("look_back_probe");
  const T got = result.download()[0];
  const int same = agree.download()[0];
  if (lanes_agree) *lanes_agree = same != 0;
  return got;
}

namespace compaction {

namespace {

struct Row {
  Variant id;
  const char* name;
  const char* what;
};

const std::vector<Row>& ladder() {
  static const std::vector<Row> rows{
      {Variant::kScanThenScatter, "scan_then_scatter",
       "3 steps: flag each element, scan the flags (decoupled_lookback), scatter the kept"},
      {Variant::kSinglePass, "single_pass", "1 pass: each tile scans its flags and looks back for the kept before it"},
      {Variant::kSinglePassStaged, "single_pass_staged",
       "the same pass, the tile's kept elements staged in shared memory and written out as one coalesced run"},
  };
  return rows;
}

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder())

Workspace::Workspace(std::size_t capacity)
    : capacity_(capacity),
      flags_(capacity),
      scan_(capacity),
      state_(capacity / kSinglePassTile + 2) {}

template <typename T>
int compact(Variant v, const T* in, T* out, std::size_t n, unsigned long long* count, Workspace& ws,
            cudaStream_t stream) {
  if (n > kMaxN) throw std::invalid_argument("compact: n must be below 2^32 (32-bit counts)");
  if (n > ws.capacity_) throw std::invalid_argument("compact: n exceeds the workspace capacity");
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(*count), stream));
    return 1;
  }
  if (v == Variant::kScanThenScatter) {
    const unsigned grid = static_cast<unsigned>(std::min<std::size_t>(cudalab::ceil_div(n, 256), 65535));
    select_flags<T><<<grid, 256, 0, stream>>>(in, ws.flags_.data(), n);
    CUDA_CHECK_LAUNCH("select_flags");
    const int scans = scan::scan(scan::Variant::kDecoupledLookback, Kind::kExclusive, ws.flags_.data(),
                                 ws.flags_.data(), n, ws.scan_, stream);
    select_scatter<T><<<grid, 256, 0, stream>>>(in, ws.flags_.data(), out, n, count);
    CUDA_CHECK_LAUNCH("select_scatter");
    return scans + 2;
  }
  const std::size_t tiles = cudalab::ceil_div(n, kSinglePassTile);
  unsigned long long* state = ws.state_.data();  // tiles' states, then the ticket counter
  CUDA_CHECK(cudaMemsetAsync(state, 0, (tiles + 1) * sizeof(unsigned long long), stream));
  cudalab::dispatch(cudalab::int_list<0, 1>{}, v == Variant::kSinglePassStaged ? 1 : 0, "compact: staged", [&](auto staged) {
    select_single_pass<T, kSinglePassBlock, kSinglePassItems, decltype(staged)::value == 1>
        <<<static_cast<unsigned>(tiles), kSinglePassBlock, 0, stream>>>(in, out, n, count, state, state + tiles,
                                                                      static_cast<long long>(tiles),
                                                                      cudalab::is_aligned(in, 16));
  });
  CUDA_CHECK_LAUNCH("select_single_pass");
  return 2;
}

template int compact<int>(Variant, const int*, int*, std::size_t, unsigned long long*, Workspace&, cudaStream_t);
template int compact<float>(Variant, const float*, float*, std::size_t, unsigned long long*, Workspace&, cudaStream_t);

}  // namespace compaction

template class Workspace<int>;
template class Workspace<float>;
template int scan<int>(Variant, Kind, const int*, int*, std::size_t, Workspace<int>&, cudaStream_t);
template int scan<float>(Variant, Kind, const float*, float*, std::size_t, Workspace<float>&, cudaStream_t);
template int look_back_probe<int>(const std::vector<unsigned long long>&, const std::vector<LateWord>&, long long, bool*);
template float look_back_probe<float>(const std::vector<unsigned long long>&, const std::vector<LateWord>&, long long,
                                      bool*);

}  // namespace scan
