// transfers: the kernel, the chunked pipeline over streams, the copy timers and unified memory.
#include "transfers.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "common/cuda_check.hpp"
#include "common/timer.hpp"

namespace transfers {

namespace {

constexpr int kBlock = 256;

// One element per thread, as in the notes; the lesson here is the road, not the kernel.
__global__ void add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                           std::size_t n) {
  const std::size_t element = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (element >= n) return;
  c[element] = a[element] + b[element];
}

// The inputs written on the GPU: unified memory whose first touch is on the device.
__global__ void init_kernel(float* __restrict__ a, float* __restrict__ b, std::size_t n) {
  const std::size_t element = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (element >= n) return;
  a[element] = input_a(element);
  b[element] = input_b(element);
}

// Enough blocks for one thread per element (N <= 2^34: at most 2^26 blocks, far below the limit).
unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

using cudalab::Event;
using cudalab::ManagedBuffer;
using cudalab::Stream;

double ms_between(const Event& from, const Event& to) {
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
  return ms;
}

double host_ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) { return cudalab::summarize(std::move(v)).median_ms; }

}  // namespace

PipelineBuffers::PipelineBuffers(std::size_t n, std::uint64_t seed)
    : n_(n), a_(n), b_(n), c_(n), d_a_(n), d_b_(n), d_c_(n) {
  fill_inputs(a_.data(), b_.data(), n, seed);
  poison_c();
}

Pipeline PipelineBuffers::view(std::size_t n) {
  if (n > n_) throw std::length_error("PipelineBuffers::view: more elements than the buffers hold");
  return Pipeline{a_.data(), b_.data(), c_.data(), d_a_.data(), d_b_.data(), d_c_.data(), n};
}

void PipelineBuffers::poison_c() { std::memset(c_.data(), 0xFF, c_.bytes()); }

void launch_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  add_kernel<<<blocks_for(n), kBlock, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_LAUNCH("add_kernel");
}

void issue_chunk(const Pipeline& p, const Chunk& chunk, cudaStream_t stream, const ChunkEvents& ev) {
  // STUDENT-BEGIN(transfers.issue_chunk): one chunk's trip through its stream
  // TASK: Enqueue, on `stream` and without waiting, the trip of elements [chunk.offset,
  // chunk.offset + chunk.count): record ev.start; copy that part of p.a and p.b (pinned) to
  // p.d_a and p.d_b with cudaMemcpyAsync; record ev.copied_in; launch_add on the device part;
  // record ev.computed; copy the part of p.d_c back into p.c; record ev.copied_out. Check every
  // call with CUDA_CHECK.
  // HINT: about 10 lines. The offset applies to all six pointers; the byte count is
  // chunk.count * sizeof(float). cudaEventRecord(event, stream) marks a point in the stream.
  // STUB: (void)p; (void)chunk; (void)stream; (void)ev;
  const std::size_t offset = chunk.offset, bytes = chunk.count * sizeof(float);
  CUDA_CHECK(cudaEventRecord(ev.start, stream));
  CUDA_CHECK(cudaMemcpyAsync(p.d_a + offset, p.a + offset, bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(p.d_b + offset, p.b + offset, bytes, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaEventRecord(ev.copied_in, stream));
  launch_add(p.d_a + offset, p.d_b + offset, p.d_c + offset, chunk.count, stream);
  CUDA_CHECK(cudaEventRecord(ev.computed, stream));
  CUDA_CHECK(cudaMemcpyAsync(p.c + offset, p.d_c + offset, bytes, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaEventRecord(ev.copied_out, stream));
  // STUDENT-END(transfers.issue_chunk)
}

OverlapRun run_overlap(const Pipeline& p, int streams, int chunks) {
  if (streams < 1 || streams > chunks) {
    throw std::invalid_argument("run_overlap: need 1 <= streams <= chunks");
  }
  const std::vector<Chunk> parts = split_chunks(p.n, chunks);
  std::vector<Stream> s(static_cast<std::size_t>(streams));
  std::vector<Event> marks(4 * parts.size());
  Event t0;
  // Every stream starts after t0: the timeline's zero.
  CUDA_CHECK(cudaEventRecord(t0.get(), s[0].get()));
  for (std::size_t k = 1; k < s.size(); ++k) CUDA_CHECK(cudaStreamWaitEvent(s[k].get(), t0.get(), 0));
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const ChunkEvents ev{marks[4 * i].get(), marks[4 * i + 1].get(), marks[4 * i + 2].get(), marks[4 * i + 3].get()};
    issue_chunk(p, parts[i], s[static_cast<std::size_t>(stream_of(static_cast<int>(i), streams))].get(), ev);
  }
  for (const Stream& x : s) CUDA_CHECK(cudaStreamSynchronize(x.get()));
  OverlapRun run;
  static const char* const kOps[] = {"h2d", "kernel", "d2h"};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    double t[4];
    for (int j = 0; j < 4; ++j) t[j] = ms_between(t0, marks[4 * i + static_cast<std::size_t>(j)]);
    for (int j = 0; j < 3; ++j) {
      run.timeline.push_back({stream_of(static_cast<int>(i), streams), static_cast<int>(i), kOps[j], t[j], t[j + 1]});
    }
    run.total_ms = std::max(run.total_ms, t[3]);
  }
  return run;
}

Alone time_alone(const Pipeline& p, int repeats) {
  const std::size_t bytes = p.n * sizeof(float);
  Stream s;
  Event e0, e1;
  std::vector<double> h2d, kernel, d2h, serial;
  const auto h2d_ops = [&] {
    CUDA_CHECK(cudaMemcpyAsync(p.d_a, p.a, bytes, cudaMemcpyHostToDevice, s.get()));
    CUDA_CHECK(cudaMemcpyAsync(p.d_b, p.b, bytes, cudaMemcpyHostToDevice, s.get()));
  };
  const auto kernel_op = [&] { launch_add(p.d_a, p.d_b, p.d_c, p.n, s.get()); };
  const auto d2h_op = [&] { CUDA_CHECK(cudaMemcpyAsync(p.c, p.d_c, bytes, cudaMemcpyDeviceToHost, s.get())); };
  const auto timed = [&](auto&& ops) {
    CUDA_CHECK(cudaEventRecord(e0.get(), s.get()));
    ops();
    CUDA_CHECK(cudaEventRecord(e1.get(), s.get()));
    CUDA_CHECK(cudaEventSynchronize(e1.get()));
    return ms_between(e0, e1);
  };
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    h2d.push_back(timed(h2d_ops));
    kernel.push_back(timed(kernel_op));
    d2h.push_back(timed(d2h_op));
    serial.push_back(timed([&] {
      h2d_ops();
      kernel_op();
      d2h_op();
    }));
  }
  return Alone{median(h2d), median(kernel), median(d2h), median(serial)};
}

double time_copy_ms(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, int repeats) {
  CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));  // warm-up: the first copy maps the pages
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> samples;
  for (int r = 0; r < std::max(repeats, 1); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
    CUDA_CHECK(cudaDeviceSynchronize());  // a pageable H2D copy may return before its DMA ends
    samples.push_back(host_ms_since(t0));
  }
  return median(std::move(samples));
}

double end_to_end_ms(const float* a, const float* b, float* c, float* d_a, float* d_b, float* d_c, std::size_t n) {
  const std::size_t bytes = n * sizeof(float);
  const auto t0 = std::chrono::steady_clock::now();
  CUDA_CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));
  launch_add(d_a, d_b, d_c, n, nullptr);
  CUDA_CHECK(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaDeviceSynchronize());
  return host_ms_since(t0);
}

namespace {

// The phases of one unified-memory case over its repetitions.
struct Phases {
  std::vector<double> to_gpu, kernel, to_host, total;
  void add(double in_ms, double kernel_ms, double out_ms) {
    if (in_ms >= 0) to_gpu.push_back(in_ms);
    kernel.push_back(kernel_ms);
    to_host.push_back(out_ms);
    total.push_back(std::max(in_ms, 0.0) + kernel_ms + out_ms);
  }
  UnifiedCase result(std::string name, bool correct) const {
    UnifiedCase u;
    u.name = std::move(name);
    u.to_gpu_ms = to_gpu.empty() ? -1 : median(to_gpu);
    u.kernel_ms = median(kernel);
    u.to_host_ms = median(to_host);
    u.total_ms = median(total);
    u.correct = correct;
    return u;
  }
};

// Reads c on the host one float per 4 KiB page: with on-demand migration every page the GPU
// wrote comes back on the host's page fault. Returns the host time.
double touch_on_host(const float* c, std::size_t n) {
  const auto t0 = std::chrono::steady_clock::now();
  float sum = 0;
  for (std::size_t i = 0; i < n; i += 1024) sum += c[i];
  volatile float sink = sum;
  (void)sink;
  return host_ms_since(t0);
}

}  // namespace

UnifiedReport run_unified(std::size_t n, int repeats, std::uint64_t seed) {
  int device = 0, concurrent = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
  UnifiedReport report;
  report.prefetch_supported = concurrent != 0;
  const std::size_t bytes = n * sizeof(float);
  repeats = std::max(repeats, 1);
  Event e0, e1;
  const auto timed = [&](auto&& ops) {
    CUDA_CHECK(cudaEventRecord(e0.get(), nullptr));
    ops();
    CUDA_CHECK(cudaEventRecord(e1.get(), nullptr));
    CUDA_CHECK(cudaEventSynchronize(e1.get()));
    return ms_between(e0, e1);
  };
  cudaMemLocation on_gpu{}, on_host{};
  on_gpu.type = cudaMemLocationTypeDevice;
  on_gpu.id = device;
  on_host.type = cudaMemLocationTypeHost;

  {  // cudaMallocManaged, the inputs written by the host: the kernel's page faults move them
    ManagedBuffer<float> a(n), b(n), c(n);
    const auto host_init = [&] {
      fill_inputs(a.data(), b.data(), n, seed);
      std::memset(c.data(), 0xFF, bytes);
      CUDA_CHECK(cudaDeviceSynchronize());
    };
    Phases on_demand;
    bool ok = true;
    for (int r = 0; r < repeats; ++r) {
      host_init();
      const double k = timed([&] { launch_add(a.data(), b.data(), c.data(), n, nullptr); });
      on_demand.add(-1, k, touch_on_host(c.data(), n));
      ok = ok && first_wrong(c.data(), a.data(), b.data(), n) == n;
    }
    report.cases.push_back(on_demand.result("managed, host first touch, on demand", ok));
    if (report.prefetch_supported) {
      Phases prefetched;
      ok = true;
      for (int r = 0; r < repeats; ++r) {
        host_init();
        const double in = timed([&] {
          CUDA_CHECK(cudaMemPrefetchAsync(a.data(), bytes, on_gpu, 0, nullptr));
          CUDA_CHECK(cudaMemPrefetchAsync(b.data(), bytes, on_gpu, 0, nullptr));
          CUDA_CHECK(cudaMemPrefetchAsync(c.data(), bytes, on_gpu, 0, nullptr));
        });
        const double k = timed([&] { launch_add(a.data(), b.data(), c.data(), n, nullptr); });
        const double out = timed([&] { CUDA_CHECK(cudaMemPrefetchAsync(c.data(), bytes, on_host, 0, nullptr)); });
        prefetched.add(in, k, out);
        ok = ok && first_wrong(c.data(), a.data(), b.data(), n) == n;
      }
      report.cases.push_back(prefetched.result("managed, host first touch, prefetched", ok));
    }
  }
  {  // cudaMallocManaged, first touched by the GPU: the pages are born in device memory
    Phases gpu_first;
    bool ok = true;
    for (int r = 0; r < repeats; ++r) {
      ManagedBuffer<float> a(n), b(n), c(n);
      init_kernel<<<blocks_for(n), kBlock>>>(a.data(), b.data(), n);
      CUDA_CHECK_LAUNCH("init_kernel");
      CUDA_CHECK(cudaMemset(c.data(), 0xFF, bytes));
      CUDA_CHECK(cudaDeviceSynchronize());
      const double k = timed([&] { launch_add(a.data(), b.data(), c.data(), n, nullptr); });
      gpu_first.add(-1, k, touch_on_host(c.data(), n));
      ok = ok && first_wrong(c.data(), a.data(), b.data(), n) == n;
    }
    report.cases.push_back(gpu_first.result("managed, GPU first touch, on demand", ok));
  }
  cudalab::DeviceBuffer<float> d_a(n), d_b(n), d_c(n);
  const auto explicit_case = [&](float* a, float* b, float* c, const std::string& name) {
    fill_inputs(a, b, n, seed);
    Phases copies;
    bool ok = true;
    for (int r = 0; r < repeats; ++r) {
      std::memset(c, 0xFF, bytes);
      const double in = timed([&] {
        CUDA_CHECK(cudaMemcpy(d_a.data(), a, bytes, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d_b.data(), b, bytes, cudaMemcpyHostToDevice));
      });
      const double k = timed([&] { launch_add(d_a.data(), d_b.data(), d_c.data(), n, nullptr); });
      const double out = timed([&] { CUDA_CHECK(cudaMemcpy(c, d_c.data(), bytes, cudaMemcpyDeviceToHost)); });
      copies.add(in, k, out);
      ok = ok && first_wrong(c, a, b, n) == n;
    }
    report.cases.push_back(copies.result(name, ok));
  };
  {
    cudalab::PinnedBuffer<float> a(n), b(n), c(n);
    explicit_case(a.data(), b.data(), c.data(), "explicit cudaMemcpy, pinned");
  }
  {
    std::vector<float> a(n), b(n), c(n);
    explicit_case(a.data(), b.data(), c.data(), "explicit cudaMemcpy, pageable");
  }
  return report;
}

}  // namespace transfers
