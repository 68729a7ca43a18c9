// coalescing: what an access pattern costs in global memory, one change at a time, every result
// checked against the CPU.
//   ./labs/coalescing                 stride, offset, layout and 2D mapping at N = 2^24
//   ./labs/coalescing 2^22 --section stride
//   ./labs/coalescing --section offset --offset 3     one offset against offset 0
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "coalescing.hpp"
#include "common/check.hpp"
#include "common/cli.hpp"
#include "common/driver.hpp"
#include "common/device_buffer.hpp"
#include "common/lab_main.hpp"
#include "common/report.hpp"
#include "reference.hpp"

namespace {

using cudalab::Value;

struct Options {
  cudalab::CommonOptions common;
  std::int64_t n = std::int64_t{1} << 24;
  std::string section = "all";
  int stride = 0;   // 0: the sweep 1, 2, 4, ..., 32
  int offset = -1;  // -1: the sweep 0 .. 32
};

bool wants(const Options& o, const char* s) { return o.section == "all" || o.section == s; }

int stride_section(cudalab::LabRun& run, const Options& o) {
  const std::size_t n = static_cast<std::size_t>(o.n);
  const std::vector<int> strides = o.stride > 0 ? std::vector<int>{o.stride} : std::vector<int>{1, 2, 4, 8, 16, 32};
  const std::vector<float> in = coalescing::make_input(n * static_cast<std::size_t>(strides.back()));
  cudalab::DeviceBuffer<float> d_in(in), out(n);
  std::vector<std::vector<float>> expected;
  for (int s : strides) expected.push_back(coalescing::reference_stride(in, n, s));
  std::vector<cudalab::Rung> rungs;
  for (std::size_t k = 0; k < strides.size(); ++k) {
    const int s = strides[k];
    rungs.push_back(cudalab::exact_rung("coalescing", fmt::format("stride {}", s), 8.0 * static_cast<double>(n), out,
                                        expected[k], [&, s] { coalescing::launch_stride(d_in.data(), out.data(), n, s); }));
  }
  const auto cells = [&](cudalab::LadderResult& lr) {
    for (std::size_t k = 0; k < strides.size(); ++k) {
      auto& r = lr.rungs[k];
      const double moved = coalescing::stride_bytes_moved(n, strides[k]);
      r.cells = {{"stride", "stride", strides[k]},
                 {"sectors_per_request", "ld sectors/request",
                  static_cast<long long>(coalescing::sectors_per_request(0, 4 * static_cast<std::size_t>(strides[k])))},
                 {"moved_gbps", "moved GB/s",
                  r.result.correct ? Value(cudalab::gbps(moved, r.result.timing.median_ms), 0) : Value()}};
    }
  };
  return run.section({"stride",
                      fmt::format("Stride: out[i] = in[i * s], N = {} (GB/s: the useful 8 bytes per element; moved: "
                                  "whole 32-byte sectors)", n),
                      cudalab::Roofs::kCopyOnly, {false}, cells},
                     rungs);
}

int offset_section(cudalab::LabRun& run, const Options& o) {
  const std::size_t n = static_cast<std::size_t>(o.n);
  const std::vector<float> in = coalescing::make_input(n + 32);
  cudalab::DeviceBuffer<float> d_in(in), out(n);
  std::vector<int> offsets;
  for (int k = 0; k <= 32; ++k) {
    if (o.offset < 0 || k == 0 || k == o.offset) offsets.push_back(k);  // offset 0: the yardstick
  }
  std::vector<std::vector<float>> expected;
  for (int k : offsets) expected.push_back(coalescing::reference_offset(in, n, k));
  std::vector<cudalab::Rung> rungs;
  for (std::size_t j = 0; j < offsets.size(); ++j) {
    const int k = offsets[j];
    rungs.push_back(cudalab::exact_rung("coalescing", fmt::format("offset {}", k), 8.0 * static_cast<double>(n), out,
                                        expected[j], [&, k] { coalescing::launch_offset(d_in.data(), out.data(), n, k); }));
  }
  const auto cells = [&](cudalab::LadderResult& lr) {
    for (std::size_t j = 0; j < offsets.size(); ++j) {
      lr.rungs[j].cells = {{"offset", "offset", offsets[j]},
                           {"sectors_per_request", "ld sectors/request",
                            static_cast<long long>(coalescing::sectors_per_request(4 * static_cast<std::size_t>(offsets[j]), 4))}};
    }
  };
  return run.section({"offset", fmt::format("Offset: out[i] = in[i + k], N = {} (speedup: against offset 0)", n),
                      cudalab::Roofs::kCopyOnly, {false}, cells},
                     rungs);
}

int layout_section(cudalab::LabRun& run, const Options& o) {
  const std::size_t n = static_cast<std::size_t>(o.n);
  constexpr float kDt = 0.5f;
  const std::vector<coalescing::Particle> particles = coalescing::make_particles(n);
  std::vector<float> x(n), vx(n), expected(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = particles[i].x;
    vx[i] = particles[i].vx;
    expected[i] = coalescing::moved(particles[i].x, particles[i].vx, kDt);
  }
  cudalab::DeviceBuffer<coalescing::Particle> d_p(particles.size());
  cudalab::DeviceBuffer<float> d_x(n), d_vx(vx);
  const auto reset_aos = [&] { d_p.upload(particles); };
  const auto reset_soa = [&] { d_x.upload(x); };
  std::vector<cudalab::Rung> rungs(2);
  rungs[0].name = "array of structs";
  rungs[0].bytes = 12.0 * static_cast<double>(n);
  rungs[0].poison = reset_aos;  // the update is in place: start from the inputs, then check x
  rungs[0].launch = [&] { coalescing::launch_aos(d_p.data(), n, kDt); };
  rungs[0].check = [&] {
    const auto got = d_p.download();
    std::vector<float> gx(n);
    for (std::size_t i = 0; i < n; ++i) gx[i] = got[i].x;
    const auto check = cudalab::check_exact(expected, gx);
    if (!check.ok()) std::fprintf(stderr, "coalescing: array of structs is wrong: %s\n", check.summary().c_str());
    return check.ok();
  };
  rungs[1].name = "struct of arrays";
  rungs[1].bytes = 12.0 * static_cast<double>(n);
  rungs[1].poison = reset_soa;
  rungs[1].launch = [&] { coalescing::launch_soa(d_x.data(), d_vx.data(), n, kDt); };
  rungs[1].check = [&] {
    const auto check = cudalab::check_exact(expected, d_x.download());
    if (!check.ok()) std::fprintf(stderr, "coalescing: struct of arrays is wrong: %s\n", check.summary().c_str());
    return check.ok();
  };
  const auto cells = [](cudalab::LadderResult& lr) {
    const std::size_t steps[] = {sizeof(coalescing::Particle), sizeof(float)};
    for (std::size_t k = 0; k < 2; ++k) {
      lr.rungs[k].cells = {{"sectors_per_request", "ld sectors/request (x)",
                            static_cast<long long>(coalescing::sectors_per_request(0, steps[k]))}};
    }
  };
  return run.section({"layout",
                      fmt::format("Layout: x += vx * dt for N = {} particles of 4 fields (GB/s: the useful bytes, read "
                                  "x, vx; write x)", n),
                      cudalab::Roofs::kCopyOnly, {false}, cells},
                     rungs);
}

int mapping_section(cudalab::LabRun& run, std::size_t n) {
  const int width = 4096, height = static_cast<int>(std::max<std::size_t>(n / 4096, 1));
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  const std::vector<float> in = coalescing::make_input(pixels);
  const std::vector<float> expected = coalescing::reference_scale_2d(in);
  cudalab::DeviceBuffer<float> d_in(in), out(pixels);
  std::vector<cudalab::Rung> rungs;
  for (bool swapped : {false, true}) {
    rungs.push_back(cudalab::exact_rung(
        "coalescing", swapped ? "x walks down a column" : "x walks along a row", 8.0 * static_cast<double>(pixels), out,
        expected, [&, swapped] { coalescing::launch_scale_2d(d_in.data(), out.data(), width, height, swapped); }));
  }
  const auto cells = [width](cudalab::LadderResult& lr) {
    const std::size_t steps[] = {sizeof(float), static_cast<std::size_t>(width) * sizeof(float)};
    for (std::size_t k = 0; k < 2; ++k) {
      lr.rungs[k].cells = {{"sectors_per_request", "ld sectors/request",
                            static_cast<long long>(coalescing::sectors_per_request(0, steps[k]))}};
    }
  };
  return run.section({"mapping",
                      fmt::format("2D mapping: out = 2 * in over a {} x {} image, 32 x 8 blocks (variant: what "
                                  "threadIdx.x walks)", width, height),
                      cudalab::Roofs::kCopyOnly, {false}, cells},
                     rungs);
}

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
  int code = cudalab::kExitSuccess;
  const auto keep = [&](int c) { code = code == cudalab::kExitSuccess ? c : code; };
  if (wants(o, "stride")) keep(stride_section(run, o));
  if (wants(o, "offset")) keep(offset_section(run, o));
  if (wants(o, "layout")) keep(layout_section(run, o));
  if (wants(o, "mapping")) keep(mapping_section(run, static_cast<std::size_t>(o.n)));
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::run_lab("coalescing", [&] { return run(argc, argv); });
}
