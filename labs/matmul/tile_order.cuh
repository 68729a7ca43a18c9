#pragma once
// The order in which a grid's blocks take their tiles of C. Blocks run roughly in the order of
// their index, and the ones in flight at once share panels of A and B in L2 only if they are
// neighbours in C: row order covers a band of tile rows and streams all of B from DRAM again for
// each band. grouped_tile(g) hands the tiles out g tile rows at a time, column by column, so the
// blocks in flight cover a squarer patch of C. Both matmul ladders use it; the persistent Hopper
// rung walks the same order with grouped_tile_of, one tile index after another.
#include "common/math.hpp"

namespace matmul {

struct TileAt {
  int col, row;  // the tile's column (along N) and row (along M)
};

// Tile number `id` of a tiles_m x tiles_n grid in the grouped order: a bijection of 0 .. tiles - 1
// onto the grid (matmul_cpu_test checks it).
CUDALAB_HD inline TileAt grouped_tile_of(int id, int tiles_n, int tiles_m, int group_rows) {
  const int per_group = group_rows * tiles_n;
  const int first_row = id / per_group * group_rows;
  const int rows = tiles_m - first_row < group_rows ? tiles_m - first_row : group_rows;
  const int in_group = id % per_group;
  return {in_group / rows, first_row + in_group % rows};
}

// Stream-K (wgmma_stream_k): the work counted in slices, one k step of one tile. A grid of `grid`
// blocks first takes whole tiles for dp_rounds rounds (block b: tiles b, b + grid, ...); the
// slices of the tiles left over, if stream_k_plan splits them, are then shared evenly, block b
// taking the run [start(b), start(b + 1)) of them, in tile order; a run may begin or end inside
// a tile.
struct StreamK {
  int tiles = 0, slices = 0, grid = 0;
  int dp_rounds = 0;         // rounds of whole tiles (the last partial when nothing is split)
  long long sk_slices = 0;   // the slices of the left-over tiles
  CUDALAB_HD int dp_tiles() const { return dp_rounds * grid; }
  CUDALAB_HD long long start(int b) const { return sk_slices * b / grid; }
  // The lowest block whose run holds slices of left-over tile `tile` (counted from dp_tiles()),
  // the first of those whose partial sums the tile's last block adds.
  CUDALAB_HD int first_block_of(int tile) const {
    const long long first = static_cast<long long>(tile - dp_tiles()) * slices;
    int lo = 0, hi = grid - 1;  // the highest b with start(b) <= first: its run holds slice `first`
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (start(mid) <= first) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
};

// The plan for `tiles` tiles of `slices` slices on a GPU of `sms` SMs: one block per SM, no more
// blocks than slices. The left-over tiles are split only when they would leave more than half
// of the last round idle: a split costs each block a partial sum written or read and a wait, and
// a round half full or more runs faster than a full one (less contention for L2 and DRAM), so
// on an H100 splitting 116 left-over tiles of 132 lost 3 % at 4096^3 and 68 of 132 gained 0.3 %
// at 8192^3 (45 of 132 at 1025^3 are split: the lab's README has what that measured). With whole
// tiles the last round is partial: block b's tile b + r * grid exists only while it is below
// `tiles`.
CUDALAB_HD inline StreamK stream_k_plan(int tiles, int slices, int sms) {
  StreamK w;
  w.tiles = tiles;
  w.slices = slices;
  const long long work = static_cast<long long>(tiles) * slices;
  w.grid = static_cast<int>(work < sms ? work : sms);
  w.dp_rounds = tiles / w.grid;
  const int left = tiles - w.dp_rounds * w.grid;
  if (2 * left > w.grid) {  // the last round at least half full: whole tiles (see below)
    ++w.dp_rounds;
    return w;
  }
  w.sk_slices = static_cast<long long>(left) * slices;
  return w;
}

// f(tile, i0, i1) for each piece of block b's work (slices i0 .. i1 of tile `tile`), in the order
// the block does them: the whole tiles of the full rounds, then its run from the end back, so the
// piece that ends inside a tile (the one partial sum a block can leave) comes first.
template <typename F>
CUDALAB_HD inline void for_each_piece(const StreamK& w, int b, F&& f) {
  for (int r = 0; r < w.dp_rounds; ++r) {
    if (b + r * w.grid < w.tiles) f(b + r * w.grid, 0, w.slices);
  }
  const long long s = w.start(b);
  for (long long it = w.start(b + 1); it > s;) {
    const int tile = static_cast<int>((it - 1) / w.slices);
    const long long first = static_cast<long long>(tile) * w.slices;
    const int i0 = static_cast<int>((s > first ? s : first) - first), i1 = static_cast<int>(it - first);
    f(w.dp_tiles() + tile, i0, i1);
    it = first + i0;
  }
}

}  // namespace matmul

#if defined(__CUDACC__)
// The (column, row) of this block's tile of C in that grouped order (a bijection on the grid).
__device__ __forceinline__ int2 grouped_tile(int group_rows) {
  const int tiles_n = static_cast<int>(gridDim.x), tiles_m = static_cast<int>(gridDim.y);
  const int id = static_cast<int>(blockIdx.y) * tiles_n + static_cast<int>(blockIdx.x);
  const matmul::TileAt t = matmul::grouped_tile_of(id, tiles_n, tiles_m, group_rows);
  return make_int2(t.col, t.row);
}
#endif
