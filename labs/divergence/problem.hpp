#pragma once
// The divergence lab's problem (common/driver.hpp): one launch shape for every variant (grid
// blocks of kBlock threads, each thread one path of `iters` dependent FMAs), and per variant its
// branch data (the data-dependent variants), the CPU's output and the warps that diverge. The
// useful work of a launch: 2 * iters FLOPs and a 4-byte store per thread, plus its 4 bytes of
// branch data where the variant reads them.
#include <cstdio>
#include <string>
#include <vector>

#include "common/check.hpp"
#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/variants.hpp"
#include "divergence.hpp"
#include "reference.hpp"

namespace divergence {

inline constexpr int kBlock = 256;

class Problem {
 public:
  Problem(int grid, int iters, std::uint64_t seed, const std::string& chosen)
      : grid_(grid), iters_(iters), n_(static_cast<std::size_t>(grid) * kBlock), out_(n_) {
    for (Variant v : cudalab::select_variants(all_variants(), variant_name, chosen)) {
      Case c;
      c.variant = v;
      if (is_data_dependent(v)) c.data = make_data(v, n_, seed);
      c.d_data = cudalab::DeviceBuffer<float>(c.data);
      c.expected = reference_output(v, c.data, n_, kBlock, iters_);
      c.divergent_warps = divergent_warps(v, c.data, grid_, kBlock);
      cases_.push_back(std::move(c));
    }
  }
  Problem(const Problem&) = delete;  // its rungs hold references to it
  Problem& operator=(const Problem&) = delete;

  std::size_t threads() const { return n_; }

  // One rung per chosen variant, with its divergent warps as a cell.
  std::vector<cudalab::Rung> rungs() {
    std::vector<cudalab::Rung> rungs;
    for (std::size_t k = 0; k < cases_.size(); ++k) {
      const Case& c = cases_[k];
      cudalab::Rung r;
      r.name = variant_name(c.variant);
      r.flops = 2.0 * iters_ * static_cast<double>(n_);
      r.bytes = (is_data_dependent(c.variant) ? 8.0 : 4.0) * static_cast<double>(n_);
      r.poison = [this] { out_.fill_bytes(0xFF); };
      r.launch = [this, k] {
        launch(cases_[k].variant, cases_[k].d_data.data(), out_.data(), grid_, kBlock, iters_);
      };
      r.check = [this, k] { return check(cases_[k]); };
      r.cells = [this, k] {
        return std::vector<cudalab::Cell>{
            {"divergent_warps", "divergent warps", static_cast<long long>(cases_[k].divergent_warps)}};
      };
      rungs.push_back(std::move(r));
    }
    return rungs;
  }

 private:
  struct Case {
    Variant variant{};
    std::vector<float> data, expected;
    cudalab::DeviceBuffer<float> d_data;
    std::size_t divergent_warps = 0;
  };

  bool check(const Case& c) const {
    const auto check = cudalab::check_exact(c.expected, out_.download());
    if (!check.ok()) std::fprintf(stderr, "divergence: %s is wrong: %s\n", variant_name(c.variant).c_str(), check.summary().c_str());
    return check.ok();
  }

  int grid_, iters_;
  std::size_t n_;
  cudalab::DeviceBuffer<float> out_;
  std::vector<Case> cases_;
};

}  // namespace divergence
