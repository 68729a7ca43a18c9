// hello: the first kernel, the index arithmetic of a launch, the notes' vecAdd written with the
// raw runtime API, the cost of a launch, and how mistakes surface.
//   ./labs/hello                       every section, N = 10000 (the notes' vecAdd)
//   ./labs/hello --break oob           one deliberate mistake (too_many_threads, oob, swapped_copy,
//                                      missing_sync) and what the host sees of it
#include <string>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "sections.hpp"

namespace {

using namespace hello;  // the lab's options and sections (sections.hpp)

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("hello", "The first kernel, its indices, vecAdd with the raw runtime API, and how mistakes surface.");
  cli.option("--break", o.break_kind, "run one deliberate mistake and show how it surfaces", hello::break_names());
  cli.option("--n", o.n, "elements of vecAdd (B[i] = i * i must fit an int)", 1, 46340);
  cli.option("--launches", o.launches, "empty-kernel launches timed per measurement", 100, 1000000);
  cli.add_common(o.common, cudalab::CommonSet::kDeviceAndJson);
  cli.footer("Examples:\n  hello\n  hello --break too_many_threads\n  hello --break oob   "
             "(then: compute-sanitizer --tool memcheck ./labs/hello --break oob)");
  if (auto code = cli.parse(argc, argv)) return *code;

  cudalab::select_device(o.common.device);
  const cudalab::DeviceFacts facts = cudalab::query_device(o.common.device);
  cudalab::Report report("hello", o.common.json);
  report.field("device", "device", facts.name);
  report.field("sm_count", "SMs", facts.sm_count);
  hello::Break kind;
  if (!o.break_kind.empty() && hello::parse_break(o.break_kind, &kind)) return run_break(report, o, kind);

  first_kernel(report, o.common.json);
  bool ok = index_tables(report, facts.sm_count);
  ok = raw_vec_add(report, o.n) && ok;
  launch_cost(report, o.launches);
  return ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("hello", [&] { return run(argc, argv); });
}
