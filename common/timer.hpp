#pragma once
// Benchmark timing with CUDA events: warm-up launches, an L2 flush before every timed
// repetition (so a buffer that fits in L2 - the H200's holds about 45 MB of a stream, see
// vec_add --l2-sweep - is not measured from cache), N repetitions, and min / median / max.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"

namespace cudalab {

struct BenchmarkOptions {
  int warmup = 3;         // untimed launches first (module load, clocks ramping up, TLB)
  int repeat = 20;        // timed launches; the median is the headline number
  bool flush_l2 = true;   // evict L2 before each timed launch
};

struct Timing {
  std::vector<double> samples_ms;
  double min_ms = 0, median_ms = 0, max_ms = 0;
  // The host's clock around each timed repetition, from its start event to a device-wide
  // synchronise after its stop event: work the events did not wait for (another stream's) shows
  // here and not in samples_ms.
  std::vector<double> host_samples_ms{};
  double host_median_ms = 0, host_min_ms = 0;
  // What the host's clock adds to an honest launch here (launch, events, synchronise; far more
  // under compute-sanitizer): measured by the Benchmarker on a small kernel of its own.
  double host_overhead_ms = 0;
  // Even the host's shortest repetition was much longer than the events' longest plus what the
  // host adds anyway: the timed launch left work on another stream. (The minimum: a busy host
  // only ever adds time, so one undisturbed repetition clears an honest kernel, while hidden
  // work is in every one.)
  // With Benchmarker::run's after_each: the first timed repetition whose result was wrong (-1:
  // every one was right, or none was checked).
  int first_wrong_rep = -1;
  bool work_outside_the_timed_stream() const {
    return !host_samples_ms.empty() && host_min_ms > 2.0 * (max_ms + host_overhead_ms) + kHostSlackMs;
  }
  static constexpr double kHostSlackMs = 0.1;
};

// min / median / max of the samples (median of an even count: mean of the middle two).
Timing summarize(std::vector<double> samples_ms);

// Throughput helpers. GB/s is 1e9 bytes per second, as bandwidths are quoted by vendors.
double gbps(double bytes, double ms);
double percent(double part, double whole);

// A start/stop pair of CUDA events on one stream.
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(cudaStream_t stream = nullptr);
  void stop(cudaStream_t stream = nullptr);
  double elapsed_ms();  // waits for the stop event

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Reads a buffer twice the L2's size, which evicts whatever the timed kernel would find
// there and leaves only clean lines behind (see l2_flush.cu).
class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  void flush(cudaStream_t stream = nullptr);

 private:
  DeviceBuffer<unsigned char> scratch_;
  DeviceBuffer<unsigned> sink_;
};

class Benchmarker {
 public:
  // Sizes the L2 flush for the current device.
  explicit Benchmarker(BenchmarkOptions options);
  const BenchmarkOptions& options() const { return options_; }

  // Runs `launch()` (which enqueues work on `stream`) warmup + repeat times and times each
  // repetition with events, and with the host's clock up to a device-wide synchronise (Timing::
  // host_samples_ms). `before_last`, when given, runs before the last timed repetition, outside
  // the timing (the driver poisons the output there, so the check after timing sees what the
  // last timed launch wrote). Persisting L2 lines are reset before timing. Launch errors
  // surface as CudaError.
  // `before_each(i)`, when given, runs before timed repetition i, outside the timing (the driver
  // gives each repetition inputs the previous one did not see there: InputSets in ladder.hpp).
  // `after_each(i)`, when given, checks what repetition i wrote, after it and outside the timing;
  // the first repetition it finds wrong is Timing::first_wrong_rep.
  template <typename Launch>
  Timing run(Launch&& launch, cudaStream_t stream = nullptr, const std::function<void()>& before_last = {},
             const std::function<void(int)>& before_each = {}, const std::function<bool(int)>& after_each = {}) {
    reset_persisting_l2();
    for (int i = 0; i < options_.warmup; ++i) launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<double> samples, host;
    samples.reserve(static_cast<std::size_t>(options_.repeat));
    host.reserve(static_cast<std::size_t>(options_.repeat));
    const double overhead_ms = host_overhead_ms(stream);
    int first_wrong = -1;
    for (int i = 0; i < options_.repeat; ++i) {
      if (before_each) before_each(i);
      if (before_last && i + 1 == options_.repeat) before_last();
      if (before_each || before_last) CUDA_CHECK(cudaDeviceSynchronize());  // their copies are not timed
      // The launch is queued behind the flush with no synchronise between (else the start event
      // would be stamped on an idle GPU and the time would include the launch's latency); the
      // host's clock starts before the flush, and the flush's own time (its events) comes off.
      const auto host_start = std::chrono::steady_clock::now();
      flush_timer_.start(stream);
      if (options_.flush_l2) flusher_.flush(stream);
      flush_timer_.stop(stream);
      timer_.start(stream);
      launch();
      timer_.stop(stream);
      samples.push_back(timer_.elapsed_ms());
      const double flush_ms = flush_timer_.elapsed_ms();
      CUDA_CHECK(cudaDeviceSynchronize());
      host.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count() -
                     flush_ms);
      if (after_each && !after_each(i) && first_wrong < 0) first_wrong = i;
    }
    Timing t = summarize(std::move(samples));
    t.first_wrong_rep = first_wrong;
    t.host_samples_ms = host;
    const Timing h = summarize(std::move(host));
    t.host_median_ms = h.median_ms;
    t.host_min_ms = h.min_ms;
    t.host_overhead_ms = overhead_ms;
    return t;
  }

 private:
  // No persisting L2 lines (cudaLimitPersistingL2CacheSize 0, reset before each run): a kernel's
  // access policy could otherwise keep its inputs in L2 across the flush.
  static void reset_persisting_l2();
  // The host's time for a small honest launch less its events' time, the least of a few
  // (measured once per Benchmarker, on the first run).
  double host_overhead_ms(cudaStream_t stream);
  double host_overhead_ms_ = -1;
  DeviceBuffer<unsigned char> probe_;
  DeviceBuffer<unsigned> probe_sink_;

  BenchmarkOptions options_;
  L2Flusher flusher_;
  EventTimer timer_, flush_timer_;
};

// The copy ceiling: a large device-to-device cudaMemcpy, counting bytes read + written.
// A bandwidth-bound kernel is judged against this, measured in the same process, as well
// as against the theoretical peak.
struct CopyCeiling {
  std::size_t bytes = 0;  // size of the copy (each direction)
  Timing timing;
  double gbps = 0;        // 2 * bytes / median time
};

// Copies min(max_bytes, a third of free memory) bytes; 1 GiB by default.
CopyCeiling measure_copy_ceiling(Benchmarker& bench, std::size_t max_bytes = std::size_t{1} << 30);

}  // namespace cudalab
