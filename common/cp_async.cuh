#pragma once
// cp.async (sm_80+): a copy from global to shared memory that does not pass through registers
// and does not block the thread; the copies of a commit group complete together, and
// wait_group<N> waits until at most N groups are still in flight. `valid` false copies zeros
// (the source size 0: nothing is read). Before sm_80 the same calls are plain copies, and
// commit/wait do nothing (matmul's fallback() says so). matmul's ladders and attention's mma.sync
// rung use these.

__device__ __forceinline__ void cp_async4(float* smem, const float* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 4 : 0));
#else
  *smem = valid ? *src : 0.0f;
#endif
}

// 16 bytes; smem and src 16-byte aligned.
__device__ __forceinline__ void cp_async16(void* smem, const void* src, bool valid) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid ? 16 : 0));
#else
  *static_cast<uint4*>(smem) = valid ? *static_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// The same to a shared-memory address (__cvta_generic_to_shared's 32 bits), for kernels that
// work their addresses out once. sm_80+ only.
__device__ __forceinline__ void cp_async16_at(unsigned smem, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem), "l"(src), "r"(valid ? 16 : 0));
}
#endif

__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
#endif
}
