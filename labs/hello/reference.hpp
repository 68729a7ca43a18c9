#pragma once
// hello: the CPU side of the lab's checks: what each thread of a 2D launch must compute about
// itself, and the notes' vecAdd inputs and result.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "hello.hpp"

namespace hello {

// The record of thread (tx, ty) of block (bx, by) in a launch of grid x block (no smid, no ticket).
inline ThreadIndex expected_index(dim3 grid, dim3 block, int bx, int by, int tx, int ty) {
  ThreadIndex t;
  t.block_x = bx;
  t.block_y = by;
  t.thread_x = tx;
  t.thread_y = ty;
  const int per_block = static_cast<int>(block.x * block.y);
  const int in_block = ty * static_cast<int>(block.x) + tx;
  t.linear = (by * static_cast<int>(grid.x) + bx) * per_block + in_block;
  t.warp = in_block / 32;
  t.lane = in_block % 32;
  return t;
}

// Every record of the launch, ordered by `linear`.
inline std::vector<ThreadIndex> expected_indices(dim3 grid, dim3 block) {
  std::vector<ThreadIndex> all(static_cast<std::size_t>(grid.x) * grid.y * block.x * block.y);
  for (int by = 0; by < static_cast<int>(grid.y); ++by)
    for (int bx = 0; bx < static_cast<int>(grid.x); ++bx)
      for (int ty = 0; ty < static_cast<int>(block.y); ++ty)
        for (int tx = 0; tx < static_cast<int>(block.x); ++tx) {
          const ThreadIndex t = expected_index(grid, block, bx, by, tx, ty);
          all[static_cast<std::size_t>(t.linear)] = t;
        }
  return all;
}

// Warps per block (the last one partial when the block is not a multiple of 32 threads).
inline int warps_per_block(dim3 block) { return static_cast<int>((block.x * block.y + 31) / 32); }

// The notes' inputs: A[i] = i, B[i] = i * i (int; i * i fits for n <= 46340).
inline std::vector<int> notes_a(int n) {
  std::vector<int> a(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i)] = i;
  return a;
}
inline std::vector<int> notes_b(int n) {
  std::vector<int> b(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) b[static_cast<std::size_t>(i)] = i * i;
  return b;
}

}  // namespace hello
