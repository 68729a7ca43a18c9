// device_query: print the facts of every CUDA device (or the one --device names).
//   ./labs/device_query            all devices, as text
//   ./labs/device_query --device 0 --json
#include <cuda_runtime_api.h>

#include <string>

#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/device_facts.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "device_query.hpp"

namespace {

int run(int argc, char** argv) {
  cudalab::CommonOptions common;
  cudalab::Cli cli("device_query", "Prints the facts of each CUDA device and the numbers derived from them.");
  cli.add_common(common, cudalab::CommonSet::kDeviceAndJson);
  cli.footer("Without --device every device is listed.");
  if (auto code = cli.parse(argc, argv)) return *code;

  std::string why;
  const int count = cudalab::usable_device_count(&why);
  if (count == 0) throw cudalab::NoDeviceError(why);

  int first = 0, last = count - 1;
  if (common.device_given) {
    cudalab::select_device(common.device);  // validates the ordinal
    first = last = common.device;
  }

  cudalab::Report report("device_query", common.json);
  report.field("device_count", "CUDA devices found", count);
  int runtime = 0, driver = 0;
  CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  CUDA_CHECK(cudaDriverGetVersion(&driver));
  report.field("runtime_version", "CUDA runtime", runtime);
  report.field("driver_version", "CUDA driver (max supported)", driver);
  for (int d = first; d <= last; ++d) device_query::report_device(report, cudalab::query_device(d));
  report.finish();
  return cudalab::kExitSuccess;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("device_query", [&] { return run(argc, argv); });
}
