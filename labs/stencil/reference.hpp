#pragma once
// The stencil lab's CPU side: inputs, filters, the answers in double precision, and the check of
// every element against a bound that admits any order of the float operations and nothing else.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "common/random.hpp"
#include "stencil.hpp"

namespace stencil {

inline int clamp_index(long long v, int n) { return v < 0 ? 0 : (v >= n ? n - 1 : static_cast<int>(v)); }

// An image or field of `cells` floats in [-1, 1) from `seed`.
inline std::vector<float> make_field(std::size_t cells, std::uint64_t seed) {
  return cudalab::random_vector<float>(cells, seed, -1.0f, 1.0f);
}

// A (2R + 1)^2 filter from `seed`: positive and negative weights whose absolute values add up to 1
// (so outputs stay in the inputs' range, and a wrong tap is not lost in the sum).
inline std::vector<float> make_filter(int radius, std::uint64_t seed) {
  const std::size_t taps = static_cast<std::size_t>(2 * radius + 1) * static_cast<std::size_t>(2 * radius + 1);
  std::vector<float> w = cudalab::random_vector<float>(taps, seed, -1.0f, 1.0f);
  double total = 0;
  for (float v : w) total += std::fabs(static_cast<double>(v));
  for (float& v : w) v = static_cast<float>(v / total);
  return w;
}

// The answer of a float computation and how far a right one may be from it.
struct Answer {
  std::vector<double> value;
  std::vector<double> tolerance;  // per element
  std::vector<std::size_t> index;  // the element each value is of; empty: all, in order
};

// The rows a convolution's check covers: all of them when the CPU's work (cells x taps) is at
// most `budget` multiply-adds, else the borders (the first and last r + 1 rows, where the clamp
// acts) and 16 rows drawn from `seed`. A filter of radius 8 over 16384^2 cells is 78 G
// multiply-adds: minutes on one core.
inline std::vector<int> conv_check_rows(int nx, int ny, int r, std::uint64_t seed, double budget = 4e9) {
  std::vector<int> rows;
  const double work = static_cast<double>(nx) * ny * (2 * r + 1) * (2 * r + 1);
  if (work <= budget || ny <= 2 * (r + 1) + 16) {
    for (int y = 0; y < ny; ++y) rows.push_back(y);
    return rows;
  }
  std::vector<bool> take(static_cast<std::size_t>(ny), false);
  for (int y = 0; y <= r; ++y) take[static_cast<std::size_t>(y)] = take[static_cast<std::size_t>(ny - 1 - y)] = true;
  for (int drawn : cudalab::random_vector<int>(16, seed, 0, ny - 1)) take[static_cast<std::size_t>(drawn)] = true;
  for (int y = 0; y < ny; ++y) {
    if (take[static_cast<std::size_t>(y)]) rows.push_back(y);
  }
  return rows;
}

// The convolution in double at every element of `rows` (all rows when empty): each output and
// its bound, (2R + 1)^2 roundings of 2^-24 times the sum of |w| |x| over its taps (any order of
// the FMAs or adds rounds at most that often).
inline Answer conv_reference(const std::vector<float>& in, int nx, int ny, const std::vector<float>& w, int r,
                             std::vector<int> rows = {}) {
  if (rows.empty()) {
    for (int y = 0; y < ny; ++y) rows.push_back(y);
  }
  Answer a;
  const int width = 2 * r + 1;
  const double roundings = static_cast<double>(width) * width;
  const bool all = static_cast<int>(rows.size()) == ny;
  for (int y : rows) {
    for (int x = 0; x < nx; ++x) {
      double sum = 0, magnitude = 0;
      for (int dy = -r; dy <= r; ++dy) {
        const std::size_t row = static_cast<std::size_t>(clamp_index(y + dy, ny)) * nx;
        for (int dx = -r; dx <= r; ++dx) {
          const double t = static_cast<double>(w[static_cast<std::size_t>((dy + r) * width + dx + r)]) *
                           static_cast<double>(in[row + static_cast<std::size_t>(clamp_index(x + dx, nx))]);
          sum += t;
          magnitude += std::fabs(t);
        }
      }
      a.value.push_back(sum);
      a.tolerance.push_back(roundings * 0x1p-24 * magnitude + 1e-30);
      if (!all) a.index.push_back(static_cast<std::size_t>(y) * nx + x);
    }
  }
  return a;
}

// `steps` heat steps in double (2D when nz == 1 and `three_d` is false, else 3D), borders
// clamped. A step is a weighted mean of a cell and its neighbours (the diffusion number keeps
// every weight non-negative), so float rounding errors add up and never grow: the bound is 16
// roundings of 2^-24 per step times the largest |u0| (a step's float operations round at most
// about 7 times, on intermediate sums up to 12 times a cell's size, scaled by the number).
inline Answer heat_reference(const std::vector<float>& u0, int nx, int ny, int nz, int steps, bool three_d) {
  std::vector<double> u(u0.begin(), u0.end()), v(u0.size());
  const double alpha = three_d ? static_cast<double>(kAlpha3d) : static_cast<double>(kAlpha2d);
  const std::size_t plane = static_cast<std::size_t>(nx) * ny;
  for (int s = 0; s < steps; ++s) {
    for (int z = 0; z < nz; ++z) {
      for (int y = 0; y < ny; ++y) {
        for (int x = 0; x < nx; ++x) {
          const std::size_t p = static_cast<std::size_t>(z) * plane;
          const std::size_t c = p + static_cast<std::size_t>(y) * nx + x;
          const double n = u[p + static_cast<std::size_t>(clamp_index(y - 1, ny)) * nx + x];
          const double so = u[p + static_cast<std::size_t>(clamp_index(y + 1, ny)) * nx + x];
          const double w = u[p + static_cast<std::size_t>(y) * nx + clamp_index(x - 1, nx)];
          const double e = u[p + static_cast<std::size_t>(y) * nx + clamp_index(x + 1, nx)];
          double sum = n + so + w + e - 4.0 * u[c];
          if (three_d) {
            const std::size_t local = static_cast<std::size_t>(y) * nx + x;
            sum += u[static_cast<std::size_t>(clamp_index(z - 1, nz)) * plane + local] +
                   u[static_cast<std::size_t>(clamp_index(z + 1, nz)) * plane + local] - 2.0 * u[c];
          }
          v[c] = u[c] + alpha * sum;
        }
      }
    }
    u.swap(v);
  }
  double largest = 0;
  for (float x : u0) largest = std::fmax(largest, std::fabs(static_cast<double>(x)));
  Answer a;
  a.value = std::move(u);
  a.tolerance.assign(a.value.size(), 16.0 * steps * 0x1p-24 * largest + 1e-30);
  return a;
}

// The index of the first element of `got` farther from scale * answer than scale times its
// tolerance (the size: none), printed on stderr with `what` first. scale: the multiplier of the
// inputs in the buffers (every stencil here is linear, and a power of two scales every rounding
// exactly: InputSets::add_scaled); -1 is the negated input.
inline std::size_t first_mismatch(const Answer& want, const float* got, double scale, const char* what) {
  for (std::size_t k = 0; k < want.value.size(); ++k) {
    const std::size_t i = want.index.empty() ? k : want.index[k];
    const double g = static_cast<double>(got[i]), w = scale * want.value[k];
    const double tolerance = std::fabs(scale) * want.tolerance[k];
    if (!(std::fabs(g - w) <= tolerance)) {  // NaN fails too
      std::fprintf(stderr, "%s: element %zu is %.9g, expected %.9g (tolerance %.3g)\n", what, i, g, w, tolerance);
      return i;
    }
  }
  return want.value.size();
}

}  // namespace stencil
