#include "common/timer.hpp"

#include "common/l2_flush.hpp"

#include <algorithm>
#include <stdexcept>

namespace cudalab {

Timing summarize(std::vector<double> samples_ms) {
  Timing t;
  if (samples_ms.empty()) return t;
  t.samples_ms = samples_ms;
  std::sort(samples_ms.begin(), samples_ms.end());
  const std::size_t n = samples_ms.size();
  t.min_ms = samples_ms.front();
  t.max_ms = samples_ms.back();
  t.median_ms = (n % 2 == 1) ? samples_ms[n / 2] : 0.5 * (samples_ms[n / 2 - 1] + samples_ms[n / 2]);
  return t;
}

double gbps(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0.0; }

double percent(double part, double whole) { return whole != 0 ? 100.0 * part / whole : 0.0; }

EventTimer::EventTimer() {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
  if (start_ != nullptr) (void)cudaEventDestroy(start_);
  if (stop_ != nullptr) (void)cudaEventDestroy(stop_);
}

void EventTimer::start(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(start_, stream)); }
void EventTimer::stop(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(stop_, stream)); }

double EventTimer::elapsed_ms() {
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return static_cast<double>(ms);
}

L2Flusher::L2Flusher(std::size_t l2_bytes) : scratch_(2 * l2_bytes), sink_(l2_bytes > 0 ? 1 : 0) {
  // Written once, here; from then on the flush only reads it.
  scratch_.fill_bytes(0x5A);
}

void L2Flusher::flush(cudaStream_t stream) {
  if (scratch_.size() > 0) launch_l2_flush(scratch_.data(), scratch_.bytes(), sink_.data(), stream);
}

namespace {
std::size_t current_l2_bytes() {
  int device = 0, l2 = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  return static_cast<std::size_t>(l2);
}
}  // namespace

Benchmarker::Benchmarker(BenchmarkOptions options)
    : options_(options), flusher_(options.flush_l2 ? current_l2_bytes() : 0) {
  if (options_.warmup < 0 || options_.repeat < 1) {
    throw std::invalid_argument("Benchmarker: warmup must be >= 0 and repeat >= 1");
  }
  // GPUs before Ampere have no persisting L2: the limit is then unsupported, and nothing persists.
  if (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0) != cudaSuccess) (void)cudaGetLastError();
}

double Benchmarker::host_overhead_ms(cudaStream_t stream) {
  if (host_overhead_ms_ >= 0) return host_overhead_ms_;
  probe_ = DeviceBuffer<unsigned char>(1 << 16);
  probe_sink_ = DeviceBuffer<unsigned>(1);
  probe_.fill_bytes(0);
  double least = 1e30;
  for (int i = 0; i < 5; ++i) {
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto host_start = std::chrono::steady_clock::now();
    timer_.start(stream);
    launch_l2_flush(probe_.data(), probe_.bytes(), probe_sink_.data(), stream);
    timer_.stop(stream);
    const double event_ms = timer_.elapsed_ms();
    CUDA_CHECK(cudaDeviceSynchronize());
    const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count();
    least = std::min(least, std::max(0.0, host_ms - event_ms));
  }
  host_overhead_ms_ = least;
  return least;
}

void Benchmarker::reset_persisting_l2() {
  if (cudaCtxResetPersistingL2Cache() != cudaSuccess) (void)cudaGetLastError();
}

CopyCeiling measure_copy_ceiling(Benchmarker& bench, std::size_t max_bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  CopyCeiling c;
  c.bytes = std::min(max_bytes, free_bytes / 3);
  c.bytes -= c.bytes % 256;
  DeviceBuffer<unsigned char> src(c.bytes), dst(c.bytes);
  src.fill_bytes(1);
  c.timing = bench.run([&] {
    CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), c.bytes, cudaMemcpyDeviceToDevice));
  });
  c.gbps = gbps(2.0 * static_cast<double>(c.bytes), c.timing.median_ms);
  return c;
}

}  // namespace cudalab
