#pragma once
// The online softmax's per-tile step that both Tensor Core prefill rungs take (attention.cu's
// prefill_mma_sync, attention_wgmma.cu's prefill_wgmma). Both hold S in an accumulator layout
// where each thread has two query rows and a row's scores of the tile sit in the 4 lanes of a
// quad (mma.sync's m16n8 and wgmma's m64nN layouts agree on that).
#include <cmath>

namespace attention {

// mx[h]: this lane's largest scaled, masked score of row h in the tile. Makes it the quad's, then
// moves the row's running max m to include it and returns base[h], what the tile's exponentials
// are taken against (0 for a row that has seen no key yet, whose every p is then 0), and alpha[h]
// = 2^(m_old - base), the factor for everything summed before: l is rescaled by it here, O by
// the caller.
__device__ __forceinline__ void online_max_step(float (&mx)[2], float (&m)[2], float (&l)[2], float (&alpha)[2],
                                                float (&base)[2]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
    mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
    const float m_new = fmaxf(m[h], mx[h]);
    base[h] = m_new == -INFINITY ? 0.0f : m_new;
    alpha[h] = exp2f(m[h] - base[h]);
    m[h] = m_new;
    l[h] *= alpha[h];
  }
}

}  // namespace attention
