// coalescing: one kernel per experiment; each changes only how a warp's addresses are laid out.
#include "coalescing.hpp"

#include "common/cuda_check.hpp"

namespace coalescing {

namespace {

constexpr int kBlock = 256;

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

__global__ void stride_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int stride) {
  // STUDENT-BEGIN(coalescing.stride): a strided read, a coalesced write
  // TASK: Element i = blockIdx.x * blockDim.x + threadIdx.x (64-bit) of out, if i < n, is
  // in[i * stride]. Nothing else: the point is what the strided read costs.
  // HINT: 2 lines.
  // STUB: (void)in; (void)out; (void)n; (void)stride;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i * static_cast<std::size_t>(stride)];
  // STUDENT-END(coalescing.stride)
}

__global__ void offset_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int offset) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i + static_cast<std::size_t>(offset)];
}

__global__ void aos_kernel(Particle* __restrict__ p, std::size_t n, float dt) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) p[i].x = fmaf(p[i].vx, dt, p[i].x);
}

__global__ void soa_kernel(float* __restrict__ x, const float* __restrict__ vx, std::size_t n, float dt) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaf(vx[i], dt, x[i]);
}

// 32 x 8 threads per block. Coalesced: threadIdx.x is the column; swapped: threadIdx.x is the row.
__global__ void scale_2d_kernel(const float* __restrict__ in, float* __restrict__ out, int width, int height,
                                bool swapped) {
  const int a = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int b = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  const int col = swapped ? b : a, row = swapped ? a : b;
  if (row < height && col < width) {
    const std::size_t at = static_cast<std::size_t>(row) * width + col;
    out[at] = 2.0f * in[at];
  }
}

}  // namespace

void launch_stride(const float* in, float* out, std::size_t n, int stride) {
  if (n == 0) return;
  stride_kernel<<<blocks_for(n), kBlock>>>(in, out, n, stride);
  CUDA_CHECK_LAUNCH("stride_kernel");
}

void launch_offset(const float* in, float* out, std::size_t n, int offset) {
  if (n == 0) return;
  offset_kernel<<<blocks_for(n), kBlock>>>(in, out, n, offset);
  CUDA_CHECK_LAUNCH("offset_kernel");
}

void launch_aos(Particle* p, std::size_t n, float dt) {
  if (n == 0) return;
  aos_kernel<<<blocks_for(n), kBlock>>>(p, n, dt);
  CUDA_CHECK_LAUNCH("aos_kernel");
}

void launch_soa(float* x, const float* vx, std::size_t n, float dt) {
  if (n == 0) return;
  soa_kernel<<<blocks_for(n), kBlock>>>(x, vx, n, dt);
  CUDA_CHECK_LAUNCH("soa_kernel");
}

void launch_scale_2d(const float* in, float* out, int width, int height, bool swapped) {
  const dim3 block(32, 8);
  const int along_x = swapped ? height : width, along_y = swapped ? width : height;
  const dim3 grid(static_cast<unsigned>((along_x + 31) / 32), static_cast<unsigned>((along_y + 7) / 8));
  scale_2d_kernel<<<grid, block>>>(in, out, width, height, swapped);
  CUDA_CHECK_LAUNCH("scale_2d_kernel");
}

}  // namespace coalescing
