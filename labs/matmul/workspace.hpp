#pragma once
// Device memory a launcher keeps from one launch to the next: the partial copies of C for the
// SIMT ladder's split-K (matmul.cu), the partial tiles and flags of the Hopper rung's stream-K
// (wgmma.cu). One buffer per (device, use), zero-filled when it is made and grown when a launch
// needs more; never freed (a static destructor would run after the CUDA runtime has shut down).
// Launches that share a use must not run at the same time on two streams of one device.
#include <cstddef>

namespace matmul {

enum class Workspace { kSplitK, kStreamK };

// At least `bytes` of device memory for `use` on the current device, 256-byte aligned.
void* workspace(Workspace use, std::size_t bytes);

}  // namespace matmul
