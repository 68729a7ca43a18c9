#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace cudalab {

// Enqueues a kernel that reads `bytes` of `buffer` (16-byte aligned) through L2. Used by
// L2Flusher; `sink` is a device word the kernel practically never writes.
void launch_l2_flush(const void* buffer, std::size_t bytes, unsigned* sink, cudaStream_t stream);

}  // namespace cudalab
