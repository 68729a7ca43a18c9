// occupancy: the occupancy calculator next to the CUDA runtime's, and what occupancy buys.
//   ./labs/occupancy                                   the whole lab on the local GPU
//   ./labs/occupancy --threads 128 --regs 168 --smem 64K --arch sm_90   what-if, no GPU needed
//   ./labs/occupancy --threads 256 --regs 40 --device 0                  what-if for the local GPU
#include <string>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "sections.hpp"

namespace {

using namespace occupancy_lab;  // the lab's options and sections (sections.hpp)

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("occupancy", "Occupancy: a calculator checked against CUDA's, and what occupancy buys a kernel.");
  cli.option("--threads", o.threads, "what-if: threads per block", 1, 1024);
  cli.option("--regs", o.regs, "what-if: registers per thread", 0, 255);
  cli.option("--smem", o.smem, "what-if: shared memory per block in bytes (64K = 65536)", 0, std::int64_t{1} << 20);
  std::vector<std::string> archs = cudalab::occupancy::known_archs();
  cli.option("--stream-n", o.stream_n, "floats in the bandwidth-vs-occupancy runs (a multiple of 4)", 1024,
             std::int64_t{1} << 30);
  cli.option("--launches", o.launches, "kernels in the launch-overhead section (one by one, then as a CUDA graph)", 10,
             100000);
  cli.option("--arch", o.arch, "what-if for this architecture instead of the local GPU (sm_75 ... sm_120)");
  cli.add_common(o.common, cudalab::CommonSet::kNoSeed);  // fixed inputs: no --seed
  cli.footer("Examples:\n  occupancy\n  occupancy --threads 128 --regs 168 --smem 64K --arch sm_90\n"
             "  occupancy --threads 256 --regs 40 --device 0");
  if (auto code = cli.parse(argc, argv)) return *code;

  const bool what_if = cli.given("--threads");
  if (!what_if && (cli.given("--regs") || cli.given("--smem") || cli.given("--arch"))) {
    throw cudalab::UsageError("--regs, --smem and --arch describe a what-if kernel: give --threads too");
  }
  if (o.stream_n % 4 != 0) throw cudalab::UsageError("--stream-n must be a multiple of 4");
  if (what_if && !o.arch.empty()) {
    if (o.common.device_given) throw cudalab::UsageError("give either --arch or --device, not both");
    const auto spec = occupancy_lab::parse_arch(o.arch);
    if (!spec) {
      std::string known;
      for (const auto& a : archs) known += (known.empty() ? "" : ", ") + a;
      throw cudalab::UsageError(fmt::format("unknown architecture '{}'; known: {}", o.arch, known));
    }
    return run_what_if(o, *spec);
  }

  if (what_if) {
    cudalab::select_device(o.common.device);
    return run_what_if(o, occ::spec_from_device(cudalab::query_device(o.common.device)));
  }

  cudalab::LabRun run("occupancy", o.common, "float");
  const occ::GpuSpec g = occ::spec_from_device(run.facts());
  cudalab::Report& report = run.report();
  report.field("arch", "architecture", g.arch);
  report.field("sm_count", "SMs", run.facts().sm_count);
  report.field("max_warps_per_sm", "max warps per SM", g.max_threads_per_sm / g.warp_size);
  report.field("max_blocks_per_sm", "max blocks per SM", g.max_blocks_per_sm);
  int agree = 0, total = 0;
  notes_program(report, g, agree, total);
  runtime_sweep(report, g, agree, total);
  report.field("api_agreement", "calculator = CUDA runtime", fmt::format("{} of {} configurations", agree, total));
  launch_bounds(report, g);

  run.yardsticks();
  const bool streamed = bandwidth_vs_occupancy(run, g, static_cast<std::size_t>(o.stream_n));
  const bool tail = tail_effect(report, run.facts(), run.bench());
  const bool launches = launch_overhead(report, run.bench(), o.launches);
  return agree == total && streamed && tail && launches ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("occupancy", [&] { return run(argc, argv); });
}
