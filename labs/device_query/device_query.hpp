#pragma once
// device_query: read the GPU's facts at run time and derive the numbers every later lab
// uses (how many threads can be resident, what bandwidth is the ceiling).
#include "common/device_facts.hpp"
#include "common/report.hpp"

namespace device_query {

// How many blocks of `block_threads` threads fit on one SM when only the thread and block
// limits count (registers and shared memory are ignored here; the occupancy lab adds them).
struct BlockResidency {
  int block_threads = 0;
  int blocks_by_threads = 0;      // max_threads_per_sm / block_threads
  int blocks_by_block_limit = 0;  // the hardware's max resident blocks per SM
  int resident_blocks = 0;        // the smaller of the two
  int resident_threads = 0;
  int resident_warps = 0;
  double occupancy_percent = 0;   // resident warps / max warps per SM
};

BlockResidency residency_by_threads_and_blocks(int max_threads_per_sm, int max_blocks_per_sm,
                                               int warp_size, int block_threads);

// Adds one device's facts to the report (one "devices" item).
void report_device(cudalab::Report& report, const cudalab::DeviceFacts& facts);

}  // namespace device_query
