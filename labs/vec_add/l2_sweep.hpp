#pragma once
// vec_add's L2 section (--l2-sweep): not a ladder, one variant over working sets of growing size.
#include <algorithm>
#include <cstddef>

#include <fmt/format.h>

#include "common/bandwidth.hpp"
#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/report.hpp"
#include "common/timer.hpp"
#include "problem.hpp"
#include "reference.hpp"

namespace vec_add {

// How big the L2 really is for a stream: the vectorized kernel over working sets (a + b + c) of
// 6 .. 384 MB, nothing flushed, 50 launches back to back between two events (a lone launch of a
// few microseconds would time the launch, not the data). While the working set stays in L2 the
// rate beats the DRAM copy ceiling; past the L2's effective size it falls to DRAM speed.
inline int l2_sweep(cudalab::LabRun& run, const cudalab::CommonOptions& common, int block) {
  using cudalab::Value;
  constexpr int kBatch = 50;
  const double copy_gbps = run.yardsticks().copy_gbps;
  cudalab::Report& report = run.report();
  report.field("l2_mb", "L2 size (device attribute)", Value(static_cast<double>(run.facts().l2_bytes) / 1e6, 1),
               "MB");
  cudalab::Table t({{"working_set_mb", "working set MB"}, {"n", "N"}, {"launch_us", "us per launch"}, {"gbps", "GB/s"},
                    {"over_copy", "x copy"}, {"correct", "ok"}});
  bool all_ok = true;
  for (std::size_t mb : {6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 72, 96, 192, 384}) {
    if (static_cast<double>(mb) * 1e6 > cudalab::usable_device_memory()) break;  // the labs' one memory cap
    const std::size_t n = mb * 1000000 / 12 / 1024 * 1024;
    const Problem<float> p = make_problem<float>(n, common.seed);
    DeviceProblem<float> dev(p, cudalab::Replays::kNotChecked);
    const Plan plan = make_plan(Variant::kVectorized, n, block);
    cudalab::Rung rung = dev.rung(plan);
    rung.poison();
    rung.launch();
    const bool ok = rung.check();
    all_ok = all_ok && ok;
    cudalab::Benchmarker batches({common.warmup, std::max(3, common.repeat / 4), false});
    const cudalab::Timing batch = batches.run([&] {
      for (int k = 0; k < kBatch; ++k) rung.launch();
    });
    const double ms = batch.median_ms / kBatch;
    const double g = cudalab::gbps(rung.bytes, ms);
    t.add_row({Value(rung.bytes / 1e6, 1), static_cast<long long>(n), Value(ms * 1e3, 2), Value(g, 0),
               Value(g / copy_gbps, 2), cudalab::correct_cell(ok)});
  }
  report.heading(fmt::format("vectorized over working sets, L2 not flushed ({} launches back to back per sample)", kBatch));
  report.table("l2_sweep", t);
  return all_ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace vec_add
