#pragma once
// occupancy: how many blocks fit on an SM, what stops more, and what occupancy buys.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/occupancy_calc.hpp"

namespace occupancy_lab {

// The lab's kernels, each with a different resource footprint: the notes' light_kernel and
// smem_kernel, and one that keeps 16, 48 or 96 values per thread live (96 also under
// __launch_bounds__(256, 4)). occupancy.cu's table holds each one's name, launcher, suggested
// block and CPU version.
enum class Kernel { kLight, kSharedMemory, kRegisters16, kRegisters48, kRegisters96, kRegisters96Bounded };

const std::vector<Kernel>& all_kernels();
std::string kernel_name(Kernel k);
cudaFuncAttributes attributes(Kernel k);
// Raises the kernel's dynamic shared memory limit to the device's opt-in maximum.
void allow_max_dynamic_smem(Kernel k, const cudaFuncAttributes& attr, std::size_t optin);
int api_blocks_per_sm(Kernel k, int block, std::size_t dynamic_smem);
// cudaOccupancyMaxPotentialBlockSize: the block size with the highest occupancy, and the
// smallest grid that fills the GPU with it.
struct Suggestion {
  int block = 0, min_grid = 0;
};
Suggestion suggest_block(Kernel k);

// Every kernel x block sizes 32..its maximum (step 32) x dynamic shared memory 0..its opt-in
// maximum in 4 KB steps (and one byte over each): this calculator vs
// cudaOccupancyMaxActiveBlocksPerMultiprocessor. Raises each kernel's dynamic limit first.
struct KernelSweep {
  Kernel kernel;
  cudaFuncAttributes attr;
  int configs = 0, agree = 0;
};
std::vector<KernelSweep> runtime_sweep(const cudalab::occupancy::GpuSpec& gpu);

// Runs each kernel once on `n` elements (tests check the results; the lab does not time these).
void run_kernel(Kernel k, float* x, const float* in, int n, int block, std::size_t dynamic_smem);
// The CPU version of each kernel, for the tests.
void reference(Kernel k, std::vector<float>& x, const std::vector<float>& in, int block);

// Memory-bound copy-and-scale used for bandwidth vs occupancy: out = 2 * in, grid-stride.
// `ilp` = false: one float per iteration; true: four 16-byte loads issued before any store.
// Allows the stream kernels up to `max_dynamic` bytes of dynamic shared memory.
void allow_stream_smem(std::size_t max_dynamic);
void launch_stream(bool ilp, const float* in, float* out, std::size_t n, int grid, int block,
                   std::size_t dynamic_smem, cudaStream_t stream = nullptr);

// A block that does nothing but wait `cycles` SM clocks: every block takes the same time. The
// dynamic shared memory (unused) sets how many blocks an SM holds.
void launch_spin(long long cycles, int grid, int block, unsigned long long* sink, cudaStream_t stream = nullptr,
                 std::size_t dynamic_smem = 0);
int spin_blocks_per_sm(int block, std::size_t dynamic_smem = 0);
// The tail's fix: the work as `items` waits of `cycles` each, walked by a persistent grid (each
// block takes every grid-th item). `visits` (may be null) counts each item's visits.
void launch_spin_items(long long cycles, long long items, int grid, int block, unsigned* visits,
                       unsigned long long* sink, cudaStream_t stream = nullptr, std::size_t dynamic_smem = 0);
int spin_items_blocks_per_sm(int block, std::size_t dynamic_smem = 0);
// Time of `work` one-block waits, each split into `split` items, on a persistent grid of
// `full_wave` blocks, in units of one wait: ceil(work x split / full_wave) / split. Against the
// whole waits' waves(work, ...) the tail shrinks from one wave to 1 / split of one.
double persistent_waves(long long work, long long full_wave, int split);

// Blocks of the stream kernel (no dynamic shared memory) one SM holds: the grid-size sweep's unit.
int stream_blocks_per_sm(int block);

// Launch overhead: `launches` launches of a one-thread kernel that adds one to *counter, on
// `stream` one after the other...
void launch_bumps(unsigned* counter, int launches, cudaStream_t stream = nullptr);
// ... and the same launches captured once into a CUDA graph, replayed by one cudaGraphLaunch.
class BumpGraph {
 public:
  BumpGraph(unsigned* counter, int launches);
  ~BumpGraph();
  BumpGraph(const BumpGraph&) = delete;
  BumpGraph& operator=(const BumpGraph&) = delete;
  void launch(cudaStream_t stream = nullptr);
  std::size_t nodes() const;

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

// Number of waves `blocks` need on `sms` SMs holding `per_sm` blocks each.
long long waves(long long blocks, int sms, int per_sm);

// The notes' exercise 74, an occupancy calculator of the student's own: the blocks of kernel `k`
// one SM of `gpu` holds by each resource alone and in all (cudalab::occupancy::kUnlimited for a
// resource the kernel does not use). The rules are those of common/occupancy_calc.hpp without
// named barriers, for a kernel that has opted in to the device's largest shared memory per block;
// the what-if mode prints it beside that calculator, and the tests hold it to it on kernels drawn
// afresh in every grading run.
struct Exercise74 {
  int by_threads = 0, by_blocks = 0, by_registers = 0, by_shared_memory = 0;
  int resident_blocks = 0;
};
Exercise74 exercise_74(const cudalab::occupancy::GpuSpec& gpu, const cudalab::occupancy::KernelSpec& k);

// "sm_90", "90" or "9.0" -> the built-in spec.
std::optional<cudalab::occupancy::GpuSpec> parse_arch(const std::string& text);

}  // namespace occupancy_lab
