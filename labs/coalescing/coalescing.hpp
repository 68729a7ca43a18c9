#pragma once
// coalescing: what an access pattern costs in global memory. Each experiment changes one thing
// and keeps the useful work the same: the stride between the elements a warp reads, the offset
// of its first element, an array of structs against a struct of arrays, and which image axis
// threadIdx.x walks along.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace coalescing {

// out[i] = in[i * stride] for i < n (in holds n * stride floats).
void launch_stride(const float* in, float* out, std::size_t n, int stride);
// out[i] = in[i + offset] for i < n (in holds n + offset floats).
void launch_offset(const float* in, float* out, std::size_t n, int offset);

// A particle with four fields; the update reads two of them (x and vx) and writes one (x).
struct Particle {
  float x, y, vx, vy;
};
void launch_aos(Particle* p, std::size_t n, float dt);                     // p[i].x += p[i].vx * dt
void launch_soa(float* x, const float* vx, std::size_t n, float dt);       // x[i] += vx[i] * dt

// out = 2 * in over a width x height row-major image. Coalesced: threadIdx.x walks along a row
// (x is the column, as the notes say: x varies fastest). Swapped: threadIdx.x walks down a column.
void launch_scale_2d(const float* in, float* out, int width, int height, bool swapped);

}  // namespace coalescing
