// roofline: the notes' performance model, measured on the GPU in hand.
//   ./labs/roofline                  the roofs, the intensity dial in FP32 and FP64, instruction
//                                    throughput, and the notes' RMSNorm (BF16, 4096 x 8192)
//   ./labs/roofline 2^24 --max-k 256 a smaller, faster run
//   ./labs/roofline --precision fp64 the dial in double only
#include <string>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "sections.hpp"

namespace {

using namespace roofline;  // the lab's options and sections (sections.hpp)

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("roofline", "The roofline model measured: an intensity dial, FP32 vs FP64, instruction throughput, RMSNorm.");
  cli.positional("N", o.n, "elements of the dial (e.g. 2^26)", 1024, std::int64_t{1} << 28);
  cli.option("--max-k", o.max_k, "largest FMA count of the dial (a power of two)", 1, 2048);
  cli.option("--precision", o.precision, "the dial's type", {"both", "fp32", "fp64"});
  cli.option("--rows", o.rows, "RMSNorm rows", 1, 1 << 20);
  cli.option("--cols", o.cols, "RMSNorm columns (a multiple of 256, at most 8192)", 256, 8192);
  cli.add_common(o.common, cudalab::CommonSet::kNoSeed);  // fixed inputs: no --seed
  cli.footer("Examples:\n  roofline\n  roofline 2^24 --max-k 256\n  roofline --json");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.cols % 256 != 0) throw cudalab::UsageError(fmt::format("--cols {} is not a multiple of 256", o.cols));

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  cudalab::require_device_memory(2.0 * static_cast<double>(o.n) * sizeof(double), fmt::format("N = {}", o.n));
  cudalab::Report report("roofline", o.common.json);
  report.field("device", "device", facts.name);
  cudalab::Benchmarker bench({o.common.warmup, o.common.repeat, !o.common.no_l2_flush});
  const cudalab::CopyCeiling ceiling = cudalab::measure_copy_ceiling(bench);
  Roofs roofs;
  roofs.bandwidth = ceiling.gbps * 1e9;
  const roofline::FmaPeak fp32 = roofline::fma_peak<float>(256, 8192);
  const roofline::FmaPeak fp64 = roofline::fma_peak<double>(256, 4096);
  roofs.fp32 = fp32.flops;
  roofs.fp64 = fp64.flops;
  const double lanes = facts.sm_count * cudalab::arch_lanes(facts.cc_major, facts.cc_minor).fp32 * 2.0;  // FP32 FLOP per clock
  report.heading("The roofs, measured in this run");
  report.field("copy_ceiling_gbps", "memory roof: copy ceiling", Value(ceiling.gbps, 0), "GB/s");
  report.field("peak_fp32_gflops", "FP32 roof: 8 FMA chains per thread", Value(roofs.fp32 / 1e9, 0), "GFLOP/s");
  report.field("theoretical_fp32_gflops", "FP32, theoretical (SMs x FP32 lanes x 2 x max clock)",
               Value(lanes * facts.sm_clock_khz * 1e3 / 1e9, 0), "GFLOP/s");
  report.field("fma_clock_ghz", "SM clock while the FMA kernel ran (clock64 / time)", Value(fp32.clock_hz / 1e9, 3), "GHz");
  report.field("theoretical_fp32_at_clock_gflops", "FP32, theoretical at that clock", Value(lanes * fp32.clock_hz / 1e9, 0),
               "GFLOP/s");
  report.field("peak_fp64_gflops", "FP64 roof", Value(roofs.fp64 / 1e9, 0), "GFLOP/s");
  report.field("fp64_over_fp32", "FP64 / FP32", Value(roofs.fp64 / roofs.fp32, 3));
  report.field("ridge_fp32", "ridge point FP32", Value(roofline::ridge(roofs.fp32, roofs.bandwidth), 1), "FLOP/byte");
  report.field("ridge_fp64", "ridge point FP64", Value(roofline::ridge(roofs.fp64, roofs.bandwidth), 1), "FLOP/byte");
  bool ok = true;
  // The BF16 Tensor Core roof: mma.sync (a warp's instruction, sm_80 on) and, on Hopper, wgmma
  // (a warpgroup's, sm_90a); the roof is the faster, and its ridge point follows from it.
  const roofline::TensorPeak mma = roofline::tensor_peak_bf16(256, 4096);
  if (mma.available) {
    const roofline::TensorPeak wg = roofline::tensor_peak_bf16_wgmma(4096);
    const double per_clock = facts.sm_count * static_cast<double>(cudalab::arch_lanes(facts.cc_major, facts.cc_minor).bf16_tensor_flops_per_clock);
    report.field("mma_sync_bf16_gflops", "BF16 Tensor Core, mma.sync (8 tiles per warp)", Value(mma.flops / 1e9, 0), "GFLOP/s");
    if (wg.available) {
      report.field("wgmma_bf16_gflops", "BF16 Tensor Core, wgmma m64n256k16 (2 warpgroups per SM)", Value(wg.flops / 1e9, 0),
                   "GFLOP/s");
    } else {
      report.note("  BF16 Tensor Core, wgmma: not available for this GPU (sm_90a machine code, compute capability 9.0)");
    }
    const roofline::TensorPeak& tc = wg.available && wg.flops > mma.flops ? wg : mma;
    report.field("peak_bf16_tensor_gflops", "BF16 Tensor Core roof (the faster of the two)", Value(tc.flops / 1e9, 0),
                 "GFLOP/s");
    report.field("tensor_clock_ghz", "SM clock while it ran (clock64 / time)", Value(tc.clock_hz / 1e9, 3), "GHz");
    report.field("theoretical_bf16_tensor_at_clock_gflops", "dense BF16, theoretical at that clock (SMs x FLOP/clock)",
                 per_clock > 0 ? Value(per_clock * tc.clock_hz / 1e9, 0) : Value(), per_clock > 0 ? "GFLOP/s" : "(no figure for this GPU)");
    report.field("tensor_over_theoretical", "measured / theoretical at that clock",
                 per_clock > 0 ? Value(tc.flops / (per_clock * tc.clock_hz), 3) : Value());
    report.field("ridge_bf16_tensor", "ridge point BF16 Tensor Core (the notes: about 153 on the A100)",
                 Value(roofline::ridge(tc.flops, roofs.bandwidth), 1), "FLOP/byte");
    const bool correct = mma.correct && (!wg.available || wg.correct);
    report.field("tensor_correct", "every accumulator is what its rounds add up to", correct);
    if (!correct) std::fprintf(stderr, "roofline: a Tensor Core kernel's accumulators are wrong\n");
    ok = correct;
  } else {
    report.note("  BF16 Tensor Core roof: not measured (BF16 mma needs sm_80 or later)");
  }
  // a dial row above the theoretical FP32 rate or bandwidth is suspect (FP64 is compared with its
  // bandwidth only: the device reports no FP64 rate)
  const double peak_gbps = facts.theoretical_bandwidth_gbps();
  if (o.precision != "fp64") {
    ok = dial<float>(report, o, bench, {peak_gbps, ceiling.gbps, lanes * facts.sm_clock_khz * 1e3 / 1e9}, roofs.fp32,
                     roofs.bandwidth, "dial_fp32", "The dial, FP32: load x, k FMAs, store (2k FLOP per 8 bytes)") && ok;
  }
  if (o.precision != "fp32") {
    ok = dial<double>(report, o, bench, {peak_gbps, ceiling.gbps, 0}, roofs.fp64, roofs.bandwidth, "dial_fp64",
                      "The dial, FP64: load x, k FMAs, store (2k FLOP per 16 bytes)") && ok;
  }
  ok = instructions(report, std::min<std::size_t>(static_cast<std::size_t>(o.n), std::size_t{1} << 22)) && ok;
  ok = rmsnorm(report, o, bench, ceiling.gbps, facts.theoretical_bandwidth_gbps()) && ok;
  return ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("roofline", [&] { return run(argc, argv); });
}
