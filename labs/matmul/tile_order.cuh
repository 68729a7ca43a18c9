#pragma once
// The order in which a grid's blocks take their tiles of C. Blocks run roughly in the order of
// their index, and the ones in flight at once share panels of A and B in L2 only if they are
// neighbours in C: row order covers a band of tile rows and streams all of B from DRAM again for
// each band. grouped_tile(g) hands the tiles out g tile rows at a time, column by column, so the
// blocks in flight cover a squarer patch of C. Both matmul ladders use it.

// The (column, row) of this block's tile of C in that grouped order (a bijection on the grid).
__device__ __forceinline__ int2 grouped_tile(int group_rows) {
  const int tiles_n = static_cast<int>(gridDim.x), tiles_m = static_cast<int>(gridDim.y);
  const int id = static_cast<int>(blockIdx.y) * tiles_n + static_cast<int>(blockIdx.x);
  const int per_group = group_rows * tiles_n;
  const int first_row = id / per_group * group_rows;
  const int rows = min(tiles_m - first_row, group_rows);
  const int in_group = id % per_group;
  return make_int2(in_group / rows, first_row + in_group % rows);
}
