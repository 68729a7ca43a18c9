#pragma once
// The hello lab's options and sections: the first kernel, the index tables of a launch, the
// notes' vecAdd with the raw runtime API, the cost of a launch, and the deliberate mistakes.
#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_facts.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "hello.hpp"
#include "reference.hpp"

namespace hello {

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::string break_kind;
  int n = 10000;
  int launches = 10000;
};

// ---- the sections of the lab, in the order they print ------------------------------------

inline void first_kernel(cudalab::Report& report, bool json) {
  report.heading("The first kernel: hello_kernel<<<2, 64>>> (2 blocks x 2 warps)");
  if (json) {
    report.note("  (the kernel's printf lines are left out with --json)");
  } else {
    std::fflush(stdout);
    CUDA_CHECK(hello::launch_hello(2, 64));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the kernel ends in microseconds
    std::printf("CPU: 50 ms after the launch, before any wait: no GPU line yet, they wait in a buffer\n");
    std::fflush(stdout);
    CUDA_CHECK(cudaDeviceSynchronize());  // the GPU's lines appear only now
    std::printf("CPU: after cudaDeviceSynchronize: the GPU's 128 lines are above\n");
  }
  // Run to run: the same launch shape, its warps in the order they reached an atomic counter.
  constexpr int kLaunches = 5;
  std::vector<std::string> orders;
  for (int l = 0; l < kLaunches; ++l) {
    const auto rec = hello::record_indices(dim3(2), dim3(64));
    std::vector<std::string> by_ticket(4);
    for (std::size_t i = 0; i < rec.size(); i += 32) {
      by_ticket.at(static_cast<std::size_t>(rec[i].ticket)) = fmt::format("b{}w{}", rec[i].block_x, rec[i].warp);
    }
    orders.push_back(fmt::format("{}", fmt::join(by_ticket, " ")));
  }
  report.field("warp_orders", fmt::format("order of the 4 warps, {} launches", kLaunches),
               fmt::format("{}", fmt::join(orders, " | ")));
  report.note("  Each warp's 32 lines arrive together and in lane order. Which warp and which block comes");
  report.note("  first is up to the GPU: nothing fixes it, and it may differ from one launch to the next.");
}

// Compares the GPU's records with the CPU's; smid must name an SM and the warps' tickets must be
// 0 .. warps - 1, each once. Returns whether all holds (a line on stderr for the first problem).
inline bool check_records(const std::vector<hello::ThreadIndex>& got, dim3 grid, dim3 block, int sm_count) {
  const auto want = hello::expected_indices(grid, block);
  std::set<int> tickets;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const auto& g = got[i];
    const auto& w = want[i];
    if (g.block_x != w.block_x || g.block_y != w.block_y || g.thread_x != w.thread_x || g.thread_y != w.thread_y ||
        g.linear != w.linear || g.warp != w.warp || g.lane != w.lane || g.smid < 0 || g.smid >= sm_count) {
      std::fprintf(stderr, "hello: thread %zu of the index kernel recorded the wrong indices\n", i);
      return false;
    }
    tickets.insert(g.ticket);
  }
  const int warps = static_cast<int>(grid.x * grid.y) * hello::warps_per_block(block);
  if (static_cast<int>(tickets.size()) != warps || *tickets.begin() != 0 || *tickets.rbegin() != warps - 1) {
    std::fprintf(stderr, "hello: the warps' tickets are not 0 .. %d, each once\n", warps - 1);
    return false;
  }
  return true;
}

inline bool index_tables(cudalab::Report& report, int sm_count) {
  const dim3 grid(4, 3), block(4, 2);
  report.heading("Indices of the notes' launch: gridDim (4,3), blockDim (4,2), one row per thread");
  const auto rec = hello::record_indices(grid, block);
  cudalab::Table t({{"block", "blockIdx"}, {"thread", "threadIdx"}, {"linear", "linear id"}, {"warp", "warp"},
                    {"lane", "lane"}, {"sm", "SM"}, {"ticket", "warp order"}});
  for (const auto& r : rec) {
    t.add_row({fmt::format("({},{})", r.block_x, r.block_y), fmt::format("({},{})", r.thread_x, r.thread_y), r.linear,
               r.warp, r.lane, r.smid, r.ticket});
  }
  report.table("notes_launch", t);
  bool ok = check_records(rec, grid, block, sm_count);
  std::set<int> sms;
  for (const auto& r : rec) sms.insert(r.smid);
  report.field("notes_launch_sms", "SMs the 12 blocks ran on", static_cast<long long>(sms.size()));

  const dim3 one(1), square(16, 16);
  report.heading("One 16x16 block: which threads each warp holds");
  const auto sq = hello::record_indices(one, square);
  cudalab::Table w({{"warp", "warp"}, {"threads", "threadIdx.x, threadIdx.y"}, {"ticket", "warp order"}});
  for (int warp = 0; warp < hello::warps_per_block(square); ++warp) {
    const auto& first = sq[static_cast<std::size_t>(warp) * 32];
    const auto& last = sq[static_cast<std::size_t>(warp) * 32 + 31];
    w.add_row({warp, fmt::format("x 0..15, y {}..{}", first.thread_y, last.thread_y), first.ticket});
  }
  report.table("block_16x16", w);
  ok = check_records(sq, one, square, sm_count) && ok;
  report.note("  Warp 0 of a 16x16 block is rows y = 0 and 1: threads are numbered x first, then y, and");
  report.note("  every 32 consecutive numbers form a warp.");
  return ok;
}

inline bool raw_vec_add(cudalab::Report& report, int n) {
  report.heading(fmt::format("The notes' vecAdd with the raw runtime API: int, N = {}, B[i] = i * i", n));
  const std::vector<int> a = hello::notes_a(n), b = hello::notes_b(n);
  std::vector<int> c(static_cast<std::size_t>(n), -1);
  CUDA_CHECK(hello::vec_add_raw(a.data(), b.data(), c.data(), n));
  long long wrong = 0;
  int first = -1;
  for (int i = 0; i < n; ++i) {
    if (c[static_cast<std::size_t>(i)] != a[static_cast<std::size_t>(i)] + b[static_cast<std::size_t>(i)]) {
      if (first < 0) first = i;
      ++wrong;
    }
  }
  report.field("vec_add_blocks", "blocks of 256", (n + 255) / 256);
  if (wrong) {
    std::fprintf(stderr, "hello: vecAdd is wrong at %lld of %d elements, first at %d: %d, expected %d\n", wrong, n,
                 first, c[static_cast<std::size_t>(first)], a[static_cast<std::size_t>(first)] + b[static_cast<std::size_t>(first)]);
  }
  report.field("vec_add_check", "C = A + B", wrong ? fmt::format("{} of {} wrong", wrong, n)
                                                   : fmt::format("all {} elements match", n));
  return wrong == 0;
}

inline void launch_cost(cudalab::Report& report, int count) {
  report.heading(fmt::format("What a launch costs: an empty kernel<<<1, 1>>>, {} times", count));
  const hello::LaunchCost c = hello::measure_launch_cost(count);
  report.field("queued_us", "back to back, one wait at the end", Value(c.queued_us, 2), "us per launch");
  report.field("synced_us", "each launch followed by cudaDeviceSynchronize", Value(c.synced_us, 2), "us per launch");
  report.field("host_call_us", "host timer around the launch call alone", Value(c.host_call_us, 2),
               "us (the kernel has not run yet)");
}

inline int run_break(cudalab::Report& report, const Options& o, hello::Break kind) {
  report.heading(fmt::format("--break {}: {}", hello::break_name(kind), hello::break_summary(kind)));
  const auto out = hello::run_break(kind, hello::notes_a(o.n), hello::notes_b(o.n));
  report.field("launch_error", "cudaGetLastError after the launch", cudaGetErrorName(out.launch_error));
  report.field("sync_error", "cudaDeviceSynchronize", cudaGetErrorName(out.sync_error));
  const bool race = kind == hello::Break::kRace || kind == hello::Break::kDivergentBarrier;
  report.field("wrong", race ? "block sums of C that differ from the CPU's" : "elements of C that differ from A + B",
               out.wrong, fmt::format("of {}", out.checked));
  if (kind == hello::Break::kMissingSync) {
    report.field("wrong_after_sync", "the same, after cudaDeviceSynchronize", out.wrong_after_sync);
  }
  if (kind == hello::Break::kHostPointer) {
    report.field("pageable_access", "the GPU reads pageable host memory (cudaDevAttrPageableMemoryAccess)",
                 out.pageable_access);
  }
  if (out.launch_error != cudaSuccess) {
    std::fprintf(stderr, "hello: the launch failed: %s (seen only through cudaGetLastError)\n",
                 cudaGetErrorString(out.launch_error));
    return cudalab::kExitCudaError;
  }
  if (out.sync_error != cudaSuccess) {
    std::fprintf(stderr, "hello: the kernel failed: %s (seen at cudaDeviceSynchronize: it read the host's pointers)\n",
                 cudaGetErrorString(out.sync_error));
    return cudalab::kExitCudaError;
  }
  if (kind == hello::Break::kHostPointer && out.wrong == 0) {
    std::fprintf(stderr, "hello: this GPU read the host's pageable memory through HMM; on one without "
                         "cudaDevAttrPageableMemoryAccess the same code is an illegal address\n");
    return cudalab::kExitSuccess;
  }
  if (kind == hello::Break::kRace && out.wrong) {
    std::fprintf(stderr, "hello: %lld of %lld block sums are wrong: a __syncthreads() is missing "
                         "(compute-sanitizer --tool racecheck names the line)\n", out.wrong, out.checked);
    return cudalab::kExitWrongResult;
  }
  if (kind == hello::Break::kDivergentBarrier) {
    if (out.wrong) {
      std::fprintf(stderr, "hello: %lld of %lld block sums are wrong: a __syncthreads() inside a branch "
                           "(compute-sanitizer --tool synccheck names the line)\n", out.wrong, out.checked);
      return cudalab::kExitWrongResult;
    }
    std::fprintf(stderr, "hello: the block sums are right on this GPU, but a __syncthreads() inside a branch is undefined "
                         "(another GPU, driver or compiler may hang or sum wrongly): compute-sanitizer --tool synccheck names the line\n");
    return cudalab::kExitSuccess;
  }
  if (kind == hello::Break::kOutOfBounds) {
    report.note("  Nothing reported: run it under compute-sanitizer --tool memcheck.");
  }
  if (out.wrong) {
    std::fprintf(stderr, "hello: C differs from A + B at %lld of %d elements%s\n", out.wrong, o.n,
                 kind == hello::Break::kMissingSync ? " when read before cudaDeviceSynchronize" : "");
    return cudalab::kExitWrongResult;
  }
  return cudalab::kExitSuccess;
}

}  // namespace hello
