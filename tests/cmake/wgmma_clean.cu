// cmake/wgmma_guard.sh must pass this file: the same wgmma chain with no branch around it (the
// loop's steps all alike), which ptxas leaves asynchronous. Compiled by
// tests/cmake/test_wgmma_guard.sh, never linked.
#include <cstdint>

#include "common/hopper.cuh"

namespace hw = cudalab::hopper;

__global__ void __launch_bounds__(128) clean(float* out, std::uint64_t da, std::uint64_t db, int n) {
  float acc[64] = {};
  for (int t = 0; t < n; ++t) {
    hw::wgmma_fence();
    hw::wgmma_m64n128k16_bf16<0>(acc, da + 2 * t, db);
    hw::wgmma_commit();
    hw::wgmma_wait<0>();
    hw::fence_operands(acc);
  }
  for (int i = 0; i < 64; ++i) out[threadIdx.x * 64 + i] = acc[i];
}
