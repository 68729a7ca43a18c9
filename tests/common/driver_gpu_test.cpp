// The driver's pieces for a lab's sections on the GPU: exact_rung poisons, checks element by
// element and names a wrong rung; LabRun::section runs its rungs, lets `after` add cells, and
// reports one table against the roofs it asks for (the copy ceiling measured only then).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/driver.hpp"
#include "common/exit_codes.hpp"
#include "gpu_test.hpp"

namespace {

cudalab::CommonOptions json_options() {
  cudalab::CommonOptions common;
  common.json = true;
  common.warmup = 1;
  common.repeat = 3;
  return common;
}

TEST(DriverSection, AWrongElementFailsItsRungAndTheSectionReportsBoth) {
  CUDALAB_REQUIRE_GPU();
  cudalab::LabRun run("driver_test", json_options(), "float");
  const std::size_t n = 1001;  // odd: the missed element is the last one
  const std::vector<float> expected(n, 0.0f);
  cudalab::DeviceBuffer<float> out(n);
  std::vector<cudalab::Rung> rungs;
  rungs.push_back(cudalab::exact_rung("driver_test", "every element", 8.0 * n, out, expected,
                                      [&] { CUDA_CHECK(cudaMemset(out.data(), 0, out.bytes())); }));
  rungs.push_back(cudalab::exact_rung("driver_test", "the last one missed", 8.0 * n, out, expected,
                                      [&] { CUDA_CHECK(cudaMemset(out.data(), 0, out.bytes() - sizeof(float))); }));
  int after_ran = 0;
  cudalab::Section cases = cudalab::Section::titled("cases", "Two rungs", cudalab::Roofs::kNone);
  cases.after = [&](cudalab::LadderResult& r) {
    ++after_ran;
    ASSERT_EQ(r.rungs.size(), 2u);
    r.rungs[1].cells.push_back({"mark", "mark", 7LL});
    r.rungs[0].cells.push_back({"mark", "mark", 3LL});
  };
  const int code = run.section(cases, rungs);
  EXPECT_EQ(code, cudalab::kExitWrongResult);
  EXPECT_EQ(after_ran, 1);
  const auto j = nlohmann::json::parse(run.report().json_text());
  ASSERT_TRUE(j.contains("cases"));
  ASSERT_EQ(j["cases"].size(), 2u);
  EXPECT_EQ(j["cases"][0]["variant"], "every element");
  EXPECT_EQ(j["cases"][0]["correct"], true);
  EXPECT_EQ(j["cases"][1]["correct"], false);
  EXPECT_EQ(j["cases"][0]["mark"], 3);
  EXPECT_EQ(j["cases"][1]["mark"], 7);
  EXPECT_FALSE(j.contains("copy_ceiling_gbps"));  // Roofs::kNone: no copy measured
}

TEST(DriverSection, ACopyRoofMeasuresTheCeilingOnceAndSetsTheRowsAgainstIt) {
  CUDALAB_REQUIRE_GPU();
  cudalab::LabRun run("driver_test", json_options(), "float");
  const std::size_t n = std::size_t{1} << 22;
  const std::vector<int> expected(n, 0);
  cudalab::DeviceBuffer<int> out(n);
  const auto zeros = [&] { CUDA_CHECK(cudaMemset(out.data(), 0, out.bytes())); };
  EXPECT_EQ(run.section(cudalab::Section::titled("first", "first", cudalab::Roofs::kCopyOnly),
                        {cudalab::exact_rung("driver_test", "memset", 4.0 * n, out, expected, zeros)}),
            cudalab::kExitSuccess);
  EXPECT_EQ(run.section(cudalab::Section::titled("second", "second", cudalab::Roofs::kPeakAndCopy),
                        {cudalab::exact_rung("driver_test", "memset", 4.0 * n, out, expected, zeros)}),
            cudalab::kExitSuccess);
  const auto j = nlohmann::json::parse(run.report().json_text());
  ASSERT_TRUE(j.contains("copy_ceiling_gbps"));
  EXPECT_GT(j["copy_ceiling_gbps"].get<double>(), 0);
  EXPECT_TRUE(j["first"][0]["percent_of_copy"].is_number());
  EXPECT_FALSE(j["first"][0].contains("percent_of_peak"));  // copy only: the peak is left out
  EXPECT_TRUE(j["second"][0]["percent_of_peak"].is_number());
}

}  // namespace
