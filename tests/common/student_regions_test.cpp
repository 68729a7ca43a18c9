// The student-region convention (docs/student-regions.md) is checked on every source under
// labs/: regions are well formed, so a handout generator can turn each into a stub.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Region {
  std::string file, id;
  int begin_line = 0, end_line = 0;
  bool has_task = false, has_hint = false, has_body = false;
};

// Parses one file; failures are reported through gtest with file:line.
std::vector<Region> parse_regions(const fs::path& path) {
  static const std::regex begin_re(R"(^\s*// STUDENT-BEGIN\(([a-z0-9_.]+)\): \S.*$)");
  static const std::regex end_re(R"(^\s*// STUDENT-END\(([a-z0-9_.]+)\)\s*$)");
  static const std::regex any_marker(R"(STUDENT-(BEGIN|END))");
  std::ifstream in(path);
  std::vector<Region> regions;
  Region* open = nullptr;
  std::string line;
  int n = 0;
  bool in_header = false;
  while (std::getline(in, line)) {
    ++n;
    std::smatch m;
    const std::string where = path.string() + ":" + std::to_string(n);
    if (std::regex_match(line, m, begin_re)) {
      EXPECT_EQ(open, nullptr) << where << ": STUDENT-BEGIN inside another region";
      regions.push_back({path.string(), m[1], n, 0, false, false, false});
      open = &regions.back();
      in_header = true;
    } else if (std::regex_match(line, m, end_re)) {
      EXPECT_NE(open, nullptr) << where << ": STUDENT-END without STUDENT-BEGIN";
      if (open != nullptr) {
        EXPECT_EQ(open->id, m[1].str()) << where << ": STUDENT-END id differs from its BEGIN";
        open->end_line = n;
        open = nullptr;
      }
    } else if (std::regex_search(line, any_marker)) {
      ADD_FAILURE() << where << ": malformed student marker: " << line;
    } else if (open != nullptr) {
      const auto first = line.find_first_not_of(" \t");
      const bool comment = first != std::string::npos && line.compare(first, 2, "//") == 0;
      if (in_header && comment) {
        if (line.find("// TASK:") != std::string::npos) open->has_task = true;
        if (line.find("// HINT:") != std::string::npos) open->has_hint = true;
      } else if (first != std::string::npos) {
        in_header = false;
        open->has_body = true;
      }
    }
  }
  EXPECT_EQ(open, nullptr) << path << ": region " << (open ? open->id : "") << " is never closed";
  return regions;
}

TEST(StudentRegions, EveryRegionInLabsIsWellFormed) {
  const fs::path labs = fs::path(CUDALAB_SOURCE_DIR) / "labs";
  ASSERT_TRUE(fs::is_directory(labs)) << labs;
  std::set<std::string> ids;
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(labs)) {
    const auto ext = entry.path().extension().string();
    if (ext != ".cu" && ext != ".cuh" && ext != ".cpp" && ext != ".hpp") continue;
    for (const auto& r : parse_regions(entry.path())) {
      ++count;
      EXPECT_TRUE(ids.insert(r.id).second) << r.file << ":" << r.begin_line << ": duplicate id " << r.id;
      EXPECT_TRUE(r.has_task) << r.file << ":" << r.begin_line << ": region " << r.id << " has no TASK";
      EXPECT_TRUE(r.has_hint) << r.file << ":" << r.begin_line << ": region " << r.id << " has no HINT";
      EXPECT_TRUE(r.has_body) << r.file << ":" << r.begin_line << ": region " << r.id << " has no solution";
    }
  }
  EXPECT_GE(count, 1) << "no student regions found under " << labs;
}

}  // namespace
