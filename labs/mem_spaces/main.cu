// mem_spaces: every CUDA memory space in one kernel, checked against a CPU model; then atomics
// on one address and an array in local memory, measured.
//   ./labs/mem_spaces                      n = 4096, 256-thread blocks
//   ./labs/mem_spaces --n 1000 --block 128
#include <string>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "sections.hpp"

namespace {

using namespace mem_spaces;  // the lab's options and sections (sections.hpp)

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("mem_spaces", "Registers, shared, constant and global memory in one kernel; atomics and local memory measured.");
  cli.option("--n", o.n, "elements of the demo", 1, mem_spaces::kMaxBlocks * 32);
  cli.option("--block", o.block, "threads per block (a multiple of 32)", 32, mem_spaces::kMaxBlock);
  cli.option("--measure-n", o.measure_n, "elements for the timed atomics, local-memory and texture runs", 1024,
             std::int64_t{1} << 28);
  cli.add_common(o.common);
  cli.footer("Examples:\n  mem_spaces\n  mem_spaces --n 1000 --block 128");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (o.block % 32 != 0) throw cudalab::UsageError(fmt::format("--block {} is not a multiple of 32", o.block));
  if ((o.n + o.block - 1) / o.block > mem_spaces::kMaxBlocks) {
    throw cudalab::UsageError(fmt::format("--n {} needs more than {} blocks of {} (the size of g_scratch)", o.n,
                                          mem_spaces::kMaxBlocks, o.block));
  }

  cudalab::LabRun run("mem_spaces", o.common, "float", o.block);
  if (o.block > run.facts().max_threads_per_block) {
    throw cudalab::UsageError(
        fmt::format("--block {} exceeds this GPU's limit of {}", o.block, run.facts().max_threads_per_block));
  }
  cudalab::Report& report = run.report();
  report.field("n", "demo elements", o.n);
  attributes_section(report);
  const bool agree = occupancy_section(report, run.facts(), o.block);
  bool ok = constant_rounds(report, o);
  ok = atomics_section(run, o) && ok;
  ok = contention_section(run, o) && ok;
  ok = constant_reads_section(run, o) && ok;
  ok = local_memory_section(run, o) && ok;
  ok = texture_section(run, o) && ok;
  return ok && agree ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("mem_spaces", [&] { return run(argc, argv); });
}
