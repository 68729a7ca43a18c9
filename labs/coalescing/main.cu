// coalescing: what an access pattern costs in global memory, one change at a time, every result
// checked against the CPU.
//   ./labs/coalescing                 stride, offset, layout and 2D mapping at N = 2^24
//   ./labs/coalescing 2^22 --section stride
//   ./labs/coalescing --section offset --offset 3     one offset against offset 0
#include <string>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "sections.hpp"

namespace {

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 24;
  std::string section = "all";
  int stride = 0;   // 0: the sweep 1, 2, 4, ..., 32
  int offset = -1;  // -1: the sweep 0 .. 32
};

bool wants(const Options& o, const char* s) { return o.section == "all" || o.section == s; }

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("coalescing", "What an access pattern costs: stride, offset, array of structs, 2D mapping.");
  cli.positional("N", o.n, "elements per experiment (e.g. 2^24)", 4096, std::int64_t{1} << 26);
  cli.option("--section", o.section, "run one part only", {"all", "stride", "offset", "layout", "mapping"});
  cli.option("--stride", o.stride, "one stride instead of the sweep 1, 2, 4, ..., 32", 1, 32);
  cli.option("--offset", o.offset, "one offset (in floats) instead of the sweep 0 .. 32", 0, 32);
  cli.add_common(o.common, cudalab::CommonSet::kNoSeed);  // fixed inputs: no --seed
  cli.footer("Examples:\n  coalescing\n  coalescing 2^22 --section stride\n  coalescing --section stride --stride 3\n  coalescing --json");
  if (auto code = cli.parse(argc, argv)) return *code;

  const double n = static_cast<double>(o.n);
  cudalab::LabRun run("coalescing", o.common, "float", 256);
  cudalab::require_device_memory((wants(o, "stride") ? 33.0 : 4.0) * n * sizeof(float), fmt::format("N = {}", o.n));
  cudalab::require_host_memory((wants(o, "stride") ? 40.0 : 8.0) * n * sizeof(float), fmt::format("N = {}", o.n));
  run.yardsticks();
  const auto elements = static_cast<std::size_t>(o.n);
  if (wants(o, "stride")) coalescing::stride_section(run, elements, o.stride);
  if (wants(o, "offset")) coalescing::offset_section(run, elements, o.offset);
  if (wants(o, "layout")) coalescing::layout_section(run, elements);
  if (wants(o, "mapping")) coalescing::mapping_section(run, elements);
  return run.exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("coalescing", [&] { return run(argc, argv); });
}
