// The student-region convention (docs/student-regions.md) is checked on every source of the suite
// with the one parser of the format, scripts/cudalab/labgrade/regions.py (the handout generator and the
// grader use the same one): this test runs `scripts/student_regions.py --json` and checks what it
// reports. A malformed marker makes the script fail, with the file and line, and so this test.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace {

// stdout of `command` and its exit status.
std::pair<std::string, int> run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {"", -1};
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {out, status};
}

TEST(StudentRegions, EveryRegionIsWellFormed) {
  const std::string source = CUDALAB_SOURCE_DIR;
  const auto [out, status] = run("\"" CUDALAB_PYTHON "\" \"" + source + "/scripts/student_regions.py\" --json --root \"" +
                                 source + "\" 2>&1");
  ASSERT_EQ(status, 0) << "the region parser refused the sources:\n" << out;
  const auto regions = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(regions.is_array()) << out;
  std::set<std::string> ids;
  for (const auto& r : regions) {
    const std::string where = r.at("path").get<std::string>() + ":" + std::to_string(r.at("begin").get<int>());
    const std::string id = r.at("id").get<std::string>();
    EXPECT_TRUE(ids.insert(id).second) << where << ": duplicate id " << id;
    EXPECT_EQ(id.substr(0, id.find('.')), r.at("lab").get<std::string>()) << where;
    EXPECT_TRUE(r.at("has_task").get<bool>()) << where << ": region " << id << " has no TASK";
    EXPECT_TRUE(r.at("has_hint").get<bool>()) << where << ": region " << id << " has no HINT";
    EXPECT_TRUE(r.at("has_body").get<bool>()) << where << ": region " << id << " has no solution";
    EXPECT_GT(r.at("end").get<int>(), r.at("begin").get<int>()) << where;
  }
  EXPECT_GE(regions.size(), 1U) << "no student regions found under " << source;
}

}  // namespace
