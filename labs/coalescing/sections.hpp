#pragma once
// The coalescing lab's four sections, each a ladder of one access pattern's variants checked
// against the CPU (exact_rung) and run as one Section of the report: stride, offset, layout
// (array of structs against struct of arrays) and the 2D mapping.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "coalescing.hpp"
#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/report.hpp"
#include "reference.hpp"

namespace coalescing {

using cudalab::Value;

// Stride: out[i] = in[i * s] for s = `stride` (0: 1, 2, 4, ..., 32).
inline int stride_section(cudalab::LabRun& run, std::size_t n, int stride) {
  const std::vector<int> strides = stride > 0 ? std::vector<int>{stride} : std::vector<int>{1, 2, 4, 8, 16, 32};
  const std::vector<float> in = make_input(n * static_cast<std::size_t>(strides.back()));
  cudalab::DeviceBuffer<float> d_in(in), out(n);
  std::vector<std::vector<float>> expected;
  for (int s : strides) expected.push_back(reference_stride(in, n, s));
  std::vector<cudalab::Rung> rungs;
  for (std::size_t k = 0; k < strides.size(); ++k) {
    const int s = strides[k];
    rungs.push_back(cudalab::exact_rung("coalescing", fmt::format("stride {}", s), 8.0 * static_cast<double>(n), out,
                                        expected[k], [&, s] { launch_stride(d_in.data(), out.data(), n, s); }));
  }
  const auto cells = [&](cudalab::LadderResult& lr) {
    for (std::size_t k = 0; k < strides.size(); ++k) {
      auto& r = lr.rungs[k];
      const double moved = stride_bytes_moved(n, strides[k]);
      r.cells = {{"stride", "stride", strides[k]},
                 {"sectors_per_request", "ld sectors/request",
                  static_cast<long long>(sectors_per_request(0, 4 * static_cast<std::size_t>(strides[k])))},
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

// Offset: out[i] = in[i + k] for k = `offset` and 0 (-1: every k in 0 .. 32).
inline int offset_section(cudalab::LabRun& run, std::size_t n, int offset) {
  const std::vector<float> in = make_input(n + 32);
  cudalab::DeviceBuffer<float> d_in(in), out(n);
  std::vector<int> offsets;
  for (int k = 0; k <= 32; ++k) {
    if (offset < 0 || k == 0 || k == offset) offsets.push_back(k);  // offset 0: the yardstick
  }
  std::vector<std::vector<float>> expected;
  for (int k : offsets) expected.push_back(reference_offset(in, n, k));
  std::vector<cudalab::Rung> rungs;
  for (std::size_t j = 0; j < offsets.size(); ++j) {
    const int k = offsets[j];
    rungs.push_back(cudalab::exact_rung("coalescing", fmt::format("offset {}", k), 8.0 * static_cast<double>(n), out,
                                        expected[j], [&, k] { launch_offset(d_in.data(), out.data(), n, k); }));
  }
  const auto cells = [&](cudalab::LadderResult& lr) {
    for (std::size_t j = 0; j < offsets.size(); ++j) {
      lr.rungs[j].cells = {{"offset", "offset", offsets[j]},
                           {"sectors_per_request", "ld sectors/request",
                            static_cast<long long>(sectors_per_request(4 * static_cast<std::size_t>(offsets[j]), 4))}};
    }
  };
  return run.section({"offset", fmt::format("Offset: out[i] = in[i + k], N = {} (speedup: against offset 0)", n),
                      cudalab::Roofs::kCopyOnly, {false}, cells},
                     rungs);
}

// Layout: x += vx * dt over an array of structs and a struct of arrays.
inline int layout_section(cudalab::LabRun& run, std::size_t n) {
  constexpr float kDt = 0.5f;
  const std::vector<Particle> particles = make_particles(n);
  std::vector<float> x(n), vx(n), expected(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = particles[i].x;
    vx[i] = particles[i].vx;
    expected[i] = moved(particles[i].x, particles[i].vx, kDt);
  }
  cudalab::DeviceBuffer<Particle> d_p(particles.size());
  cudalab::DeviceBuffer<float> d_x(n), d_vx(vx);
  const auto reset_aos = [&] { d_p.upload(particles); };
  const auto reset_soa = [&] { d_x.upload(x); };
  std::vector<cudalab::Rung> rungs(2);
  rungs[0].name = "array of structs";
  rungs[0].bytes = 12.0 * static_cast<double>(n);
  rungs[0].poison = reset_aos;  // the update is in place: start from the inputs, then check x
  rungs[0].launch = [&] { launch_aos(d_p.data(), n, kDt); };
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
  rungs[1].launch = [&] { launch_soa(d_x.data(), d_vx.data(), n, kDt); };
  rungs[1].check = [&] {
    const auto check = cudalab::check_exact(expected, d_x.download());
    if (!check.ok()) std::fprintf(stderr, "coalescing: struct of arrays is wrong: %s\n", check.summary().c_str());
    return check.ok();
  };
  const auto cells = [](cudalab::LadderResult& lr) {
    const std::size_t steps[] = {sizeof(Particle), sizeof(float)};
    for (std::size_t k = 0; k < 2; ++k) {
      lr.rungs[k].cells = {{"sectors_per_request", "ld sectors/request (x)",
                            static_cast<long long>(sectors_per_request(0, steps[k]))}};
    }
  };
  return run.section({"layout",
                      fmt::format("Layout: x += vx * dt for N = {} particles of 4 fields (GB/s: the useful bytes, read "
                                  "x, vx; write x)", n),
                      cudalab::Roofs::kCopyOnly, {false}, cells},
                     rungs);
}

// 2D mapping: out = 2 * in with threadIdx.x along a row or down a column.
inline int mapping_section(cudalab::LabRun& run, std::size_t n) {
  const int width = 4096, height = static_cast<int>(std::max<std::size_t>(n / 4096, 1));
  const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  const std::vector<float> in = make_input(pixels);
  const std::vector<float> expected = reference_scale_2d(in);
  cudalab::DeviceBuffer<float> d_in(in), out(pixels);
  std::vector<cudalab::Rung> rungs;
  for (bool swapped : {false, true}) {
    rungs.push_back(cudalab::exact_rung(
        "coalescing", swapped ? "x walks down a column" : "x walks along a row", 8.0 * static_cast<double>(pixels), out,
        expected, [&, swapped] { launch_scale_2d(d_in.data(), out.data(), width, height, swapped); }));
  }
  const auto cells = [width](cudalab::LadderResult& lr) {
    const std::size_t steps[] = {sizeof(float), static_cast<std::size_t>(width) * sizeof(float)};
    for (std::size_t k = 0; k < 2; ++k) {
      lr.rungs[k].cells = {{"sectors_per_request", "ld sectors/request",
                            static_cast<long long>(sectors_per_request(0, steps[k]))}};
    }
  };
  return run.section({"mapping",
                      fmt::format("2D mapping: out = 2 * in over a {} x {} image, 32 x 8 blocks (variant: what "
                                  "threadIdx.x walks)", width, height),
                      cudalab::Roofs::kCopyOnly, {false}, cells},
                     rungs);
}

}  // namespace coalescing
