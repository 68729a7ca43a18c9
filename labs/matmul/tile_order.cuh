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
