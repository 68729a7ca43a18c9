// transpose: out = in^T, from the naive kernel to shared-memory tiles without bank conflicts,
// every variant checked against the CPU; and a one-warp microbenchmark of shared memory's banks.
//   ./labs/transpose                   8192 x 8192 floats, every variant, then the banks
//   ./labs/transpose 4097 5            any shape (rows cols); odd sizes too
//   ./labs/transpose --variant padded --json
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "common/variants.hpp"
#include "problem.hpp"
#include "reference.hpp"
#include "transpose.hpp"

namespace {

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::string variant = "all";
  std::int64_t rows = 8192, cols = 8192;
  int accesses = 4096;
};

int banks(cudalab::Report& report, const Options& o) {
  report.heading("What a tile's column read costs, predicted: lane t reads row t of one column");
  cudalab::Table tiles({{"tile", "tile"}, {"degree", "conflict degree"}});
  tiles.add_row({"float tile[32][32]", transpose::tile_column_degree(32, false, 0)});
  tiles.add_row({"float tile[32][33]", transpose::tile_column_degree(33, false, 0)});
  tiles.add_row({"float tile[32][32], column XOR row", transpose::tile_column_degree(32, true, 0)});
  report.table("tile_columns", tiles);

  report.heading(fmt::format("Shared-memory banks: one warp, {} dependent loads per lane, cycles per access", o.accesses));
  std::vector<transpose::BankCase> cases;
  for (int s : {1, 2, 4, 8, 16, 32, 33}) cases.push_back({transpose::BankPattern::kStride, s});
  cases.push_back({transpose::BankPattern::kBytes, 1});
  cases.push_back({transpose::BankPattern::kBroadcast, 0});
  cudalab::Table t({{"case", "case"}, {"degree", "predicted degree"}, {"cycles", "cycles/access"},
                    {"vs_stride1", "x stride 1"}, {"per_pass", "cycles per extra pass"}, {"correct", "ok"}});
  double base = 0;
  bool ok = true;
  for (const auto& c : cases) {
    const int degree = transpose::predicted_degree(c);
    const double cycles = transpose::bank_cycles(c, o.accesses);
    const bool fine = cycles > 0;
    if (!fine) std::fprintf(stderr, "transpose: the bank chain of %s went astray\n", transpose::bank_case_name(c).c_str());
    ok = ok && fine;
    if (base == 0) base = cycles;
    t.add_row({transpose::bank_case_name(c), degree, Value(cycles, 1), Value(cycles / base, 2),
               degree > 1 ? Value((cycles - base) / (degree - 1), 1) : Value(), cudalab::correct_cell(fine)});
  }
  report.table("banks", t);
  return ok ? cudalab::kExitSuccess : cudalab::kExitWrongResult;
}

int run(int argc, char** argv) {
  Options o;
  cudalab::Cli cli("transpose", "out = in^T: a naive kernel, shared tiles, padding and swizzling; shared-memory banks.");
  cli.variant_option(o.variant, transpose::variant_names(),
                     cudalab::names_of(transpose::all_variants(), transpose::variant_summary));
  cli.positional("ROWS", o.rows, "rows of the input matrix", 1, 1 << 20);
  cli.positional("COLS", o.cols, "columns of the input matrix (default: ROWS)", 1, 1 << 20);
  cli.option("--accesses", o.accesses, "dependent loads per lane in the bank benchmark", 16, 1 << 20);
  cli.add_common(o.common, cudalab::CommonSet::kNoSeed);  // fixed inputs: no --seed
  cli.footer("Examples:\n  transpose\n  transpose 4097 5\n  transpose 8192 --variant padded --json");
  if (auto code = cli.parse(argc, argv)) return *code;
  if (cli.given("ROWS") && !cli.given("COLS")) o.cols = o.rows;
  if (o.rows * o.cols > (std::int64_t{1} << 31)) {
    throw cudalab::UsageError(fmt::format("{} x {} is more than 2^31 elements", o.rows, o.cols));
  }

  const double bytes = static_cast<double>(o.rows * o.cols) * sizeof(float);
  const std::string what = fmt::format("{} x {} floats", o.rows, o.cols);
  cudalab::LabRun run("transpose", o.common, "float");  // the block of each variant: its launch row
  cudalab::require_device_memory(3.0 * bytes, what);   // in, its base (fresh inputs), out
  cudalab::require_host_memory(4.0 * bytes, what);     // the input, its answer, the scaled answer, the GPU's
  run.report().dims("shape", "input (rows x cols)", {{"rows", o.rows}, {"cols", o.cols}});
  run.yardsticks();
  transpose::Problem p(static_cast<int>(o.rows), static_cast<int>(o.cols), cudalab::Replays::kCaught);
  run.report().heading("Launch configuration");
  run.report().table("launch", p.launches(o.variant));
  const int a = run.ladder(p.rungs(o.variant));
  const int b = banks(run.report(), o);
  return a != cudalab::kExitSuccess ? a : b;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("transpose", [&] { return run(argc, argv); });
}
