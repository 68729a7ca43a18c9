// sort: the kernels of the ladder.
//
// Napkin math (H200): a sort must read every key and write it once, 8 bytes per key (16 per
// pair); 2^28 keys, 2.1 GB, at least 0.45 ms at 4.8 TB/s. An LSD radix sort with b-bit digits
// makes 32 / b passes, and each pass reads the keys twice (to count their digits, then to move
// them) and writes them once: 12 bytes per key per pass, 96 with 4-bit digits and 48 with 8-bit
// ones, plus the counts. A bitonic network makes log2(n)(log2(n) + 1) / 2 compare-exchange
// steps: 406 at 2^28, each a pass over the keys unless it fits a block's shared memory.
#include "sort.hpp"

#include <cuda/atomic>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "common/dispatch.hpp"
#include "common/math.hpp"
#include "common/variants.hpp"
#include "merge.hpp"

namespace sort {

namespace {

// ---- an exclusive scan of uint32 counts, any n: per-block sums, their scan (the same way, one
// level up), then each block's scan plus its offset. (The scan lab teaches this and better; here
// it is a step of the radix sort.) ----

constexpr int kScanThreads = 1024, kScanItems = 4, kScanTile = kScanThreads * kScanItems;

// The inclusive scan of one value per lane over the warp (Kogge-Stone by shuffles).
__device__ __forceinline__ std::uint32_t warp_inclusive_scan(std::uint32_t v) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const std::uint32_t y = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v += y;
  }
  return v;
}

// The exclusive scan of one value per thread over the block; *total gets the block's sum.
__device__ std::uint32_t block_exclusive_scan(std::uint32_t v, std::uint32_t* total) {
  __shared__ std::uint32_t warp_sums[kScanThreads / 32];
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const std::uint32_t incl = warp_inclusive_scan(v);
  if (lane == 31) warp_sums[warp] = incl;
  __syncthreads();
  if (warp == 0) {
    const std::uint32_t w = warp_inclusive_scan(lane < kScanThreads / 32 ? warp_sums[lane] : 0);
    if (lane < kScanThreads / 32) warp_sums[lane] = w;
  }
  __syncthreads();
  const std::uint32_t before = (warp > 0 ? warp_sums[warp - 1] : 0) + incl - v;
  *total = warp_sums[kScanThreads / 32 - 1];
  __syncthreads();  // warp_sums is read before a next call overwrites it
  return before;
}

__global__ void __launch_bounds__(kScanThreads) scan_block_sums(const std::uint32_t* in, std::size_t n, std::uint32_t* sums) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kScanTile + threadIdx.x * kScanItems;
  std::uint32_t v = 0;
#pragma unroll
  for (int k = 0; k < kScanItems; ++k) v += first + k < n ? in[first + k] : 0u;
  std::uint32_t total = 0;
  block_exclusive_scan(v, &total);
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

__global__ void __launch_bounds__(kScanThreads) scan_blocks(const std::uint32_t* in, std::uint32_t* out, std::size_t n,
                                                            const std::uint32_t* offsets) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * kScanTile + threadIdx.x * kScanItems;
  std::uint32_t v[kScanItems], sum = 0;
#pragma unroll
  for (int k = 0; k < kScanItems; ++k) {
    v[k] = first + k < n ? in[first + k] : 0u;
    sum += v[k];
  }
  std::uint32_t total = 0;
  std::uint32_t run = block_exclusive_scan(sum, &total) + (offsets ? offsets[blockIdx.x] : 0u);
#pragma unroll
  for (int k = 0; k < kScanItems; ++k) {
    if (first + k < n) out[first + k] = run;
    run += v[k];
  }
}

// out = the exclusive scan of in (n values); `sums` holds every level's block sums. Returns the
// launches.
int exclusive_scan(const std::uint32_t* in, std::uint32_t* out, std::size_t n, std::uint32_t* sums, cudaStream_t stream) {
  const std::size_t blocks = cudalab::ceil_div(n, static_cast<std::size_t>(kScanTile));
  if (blocks == 1) {
    scan_blocks<<<1, kScanThreads, 0, stream>>>(in, out, n, nullptr);
    CUDA_CHECK_LAUNCH("scan_blocks");
    return 1;
  }
  scan_block_sums<<<static_cast<unsigned>(blocks), kScanThreads, 0, stream>>>(in, n, sums);
  CUDA_CHECK_LAUNCH("scan_block_sums");
  const int deeper = exclusive_scan(sums, sums, blocks, sums + blocks, stream);  // in place, one level up
  scan_blocks<<<static_cast<unsigned>(blocks), kScanThreads, 0, stream>>>(in, out, n, sums);
  CUDA_CHECK_LAUNCH("scan_blocks");
  return deeper + 2;
}

// ---- LSD radix sort: per pass, the tiles' digit counts, their scan, a stable scatter ----

constexpr int kRadixThreads = 256, kRadixItems = 16, kRadixTile = kRadixThreads * kRadixItems;
constexpr int kRadixWarps = kRadixThreads / 32;

// Element k of a thread in a tile: rounds of 256 consecutive keys, thread t the t-th of each, so
// that the threads of a round, in order, are the keys in input order (the scatter's stability).
__device__ __forceinline__ std::size_t radix_index(std::size_t tile, int k) {
  return tile * kRadixTile + static_cast<std::size_t>(k) * kRadixThreads + threadIdx.x;
}

// The lanes of the warp whose label equals this lane's (labels below 2^BITS): a vote per bit,
// each lane keeping the lanes that agree with it on that bit. BITS votes and ands, whatever the
// labels. __match_any_sync gives the same mask in one instruction, but that instruction's cost
// grows with the number of distinct labels in the warp (the histogram lab measures it): with
// 8-bit digits, about 30 in a warp of random keys.
template <int BITS>
__device__ __forceinline__ unsigned match_label(unsigned label) {
  unsigned peers = 0xffffffffu;
#pragma unroll
  for (int b = 0; b < BITS; ++b) {
    const bool one = (label >> b) & 1u;
    const unsigned ones = __ballot_sync(0xffffffffu, one);
    peers &= one ? ones : ~ones;
  }
  return peers;
}

// Pass 1 of 3: how many keys of each digit the tile holds, into counts[digit * tiles + tile]
// (digit-major: the exclusive scan of that array is where each tile's keys of each digit go).
template <int BITS>
__global__ void __launch_bounds__(kRadixThreads) radix_count(const std::uint32_t* keys, std::size_t n, int shift,
                                                             bool is_float, std::uint32_t* counts, std::size_t tiles) {
  constexpr int kDigits = 1 << BITS;
  __shared__ std::uint32_t hist[kDigits];
  // STUDENT-BEGIN(sort.radix_count): the digit counts of one tile, a histogram in shared memory
  // TASK: Count how many of this tile's keys (tile = blockIdx.x; the thread's keys are
  // radix_index(tile, k) for k = 0 .. kRadixItems - 1, those below n) have each digit
  // (bits_of(key, is_float) >> shift) & (kDigits - 1), and store the count of digit d in
  // counts[d * tiles + tile] for every d (a digit no key has: 0). Zero a shared histogram (the
  // threads share the kDigits bins), __syncthreads(), count with atomicAdd on shared memory,
  // __syncthreads(), then write the bins out.
  // HINT: about 12 lines; the histogram lab's shared_private kernel is the same idea.
  // STUB: (void)keys; (void)n; (void)shift; (void)is_float; (void)counts; (void)tiles; (void)hist;
  for (int d = static_cast<int>(threadIdx.x); d < kDigits; d += kRadixThreads) hist[d] = 0;
  __syncthreads();
  const std::size_t tile = blockIdx.x;
#pragma unroll 4
  for (int k = 0; k < kRadixItems; ++k) {
    const std::size_t i = radix_index(tile, k);
    if (i < n) atomicAdd(&hist[(bits_of(keys[i], is_float) >> shift) & (kDigits - 1)], 1u);
  }
  __syncthreads();
  for (int d = static_cast<int>(threadIdx.x); d < kDigits; d += kRadixThreads) {
    counts[static_cast<std::size_t>(d) * tiles + tile] = hist[d];
  }
  // STUDENT-END(sort.radix_count)
}

// The scatter of one tile: every key to base[digit] plus its rank among the tile's keys of its
// digit that come before it. A round of 256 keys at a time: within a warp, match_label finds
// the lanes of the same digit and the lower ones count; the warps before add theirs
// (warp_counts); the rounds before add theirs (running, zero at the start). base and running are
// written by the caller before its barrier; the first round's barrier covers them.
template <int BITS, bool PAIRS>
__device__ void scatter_rounds(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                               std::uint32_t* values_out, std::size_t n, int shift, bool is_float, std::size_t tile,
                               const std::uint32_t* base, std::uint32_t* running,
                               std::uint32_t (*warp_counts)[1 << BITS]) {
  constexpr int kDigits = 1 << BITS;
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  for (int k = 0; k < kRadixItems; ++k) {
    for (int e = static_cast<int>(threadIdx.x); e < kRadixWarps * kDigits; e += kRadixThreads) {
      warp_counts[e / kDigits][e % kDigits] = 0;
    }
    __syncthreads();
    const std::size_t i = radix_index(tile, k);
    const bool valid = i < n;
    const std::uint32_t key = valid ? keys_in[i] : 0u;
    const int digit = valid ? static_cast<int>((bits_of(key, is_float) >> shift) & (kDigits - 1)) : kDigits;
    const unsigned peers = match_label<BITS + 1>(static_cast<unsigned>(digit));  // kDigits (no key) is a label too
    const unsigned lower = static_cast<unsigned>(__popc(peers & ((1u << lane) - 1u)));
    if (valid && lower == 0) warp_counts[warp][digit] = static_cast<std::uint32_t>(__popc(peers));
    __syncthreads();
    if (valid) {
      std::uint32_t rank = running[digit] + lower;
      for (int w = 0; w < warp; ++w) rank += warp_counts[w][digit];
      const std::size_t to = static_cast<std::size_t>(base[digit]) + rank;
      if (to < n) {  // always, when the counts are right; wrong ones must not write past the output
        keys_out[to] = key;
        if (PAIRS) values_out[to] = values_in[i];
      }
    }
    __syncthreads();  // every rank is taken before the running counts move on
    for (int d = static_cast<int>(threadIdx.x); d < kDigits; d += kRadixThreads) {
      std::uint32_t round = 0;
      for (int w = 0; w < kRadixWarps; ++w) round += warp_counts[w][d];
      running[d] += round;
    }
    __syncthreads();
  }
}

// Pass 3 of 3: every key of the tile to offsets[digit * tiles + tile] plus its rank in the tile.
template <int BITS, bool PAIRS>
__global__ void __launch_bounds__(kRadixThreads) radix_scatter(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                                                               std::uint32_t* keys_out, std::uint32_t* values_out,
                                                               std::size_t n, int shift, bool is_float,
                                                               const std::uint32_t* offsets, std::size_t tiles) {
  constexpr int kDigits = 1 << BITS;
  __shared__ std::uint32_t base[kDigits], running[kDigits], warp_counts[kRadixWarps][kDigits];
  const std::size_t tile = blockIdx.x;
  for (int d = static_cast<int>(threadIdx.x); d < kDigits; d += kRadixThreads) {
    base[d] = offsets[static_cast<std::size_t>(d) * tiles + tile];
    running[d] = 0;
  }
  scatter_rounds<BITS, PAIRS>(keys_in, values_in, keys_out, values_out, n, shift, is_float, tile, base, running,
                              warp_counts);
}

// ---- the one-sweep radix sort (8-bit digits): the four passes' digit counts in one read of the
// keys; then per pass one kernel that counts its tile's digits, finds the tile's place among the
// tiles before it by a decoupled look-back (Merrill and Garland, as the scan lab's single pass),
// and scatters: 8 bytes per key per pass, plus the first read ----

constexpr int kSweepDigits = 256, kSweepPasses = 4;
// A pass's tile: 22 keys a thread for keys alone (5,632 a tile), 20 for pairs (5,120); the other
// radix sorts keep kRadixItems = 16. More keys a tile share its fixed work (clearing and summing
// the warps' counts, the scan over the digits, the look-back, four barriers), and fewer tiles
// publish and wait in the look-back; each count is the most that keeps the registers of 16 with
// no spills (64 a thread for keys, 80 for pairs: 4 and 3 blocks an SM; pairs spill at 22).
template <bool PAIRS>
constexpr int kSweepItems = PAIRS ? 20 : 22;
template <bool PAIRS>
constexpr int kSweepTile = kRadixThreads * kSweepItems<PAIRS>;
static_assert(kRadixThreads == kSweepDigits, "one thread per digit in the look-back");
constexpr unsigned long long kSweepAggregate = 1ull << 32, kSweepPrefix = 2ull << 32;  // a state word's flag
using SweepState = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

// counts[pass * 256 + digit]: the keys whose digit `pass` (bits 8 pass .. 8 pass + 7 of the sort
// bits) is `digit`, every pass from one read; each block counts in shared memory first.
__global__ void __launch_bounds__(256) sweep_counts(const std::uint32_t* keys, std::size_t n, bool is_float,
                                                    std::uint32_t* counts) {
  __shared__ std::uint32_t h[kSweepPasses * kSweepDigits];
  for (int e = static_cast<int>(threadIdx.x); e < kSweepPasses * kSweepDigits; e += 256) h[e] = 0;
  __syncthreads();
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * 256 + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * 256) {
    const std::uint32_t b = bits_of(keys[i], is_float);
#pragma unroll
    for (int p = 0; p < kSweepPasses; ++p) atomicAdd(&h[p * kSweepDigits + ((b >> (8 * p)) & 255u)], 1u);
  }
  __syncthreads();
  for (int e = static_cast<int>(threadIdx.x); e < kSweepPasses * kSweepDigits; e += 256) {
    if (h[e] != 0) atomicAdd(&counts[e], h[e]);
  }
}

// Each pass's 256 counts turned into their exclusive scan, in place: where each digit's keys
// begin (1,024 additions: one thread).
__global__ void sweep_offsets(std::uint32_t* counts) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  for (int p = 0; p < kSweepPasses; ++p) {
    std::uint32_t run = 0;
    for (int d = 0; d < kSweepDigits; ++d) {
      const std::uint32_t c = counts[p * kSweepDigits + d];
      counts[p * kSweepDigits + d] = run;
      run += c;
    }
  }
}

// One pass, ranked in registers and scattered through shared memory (the one-sweep kernel's
// shape, after Adinets and Merrill): the block takes the next tile (in the order blocks start, so
// every tile it waits for has started and publishes without waiting) and reads it once into
// registers, warp w the w-th kWarpKeys, kItems per lane (lane l of round k holds key 32 k + l of the
// warp's segment: every load is coalesced). Each warp ranks its keys by digit with
// match_label against a histogram of its own in shared memory (its leader adds the group's
// size; the lanes below it in the group count too), in input order. Before that ranking, the
// tile's digit counts are counted once more, by one shared atomic per key, and published (flag
// aggregate) at once, as CUB's onesweep does: a tile's successors wait on its counts, and they
// come a ranking sooner so. After the ranking one thread per digit looks back over the tiles
// before it until one has published its inclusive prefix (flag prefix), and publishes its own. Each key's place in the tile sorted by digit (the
// digits before it in the tile, the warps before it, its rank) takes it into shared memory; the
// threads then read the sorted tile in order and write key j to where its digit's run starts in
// the output plus j: runs of equal digits go out as consecutive addresses. 8 bytes per key per
// pass (16 per pair), and no second read of the tile. state (tiles x 256 words) and the tile
// counter are zero when the pass starts.
// Blocks an SM for pairs: 3 (80 registers a thread); Turing's ptxas needs more than 80 for 20
// pairs a thread and spills, so it gets 2.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int kSweepPairBlocks = 2;
#else
constexpr int kSweepPairBlocks = 3;
#endif

template <bool PAIRS>
__global__ void __launch_bounds__(kRadixThreads, PAIRS ? kSweepPairBlocks : 4) sweep_pass(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                                                            std::uint32_t* keys_out, std::uint32_t* values_out,
                                                            std::size_t n, int shift, bool is_float,
                                                            const std::uint32_t* offsets, unsigned long long* state,
                                                            unsigned* next_tile) {
  constexpr int kItems = kSweepItems<PAIRS>, kTile = kSweepTile<PAIRS>;
  constexpr int kWarpKeys = kTile / kRadixWarps;  // a warp's segment of the tile (704 keys, 640 pairs)
  __shared__ std::uint32_t warp_hist[kRadixWarps][kSweepDigits];  // per warp: its counts, then the warps' before it
  __shared__ std::uint32_t tile_start[kSweepDigits];              // where digit d's keys begin in the sorted tile
  __shared__ std::uint32_t out_base[kSweepDigits];                // output index of sorted tile slot 0, for digit d
  __shared__ std::uint32_t warp_total[kRadixWarps];
  __shared__ std::uint32_t exchange[kTile];                  // the tile sorted by digit (keys, then values)
  __shared__ unsigned tile_id;
  __shared__ std::uint32_t early[kSweepDigits];                   // the tile's digit counts, before the ranking
  const int tid = static_cast<int>(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  if (tid == 0) tile_id = atomicAdd(next_tile, 1u);
  for (int e = tid; e < kRadixWarps * kSweepDigits; e += kRadixThreads) warp_hist[e / kSweepDigits][e % kSweepDigits] = 0;
  early[tid] = 0;
  __syncthreads();
  const std::size_t tile = tile_id;
  const std::size_t first = tile * kTile + static_cast<std::size_t>(warp) * kWarpKeys + lane;
  // Every tile but the last is whole: its keys need no bounds test and no "no key" label (8 votes
  // a key instead of 9). whole is the same for every thread of the block.
  const bool whole = (tile + 1) * kTile <= n;
  const auto inside = [&](int k) { return whole || first + static_cast<std::size_t>(k) * 32 < n; };
  std::uint32_t key[kItems], value[PAIRS ? kItems : 1], rank[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * 32;
    key[k] = inside(k) ? keys_in[i] : 0u;
    if constexpr (PAIRS) value[k] = inside(k) ? values_in[i] : 0u;
  }
  // The tile's digit counts, counted by shared atomics and published (flag aggregate) before the
  // ranking: the tiles after this one look back over it, and find its counts a ranking sooner.
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (inside(k)) atomicAdd(&early[(bits_of(key[k], is_float) >> shift) & 255u], 1u);
  }
  __syncthreads();
  // Relaxed, here and in the look-back: a state word carries its flag and its count together,
  // and nothing else is read on its strength, so the word's atomicity is the whole contract. An
  // acquire load would also invalidate the SM's L1 after every step back, and a release store
  // wait for every earlier memory access of the thread.
  SweepState(state[tile * kSweepDigits + static_cast<std::size_t>(tid)])
      .store((tile == 0 ? kSweepPrefix : kSweepAggregate) | early[tid], cuda::memory_order_relaxed);
  // the warp's ranks: key k's place among the warp's keys of its digit, in input order
  const unsigned below = (1u << lane) - 1u;
  const auto rank_keys = [&](auto is_whole) {
    constexpr bool kWhole = decltype(is_whole)::value;
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const bool valid = kWhole || first + static_cast<std::size_t>(k) * 32 < n;
      const unsigned digit = valid ? (bits_of(key[k], is_float) >> shift) & 255u : 256u;
      const unsigned peers = match_label<kWhole ? 8 : 9>(digit);  // 256: no key
      const int leader = __ffs(static_cast<int>(peers)) - 1;
      std::uint32_t seen = 0;
      // One shared atomic returns the count so far and adds the group's: the next round's leader
      // of this digit (another lane, perhaps) sees it without a barrier, its atomic issued after
      // this one.
      if (valid && lane == leader) seen = atomicAdd(&warp_hist[warp][digit], static_cast<std::uint32_t>(__popc(peers)));
      rank[k] = __shfl_sync(0xffffffffu, seen, leader) + static_cast<std::uint32_t>(__popc(peers & below));
    }
  };
  if (whole) {
    rank_keys(std::true_type{});
  } else {
    rank_keys(std::false_type{});
  }
  __syncthreads();
  // thread d: the tile's count of digit d (the warps' counts turned into the warps before each)
  const int d = tid;
  std::uint32_t count = 0;
#pragma unroll
  for (int w = 0; w < kRadixWarps; ++w) {
    const std::uint32_t c = warp_hist[w][d];
    warp_hist[w][d] = count;
    count += c;
  }
  SweepState mine(state[tile * kSweepDigits + static_cast<std::size_t>(d)]);
  // where digit d begins in the sorted tile: an exclusive scan of the counts over the digits
  const std::uint32_t incl = warp_inclusive_scan(count);
  if (lane == 31) warp_total[warp] = incl;
  std::uint32_t before = 0;  // the keys of digit d in the tiles before this one
  if (tile != 0) {
    for (std::size_t j = tile; j-- > 0;) {
      SweepState other(state[j * kSweepDigits + static_cast<std::size_t>(d)]);
      unsigned long long word = other.load(cuda::memory_order_relaxed);
      while ((word >> 32) == 0) word = other.load(cuda::memory_order_relaxed);  // not yet published
      before += static_cast<std::uint32_t>(word);
      if ((word & kSweepPrefix) != 0) break;
    }
    mine.store(kSweepPrefix | (before + count), cuda::memory_order_relaxed);
  }
  __syncthreads();
  std::uint32_t start = incl - count;
  for (int w = 0; w < warp; ++w) start += warp_total[w];
  tile_start[d] = start;
  out_base[d] = offsets[d] + before - start;  // modulo 2^32: slot j of digit d goes to out_base[d] + j
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    if (inside(k)) {
      const unsigned digit = (bits_of(key[k], is_float) >> shift) & 255u;
      rank[k] += tile_start[digit] + warp_hist[warp][digit];  // its slot in the sorted tile
      exchange[rank[k]] = key[k];
    }
  }
  __syncthreads();
  const std::size_t left = n - tile * kTile;
  const std::size_t in_tile = left < kTile ? left : kTile;
  std::uint32_t to[PAIRS ? kItems : 1] = {};
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int j = k * kRadixThreads + tid;
    if (whole || static_cast<std::size_t>(j) < in_tile) {
      const std::uint32_t sorted = exchange[j];
      const std::uint32_t at = out_base[(bits_of(sorted, is_float) >> shift) & 255u] + static_cast<std::uint32_t>(j);
      if (at < n) keys_out[at] = sorted;  // always, when the counts are right; wrong ones must not write past the output
      if constexpr (PAIRS) to[k] = at;
    }
  }
  if constexpr (PAIRS) {
    __syncthreads();  // every key is read before the values take their slots
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      if (inside(k)) exchange[rank[k]] = value[k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int j = k * kRadixThreads + tid;
      if ((whole || static_cast<std::size_t>(j) < in_tile) && to[k] < n) values_out[to[k]] = exchange[j];
    }
  }
}

// ---- bitonic sort: compare-exchange steps over the keys padded to a power of two ----

constexpr int kBitonicTile = 2048;  // a block's shared-memory tile: 1024 threads, two keys each

__device__ __forceinline__ void compare_exchange(std::uint32_t& a, std::uint32_t& b, bool ascending, bool is_float) {
  const bool greater = bits_of(a, is_float) > bits_of(b, is_float);
  if (greater == ascending) {
    const std::uint32_t t = a;
    a = b;
    b = t;
  }
}

__global__ void bitonic_pad(const std::uint32_t* in, std::uint32_t* a, std::size_t n, std::size_t padded, std::uint32_t pad) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < padded;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    a[i] = i < n ? in[i] : pad;
  }
}

// In a tile of `tile` keys (a power of two, at most kBitonicTile) in shared memory: with
// k_first == 2 the whole bitonic sort of the tile (k = 2 .. tile); else, for one k >= 2 * tile,
// the steps j = tile / 2 .. 1 of its merge. The direction of a pair follows its global index.
__global__ void __launch_bounds__(kBitonicTile / 2) bitonic_tile(std::uint32_t* a, int tile, std::size_t k_first,
                                                                 std::size_t k_last, bool is_float) {
  __shared__ std::uint32_t s[kBitonicTile];
  const std::size_t origin = static_cast<std::size_t>(blockIdx.x) * static_cast<std::size_t>(tile);
  for (int e = static_cast<int>(threadIdx.x); e < tile; e += static_cast<int>(blockDim.x)) s[e] = a[origin + e];
  __syncthreads();
  for (std::size_t k = k_first; k <= k_last; k <<= 1) {
    const std::size_t half = static_cast<std::size_t>(tile / 2);
    for (std::size_t j = k / 2 < half ? k / 2 : half; j > 0; j >>= 1) {
      // STUDENT-BEGIN(sort.bitonic_pairs): one compare-exchange step of the bitonic network in shared memory
      // TASK: Step (k, j) pairs each key i with key i + j, for the i whose bit j is 0 (i & j == 0):
      // tile / 2 pairs, one per thread (blockDim.x == tile / 2). Thread t takes the t-th such pair:
      // i is t with a 0 bit inserted at bit j (the bits of t below j stay, the rest move up one).
      // Compare-exchange s[i] and s[i + j] with compare_exchange(), ascending when the pair's
      // global index origin + i has bit k clear, descending when it is set.
      // HINT: about 4 lines; the README draws the network for 8 keys.
      // STUB: (void)s; (void)is_float;
      const int t = static_cast<int>(threadIdx.x);
      const int i = 2 * t - (t & static_cast<int>(j - 1));  // the lower index of this thread's pair
      const int l = i + static_cast<int>(j);
      compare_exchange(s[i], s[l], ((origin + static_cast<std::size_t>(i)) & k) == 0, is_float);
      // STUDENT-END(sort.bitonic_pairs)
      __syncthreads();
    }
  }
  for (int e = static_cast<int>(threadIdx.x); e < tile; e += static_cast<int>(blockDim.x)) a[origin + e] = s[e];
}

// One step (k, j) with j >= the tile: each thread one pair (i, i + j).
__global__ void bitonic_step(std::uint32_t* a, std::size_t padded, std::size_t k, std::size_t j, bool is_float) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= padded / 2) return;
  const std::size_t i = 2 * t - (t & (j - 1)), l = i + j;
  compare_exchange(a[i], a[l], (i & k) == 0, is_float);
}

// ---- merge sort: tiles sorted in shared memory, then one merge pass per doubling of the runs ----
// The steps are merge.hpp's, as functions of the thread's index. A block sorts a 4096-key tile:
// each thread sorts its 16 keys in registers, then the block merges runs of 16, 32, .. 2048 in
// shared memory (each thread its 16 outputs, placed by merge path, PMPP chapter 12). A global
// pass first finds, one thread per tile boundary, where each block's 4096 outputs start in the
// two runs (a binary search in global memory); each block then loads just those keys into shared
// memory (coalesced), merges them there as the block sort's rounds do, and writes its outputs out
// through shared memory (coalesced). Equal keys come from the left run first: the sort is stable.

// A block's tile from shared memory to global memory, the first `count` keys (and values).
template <bool PAIRS>
__device__ void store_tile(const std::uint32_t* sk, const std::uint32_t* sv, std::uint32_t* keys_out,
                           std::uint32_t* values_out, int count) {
  for (int e = static_cast<int>(threadIdx.x); e < count; e += kMergeThreads) {
    keys_out[e] = sk[merge_slot(e)];
    if (PAIRS) values_out[e] = sv[merge_slot(e)];
  }
}

// A thread's merged outputs (keys in registers, values gathered from their tile positions) back
// into the tile at t * kMergeItems, once every thread has read what it needs.
template <bool PAIRS>
__device__ void write_back(std::uint32_t* sk, std::uint32_t* sv, const std::uint32_t (&key)[kMergeItems],
                           const int (&from)[kMergeItems], int count) {
  const int first = static_cast<int>(threadIdx.x) * kMergeItems;
  std::uint32_t value[kMergeItems];
#pragma unroll
  for (int i = 0; i < kMergeItems; ++i) value[i] = PAIRS ? sv[merge_slot(from[i])] : 0u;
  __syncthreads();  // every thread has read the tile
#pragma unroll
  for (int i = 0; i < kMergeItems; ++i) {
    if (first + i < count) {
      sk[merge_slot(first + i)] = key[i];
      if (PAIRS) sv[merge_slot(first + i)] = value[i];
    }
  }
  __syncthreads();
}

// Each block sorts its tile of kMergeTile keys (the last one padded with the largest key, which
// a stable sort leaves after every real key).
template <bool PAIRS, bool FLOAT>
__global__ void __launch_bounds__(kMergeThreads) merge_block_sort(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                                                                  std::uint32_t* keys_out, std::uint32_t* values_out,
                                                                  std::size_t n) {
  __shared__ std::uint32_t sk[kMergeSlots];
  __shared__ std::uint32_t sv[PAIRS ? kMergeSlots : 1];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * kMergeTile;
  const int count = n - base < static_cast<std::size_t>(kMergeTile) ? static_cast<int>(n - base) : kMergeTile;
  const std::uint32_t pad = FLOAT ? 0x7FFFFFFFu : 0xFFFFFFFFu;
  for (int e = static_cast<int>(threadIdx.x); e < kMergeTile; e += kMergeThreads) {
    sk[merge_slot(e)] = e < count ? keys_in[base + e] : pad;
    if (PAIRS) sv[merge_slot(e)] = e < count ? values_in[base + e] : 0u;
  }
  __syncthreads();
  const int t = static_cast<int>(threadIdx.x);
  std::uint32_t key[kMergeItems], value[kMergeItems];
  int from[kMergeItems];
#pragma unroll
  for (int i = 0; i < kMergeItems; ++i) {
    key[i] = sk[merge_slot(t * kMergeItems + i)];
    value[i] = PAIRS ? sv[merge_slot(t * kMergeItems + i)] : 0u;
  }
  sort_registers<FLOAT, PAIRS, kMergeItems>(key, value);
  __syncthreads();
#pragma unroll
  for (int i = 0; i < kMergeItems; ++i) {
    sk[merge_slot(t * kMergeItems + i)] = key[i];
    if (PAIRS) sv[merge_slot(t * kMergeItems + i)] = value[i];
  }
  __syncthreads();
  for (int width = kMergeItems; width < kMergeTile; width *= 2) {
    block_merge_step<FLOAT, kMergeItems>(sk, width, t, key, from);
    write_back<PAIRS>(sk, sv, key, from, kMergeTile);
  }
  store_tile<PAIRS>(sk, sv, keys_out + base, PAIRS ? values_out + base : nullptr, count);
}

// Where each block of a merge pass starts in its pair's first run: one thread per tile boundary.
template <bool FLOAT>
__global__ void merge_partitions(const std::uint32_t* keys, std::size_t n, std::size_t width, std::size_t* parts,
                                 std::size_t boundaries) {
  const std::size_t q = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q < boundaries) parts[q] = merge_partition<FLOAT>(keys, n, width, q);
}

// One merge pass over the whole array: runs of `width` keys (sorted, width a multiple of the
// tile) merged in pairs, a block per 4096 outputs.
template <bool PAIRS, bool FLOAT>
__global__ void __launch_bounds__(kMergeThreads) merge_pass(const std::uint32_t* keys_in, const std::uint32_t* values_in,
                                                            std::uint32_t* keys_out, std::uint32_t* values_out, std::size_t n,
                                                            std::size_t width, const std::size_t* parts) {
  __shared__ std::uint32_t sk[kMergeSlots];
  __shared__ std::uint32_t sv[PAIRS ? kMergeSlots : 1];
  const MergeTile m = merge_tile_of(n, width, blockIdx.x, parts);
  const int count = static_cast<int>(m.count), la = static_cast<int>(m.a_hi - m.a_lo);
  for (int e = static_cast<int>(threadIdx.x); e < count; e += kMergeThreads) {  // the first run's keys, then the second's
    const std::size_t at = e < la ? m.a + m.a_lo + e : m.b + m.b_lo + (e - la);
    sk[merge_slot(e)] = keys_in[at];
    if (PAIRS) sv[merge_slot(e)] = values_in[at];
  }
  __syncthreads();
  std::uint32_t key[kMergeItems];
  int from[kMergeItems];
  tile_merge_step<FLOAT, kMergeItems>(sk, la, count, static_cast<int>(threadIdx.x), key, from);
  write_back<PAIRS>(sk, sv, key, from, count);
  store_tile<PAIRS>(sk, sv, keys_out + m.o, PAIRS ? values_out + m.o : nullptr, count);
}


std::size_t ceil_pow2(std::size_t n) {
  std::size_t p = 2;
  while (p < n) p <<= 1;
  return p;
}

template <int BITS>
int radix_sort(KeyType t, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, std::uint32_t* const kb[2],
               std::uint32_t* const vb[2], std::uint32_t* counts, std::uint32_t* sums, Sorted& out, cudaStream_t stream) {
  constexpr int kDigits = 1 << BITS;
  const std::size_t tiles = cudalab::ceil_div(n, static_cast<std::size_t>(kRadixTile));
  const bool is_float = t == KeyType::kFloat;
  const std::uint32_t* kin = keys;
  const std::uint32_t* vin = values;
  int launches = 0, to = 0;
  for (int shift = 0; shift < 32; shift += BITS, to ^= 1) {
    radix_count<BITS><<<static_cast<unsigned>(tiles), kRadixThreads, 0, stream>>>(kin, n, shift, is_float, counts, tiles);
    CUDA_CHECK_LAUNCH("radix_count");
    launches += 1 + exclusive_scan(counts, counts, static_cast<std::size_t>(kDigits) * tiles, sums, stream);
    if (values) {
      radix_scatter<BITS, true><<<static_cast<unsigned>(tiles), kRadixThreads, 0, stream>>>(
          kin, vin, kb[to], vb[to], n, shift, is_float, counts, tiles);
    } else {
      radix_scatter<BITS, false><<<static_cast<unsigned>(tiles), kRadixThreads, 0, stream>>>(
          kin, nullptr, kb[to], nullptr, n, shift, is_float, counts, tiles);
    }
    CUDA_CHECK_LAUNCH("radix_scatter");
    ++launches;
    kin = kb[to];
    vin = vb[to];
  }
  out.keys = kin;
  out.values = values ? vin : nullptr;
  return launches;
}

template <bool PAIRS>
int onesweep_sort(KeyType t, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n,
                  std::uint32_t* const kb[2], std::uint32_t* const vb[2], std::uint32_t* counts,
                  unsigned long long* state, unsigned* next_tile, Sorted& out, cudaStream_t stream) {
  const bool is_float = t == KeyType::kFloat;
  const std::size_t tiles = cudalab::ceil_div(n, static_cast<std::size_t>(kSweepTile<PAIRS>));
  CUDA_CHECK(cudaMemsetAsync(counts, 0, kSweepPasses * kSweepDigits * sizeof(std::uint32_t), stream));
  CUDA_CHECK(cudaMemsetAsync(next_tile, 0, kSweepPasses * sizeof(unsigned), stream));
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>(tiles, 2048));
  sweep_counts<<<blocks, 256, 0, stream>>>(keys, n, is_float, counts);
  CUDA_CHECK_LAUNCH("sweep_counts");
  sweep_offsets<<<1, 32, 0, stream>>>(counts);
  CUDA_CHECK_LAUNCH("sweep_offsets");
  int launches = 2, to = 0;
  const std::uint32_t* kin = keys;
  const std::uint32_t* vin = values;
  for (int p = 0; p < kSweepPasses; ++p, to ^= 1) {
    CUDA_CHECK(cudaMemsetAsync(state, 0, tiles * kSweepDigits * sizeof(unsigned long long), stream));
    sweep_pass<PAIRS><<<static_cast<unsigned>(tiles), kRadixThreads, 0, stream>>>(
        kin, vin, kb[to], vb[to], n, 8 * p, is_float, counts + p * kSweepDigits, state, next_tile + p);
    CUDA_CHECK_LAUNCH("sweep_pass");
    ++launches;
    kin = kb[to];
    vin = vb[to];
  }
  out.keys = kin;
  out.values = PAIRS ? vin : nullptr;
  return launches;
}

template <bool PAIRS, bool FLOAT>
int merge_sort(const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, std::uint32_t* const kb[2],
               std::uint32_t* const vb[2], std::size_t* parts, Sorted& out, cudaStream_t stream) {
  const std::size_t tiles = cudalab::ceil_div(n, static_cast<std::size_t>(kMergeTile));
  merge_block_sort<PAIRS, FLOAT><<<static_cast<unsigned>(tiles), kMergeThreads, 0, stream>>>(keys, values, kb[0], vb[0], n);
  CUDA_CHECK_LAUNCH("merge_block_sort");
  int launches = 1, cur = 0;
  const std::size_t boundaries = tiles + 1;
  const auto search_blocks = static_cast<unsigned>(cudalab::ceil_div(boundaries, std::size_t{256}));
  for (std::size_t width = kMergeTile; width < n; width *= 2, cur ^= 1, launches += 2) {
    merge_partitions<FLOAT><<<search_blocks, 256, 0, stream>>>(kb[cur], n, width, parts, boundaries);
    CUDA_CHECK_LAUNCH("merge_partitions");
    merge_pass<PAIRS, FLOAT><<<static_cast<unsigned>(tiles), kMergeThreads, 0, stream>>>(kb[cur], vb[cur], kb[cur ^ 1],
                                                                                       vb[cur ^ 1], n, width, parts);
    CUDA_CHECK_LAUNCH("merge_pass");
  }
  out.keys = kb[cur];
  out.values = PAIRS ? vb[cur] : nullptr;
  return launches;
}

// ---- the ladder: a row is the whole variant, its sort the row's runner ----

// What a runner is given: the inputs, the workspace's ping-pong buffers (values: null for keys
// only) and its scratch, and the stream.
struct Job {
  KeyType t;
  const std::uint32_t* keys;
  const std::uint32_t* values;
  std::size_t n;
  std::uint32_t* kb[2];
  std::uint32_t* vb[2];
  std::uint32_t* counts;
  std::uint32_t* scan_sums;
  unsigned long long* sweep_state;
  unsigned* sweep_tiles;
  std::size_t* merge_parts;
  cudaStream_t stream;
};

// The bitonic network: the keys padded with the largest key to a power of two, sorted in place.
int run_bitonic(const Job& j, Sorted& out) {
  const bool is_float = j.t == KeyType::kFloat;
  const std::size_t padded = ceil_pow2(j.n);
  std::uint32_t* a = j.kb[0];
  const std::uint32_t pad = is_float ? 0x7FFFFFFFu : 0xFFFFFFFFu;  // sorts last: the largest +NaN, or UINT32_MAX
  bitonic_pad<<<static_cast<unsigned>(std::min<std::size_t>(cudalab::ceil_div(padded, std::size_t{256}), 65535)), 256, 0,
                j.stream>>>(j.keys, a, j.n, padded, pad);
  CUDA_CHECK_LAUNCH("bitonic_pad");
  const int tile = static_cast<int>(std::min<std::size_t>(padded, kBitonicTile));
  const unsigned tiles = static_cast<unsigned>(padded / static_cast<std::size_t>(tile));
  bitonic_tile<<<tiles, tile / 2, 0, j.stream>>>(a, tile, 2, static_cast<std::size_t>(tile), is_float);
  CUDA_CHECK_LAUNCH("bitonic_tile");
  int launches = 2;
  for (std::size_t k = 2 * static_cast<std::size_t>(tile); k <= padded; k <<= 1) {
    for (std::size_t jj = k / 2; jj >= static_cast<std::size_t>(tile); jj >>= 1) {
      bitonic_step<<<static_cast<unsigned>(cudalab::ceil_div(padded / 2, std::size_t{256})), 256, 0, j.stream>>>(
          a, padded, k, jj, is_float);
      CUDA_CHECK_LAUNCH("bitonic_step");
      ++launches;
    }
    bitonic_tile<<<tiles, tile / 2, 0, j.stream>>>(a, tile, k, k, is_float);
    CUDA_CHECK_LAUNCH("bitonic_tile");
    ++launches;
  }
  out.keys = a;
  return launches;
}

int run_merge(const Job& j, Sorted& out) {
  using Flags = cudalab::int_list<0, 1>;
  return cudalab::dispatch(Flags{}, j.values ? 1 : 0, "merge: pairs", [&](auto pairs) {
    return cudalab::dispatch(Flags{}, j.t == KeyType::kFloat ? 1 : 0, "merge: float keys", [&](auto is_float) {
      return merge_sort<decltype(pairs)::value == 1, decltype(is_float)::value == 1>(j.keys, j.values, j.n, j.kb, j.vb,
                                                                                   j.merge_parts, out, j.stream);
    });
  });
}

template <int BITS>
int run_radix(const Job& j, Sorted& out) {
  return radix_sort<BITS>(j.t, j.keys, j.values, j.n, j.kb, j.vb, j.counts, j.scan_sums, out, j.stream);
}

int run_onesweep(const Job& j, Sorted& out) {
  return j.values ? onesweep_sort<true>(j.t, j.keys, j.values, j.n, j.kb, j.vb, j.counts, j.sweep_state, j.sweep_tiles,
                                        out, j.stream)
                  : onesweep_sort<false>(j.t, j.keys, nullptr, j.n, j.kb, j.vb, j.counts, j.sweep_state, j.sweep_tiles,
                                         out, j.stream);
}

struct Row {
  Variant id;
  const char* name;  // as --variant takes it
  const char* what;  // one line: what this variant changes
  bool stable;
  int (*run)(const Job&, Sorted&);  // enqueues the sort; returns its launches
};

const std::vector<Row>& ladder() {
  static const std::vector<Row> rows{
      {Variant::kBitonic, "bitonic",
       "a bitonic network: compare-exchange steps, those within 2048 keys in shared memory (keys only: not stable)", false,
       run_bitonic},
      {Variant::kMerge, "merge",
       "merge sort: 4096-key tiles sorted (16 keys a thread in registers, then merged in shared memory), then per "
       "doubling a merge-path search per tile in global memory and each tile merged in shared memory (stable)",
       true, run_merge},
      {Variant::kRadix1, "radix1",
       "LSD radix, 1-bit digits: 32 passes, each the split of PMPP chapter 13 (the keys with the bit clear, then "
       "those with it set, each in order)",
       true, run_radix<1>},
      {Variant::kRadix4, "radix4", "LSD radix, 4-bit digits: 8 passes of count, scan, stable scatter", true,
       run_radix<4>},
      {Variant::kRadix8, "radix8", "LSD radix, 8-bit digits: 4 passes, 256 counters per tile", true, run_radix<8>},
      {Variant::kOnesweep, "onesweep",
       "one-sweep radix (8-bit digits): every pass's digit counts in one read, then per pass one kernel: count the "
       "tile, a decoupled look-back for its place, scatter",
       true, run_onesweep},
  };
  return rows;
}

const Row& row_of(Variant v) { return cudalab::row_of(ladder(), v, "sort"); }

}  // namespace

CUDALAB_VARIANTS_FROM(Variant, ladder())

const char* key_type_name(KeyType t) { return t == KeyType::kU32 ? "u32" : "float"; }

bool is_stable(Variant v) { return row_of(v).stable; }

Workspace::Workspace(std::size_t capacity, bool pairs)
    : capacity_(capacity),
      keys_{cudalab::DeviceBuffer<std::uint32_t>(std::max(ceil_pow2(capacity), capacity)),
            cudalab::DeviceBuffer<std::uint32_t>(std::max<std::size_t>(capacity, 1))},
      values_{cudalab::DeviceBuffer<std::uint32_t>(pairs ? std::max<std::size_t>(capacity, 1) : 0),
              cudalab::DeviceBuffer<std::uint32_t>(pairs ? std::max<std::size_t>(capacity, 1) : 0)},
      counts_(std::max<std::size_t>(kSweepPasses * kSweepDigits,
                                    256 * cudalab::ceil_div(std::max<std::size_t>(capacity, 1),
                                                            static_cast<std::size_t>(kRadixTile)))),
      scan_sums_(counts_.size() / (kScanTile - 1) + 64),
      sweep_state_(counts_.size()),
      sweep_tiles_(kSweepPasses),
      merge_parts_(cudalab::ceil_div(std::max<std::size_t>(capacity, 1), static_cast<std::size_t>(kMergeTile)) + 1) {}

void Workspace::poison() {
  for (auto* b : {&keys_[0], &keys_[1], &values_[0], &values_[1]}) {
    if (b->size() > 0) b->fill_bytes(0xFF);
  }
}

void CubSort::poison() {
  out_keys_.fill_bytes(0xFF);
  if (out_values_.size() > 0) out_values_.fill_bytes(0xFF);
}

Sorted sort(Variant v, KeyType t, const std::uint32_t* keys, const std::uint32_t* values, std::size_t n, Workspace& ws,
            cudaStream_t stream) {
  if (n > ws.capacity()) throw std::invalid_argument("sort: n exceeds the workspace capacity");
  if (values && !is_stable(v)) throw std::invalid_argument("sort: " + variant_name(v) + " is not stable: keys only");
  if (values && ws.values_[0].size() < n) throw std::invalid_argument("sort: the workspace has no room for values");
  Sorted out;
  if (n == 0) {
    out.keys = ws.keys_[0].data();
    out.values = values ? ws.values_[0].data() : nullptr;
    return out;
  }
  const Job job{t,
                keys,
                values,
                n,
                {ws.keys_[0].data(), ws.keys_[1].data()},
                {values ? ws.values_[0].data() : nullptr, values ? ws.values_[1].data() : nullptr},
                ws.counts_.data(),
                ws.scan_sums_.data(),
                ws.sweep_state_.data(),
                ws.sweep_tiles_.data(),
                ws.merge_parts_.data(),
                stream};
  out.launches = row_of(v).run(job, out);
  return out;
}

}  // namespace sort
