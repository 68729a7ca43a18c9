#pragma once
// A Report rendered into a string (through a temporary FILE) for the tests that read what it
// prints: report_test and gpu_state_test.
#include <cstdio>
#include <string>

#include "common/report.hpp"

namespace cudalab_test {

// Everything written to a temporary FILE, which it closes.
inline std::string read_back(std::FILE* f) {
  std::rewind(f);
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  std::fclose(f);
  return out;
}

// What fill(report) makes a report of lab "lab" print, as JSON or as text.
template <typename Fill>
std::string render(bool json, Fill fill) {
  std::FILE* f = std::tmpfile();
  {
    cudalab::Report r("lab", json, f);
    fill(r);
    r.finish();
  }
  return read_back(f);
}

}  // namespace cudalab_test
