// transfers: the road between host and device.
//   ./labs/transfers                 the link, copy bandwidth, overlap over streams, unified memory,
//                                    and when the GPU pays end to end (N = 2^28 floats)
//   ./labs/transfers --sweep         copy bandwidth from 4 KiB to 1 GiB, for the plot
//   ./labs/transfers --section overlap --streams 4 --chunks 32 --timeline
#include <string>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "sections.hpp"

namespace {

using namespace transfers;  // the lab's options and sections (sections.hpp)

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("transfers", "The road between host and device: copies, overlap over streams, unified memory.");
  cli.positional("N", o.n, "floats per array for overlap, unified memory and the crossover (e.g. 2^28)", 1,
                 std::int64_t{1} << 34);
  cli.option("--streams", o.streams, "streams for the overlap (default: 1, 2, 4 and 8)", 1, 64);
  cli.option("--chunks", o.chunks, "chunks the arrays are cut into for the overlap", 1, 4096);
  cli.option("--max-copy", o.max_copy, "largest copy of the copy table (--sweep: 1G)", 4096, std::int64_t{1} << 30);
  cli.option("--section", o.section, "run one part only", {"all", "link", "copy", "overlap", "unified", "crossover"});
  cli.flag("--sweep", o.sweep, "copy bandwidth from 4 KiB to 1 GiB in steps of 2 (the plot's curve)");
  cli.flag("--timeline", o.timeline, "print the overlap's timeline (always in --json)");
  cli.add_common(o.common, cudalab::CommonSet::kNoSeed);  // fixed inputs: no --seed
  cli.footer("Examples:\n  transfers\n  transfers --sweep --json\n  transfers 2^26 --section overlap --streams 4 --timeline");
  if (auto code = cli.parse(argc, argv)) return *code;
  const std::size_t n = static_cast<std::size_t>(o.n);
  if (o.sweep && o.section != "all" && o.section != "copy") {
    throw cudalab::UsageError("--sweep is the copy section's curve: it does not go with --section " + o.section);
  }
  if (cli.given("--chunks") && static_cast<std::size_t>(o.chunks) > n) {
    throw cudalab::UsageError(fmt::format("more chunks ({}) than elements ({})", o.chunks, n));
  }
  const int chunks = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(o.chunks), n));
  if (o.streams > chunks) {
    throw cudalab::UsageError(fmt::format("more streams ({}) than chunks ({}): a stream would have nothing to do",
                                          o.streams, chunks));
  }
  std::vector<int> stream_counts;
  for (int s : {1, 2, 4, 8}) {
    if (o.streams == 0 ? s <= chunks : s == o.streams) stream_counts.push_back(s);
  }
  if (o.streams != 0 && stream_counts.empty()) stream_counts.push_back(o.streams);

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  const cudalab::PcieLink link = cudalab::query_pcie_link(o.common.device);
  const bool pipeline = !o.sweep && (wants(o, "overlap") || wants(o, "crossover"));
  const bool unified = !o.sweep && wants(o, "unified");
  const double um = static_cast<double>(std::min(n, kUnifiedMax)), nf = static_cast<double>(n);
  // device: the pipeline's a, b, c; unified memory's managed a, b, c and explicit a, b, c
  const double device_floats = (pipeline ? 3 * nf : 0) + (unified ? 6 * um : 0);
  // host: pinned a, b, c; the crossover's pageable a, b, c and the CPU's c; unified memory's
  // managed (on the host at times), pinned and pageable a, b, c
  const double host_floats = (pipeline ? 3 * nf : 0) + (!o.sweep && wants(o, "crossover") ? 4 * nf : 0) + (unified ? 9 * um : 0);
  const std::string what = fmt::format("N = {}", n);
  cudalab::require_device_memory(device_floats * sizeof(float), what);
  cudalab::require_host_memory(host_floats * sizeof(float), what);

  cudalab::Report report("transfers", o.common.json);
  report.field("device", "device", facts.name);
  report_link(report, facts, link);
  if (o.section == "link") return cudalab::kExitSuccess;
  int code = cudalab::kExitSuccess;
  const auto keep = [&](int c) { code = code == cudalab::kExitSuccess ? c : code; };
  if (o.sweep) {
    return copy_section(report, o, link, cli.given("--max-copy") ? static_cast<std::size_t>(o.max_copy) : std::size_t{1} << 30, 2);
  }
  if (wants(o, "copy")) {
    keep(copy_section(report, o, link, static_cast<std::size_t>(o.max_copy), 16));
  }
  std::optional<transfers::PipelineBuffers> buffers;
  if (pipeline) buffers.emplace(n, transfers::kInputSeed);
  if (wants(o, "overlap")) keep(overlap_section(report, o, *buffers, stream_counts, chunks));
  if (wants(o, "unified")) keep(unified_section(report, o, std::min(n, kUnifiedMax)));
  if (wants(o, "crossover")) keep(crossover_section(report, o, *buffers));
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("transfers", [&] { return run(argc, argv); });
}
