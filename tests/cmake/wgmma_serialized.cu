// cmake/wgmma_guard.sh must refuse this file: a wgmma issued under a branch that ptxas cannot
// prove uniform across the warpgroup (threadIdx.x < 64) inside a loop makes it serialise every
// wgmma of the kernel (ptxas -v: "(C7520) Potential Performance Loss: wgmma.mma_async
// instructions are serialized ..."). Compiled by tests/cmake/test_wgmma_guard.sh, never linked.
#include <cstdint>

#include "common/hopper.cuh"

namespace hw = cudalab::hopper;

__global__ void __launch_bounds__(128) serialized(float* out, std::uint64_t da, std::uint64_t db, int n) {
  float acc[64] = {};
  for (int t = 0; t <= n; ++t) {
    hw::wgmma_fence();
    if (t > 0 && threadIdx.x < 64) {
      hw::wgmma_m64n128k16_bf16<0>(acc, da, db);
      hw::wgmma_commit();
    }
    if (t < n) {
      hw::wgmma_m64n128k16_bf16<0>(acc, da + 2, db);
      hw::wgmma_commit();
    }
    hw::wgmma_wait<0>();
    hw::fence_operands(acc);
  }
  for (int i = 0; i < 64; ++i) out[threadIdx.x * 64 + i] = acc[i];
}
