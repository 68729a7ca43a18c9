#pragma once
// Launch-configuration arithmetic as the course notes print it: how many blocks a grid
// needs, how many threads it launches, and how many of them find no work (idle).
//   1D: N = 1000, 256-thread blocks -> 4 blocks, 1024 threads, 24 idle (2.34%)
//   2D: 76 x 62 image, 16 x 16 blocks -> 5 x 4 = 20 blocks, 5120 threads, 408 idle (7.97%)
#include <cstdint>
#include <string>

namespace cudalab {

struct LaunchGeometry {
  std::int64_t grid_x = 0, grid_y = 1;    // blocks per dimension
  std::int64_t block_x = 0, block_y = 1;  // threads per block per dimension
  std::int64_t work_items = 0;            // elements/pixels that need a thread's work
  std::int64_t items_per_thread = 1;      // > 1 for coarsened kernels

  std::int64_t blocks() const { return grid_x * grid_y; }
  std::int64_t threads_per_block() const { return block_x * block_y; }
  std::int64_t threads() const { return blocks() * threads_per_block(); }
  // Work slots (threads x items per thread) that find no item: the threads the bounds check
  // stops, counted per slot for coarsened kernels.
  std::int64_t slots() const { return threads() * items_per_thread; }
  std::int64_t idle_slots() const { return slots() > work_items ? slots() - work_items : 0; }
  double idle_percent() const;
  // "5 x 4 = 20 blocks of 16 x 16 threads, 5120 threads for 4712 pixels, 408 idle (7.97%)"
  std::string describe(const std::string& item_name) const;
};

// One item per thread (or `items_per_thread` consecutive chunks), blocks of `block` threads.
LaunchGeometry geometry_1d(std::int64_t items, std::int64_t block, std::int64_t items_per_thread = 1);
// A width x height grid of items, blocks of block_x x block_y threads.
LaunchGeometry geometry_2d(std::int64_t width, std::int64_t height, std::int64_t block_x,
                           std::int64_t block_y);

}  // namespace cudalab
