#include "common/launch_geometry.hpp"

#include <fmt/format.h>

#include "common/math.hpp"

namespace cudalab {

double LaunchGeometry::idle_percent() const {
  return slots() > 0 ? 100.0 * static_cast<double>(idle_slots()) / static_cast<double>(slots()) : 0.0;
}

std::string LaunchGeometry::describe(const std::string& item_name) const {
  const std::string grid = grid_y > 1 || block_y > 1
                               ? fmt::format("{} x {} = {} blocks of {} x {} threads", grid_x, grid_y,
                                             blocks(), block_x, block_y)
                               : fmt::format("{} blocks of {} threads", blocks(), block_x);
  if (items_per_thread > 1) {
    return fmt::format("{}, {} threads x {} = {} slots for {} {}, {} idle ({:.2f}%)", grid, threads(),
                       items_per_thread, slots(), work_items, item_name, idle_slots(), idle_percent());
  }
  return fmt::format("{}, {} threads for {} {}, {} idle ({:.2f}%)", grid, threads(), work_items,
                     item_name, idle_slots(), idle_percent());
}

LaunchGeometry geometry_1d(std::int64_t items, std::int64_t block, std::int64_t items_per_thread) {
  LaunchGeometry g;
  g.block_x = block;
  g.items_per_thread = items_per_thread;
  g.work_items = items;
  g.grid_x = ceil_div(items, block * items_per_thread);
  return g;
}

LaunchGeometry geometry_2d(std::int64_t width, std::int64_t height, std::int64_t block_x,
                           std::int64_t block_y) {
  LaunchGeometry g;
  g.block_x = block_x;
  g.block_y = block_y;
  g.grid_x = ceil_div(width, block_x);
  g.grid_y = ceil_div(height, block_y);
  g.work_items = width * height;
  return g;
}

}  // namespace cudalab
