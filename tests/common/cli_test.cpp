#include "common/cli.hpp"
#include "common/cuda_check.hpp"
#include "common/variants.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using cudalab::Cli;
using cudalab::parse_size;

// Runs Cli::parse on a command line given as words (argv[0] added).
std::optional<int> parse(Cli& cli, std::vector<std::string> words) {
  words.insert(words.begin(), "lab");
  std::vector<const char*> argv;
  for (const auto& w : words) argv.push_back(w.c_str());
  return cli.parse(static_cast<int>(argv.size()), argv.data());
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += (c == '\n');
  return n;
}

TEST(ParseSize, AcceptsDigitsSuffixesAndPowers) {
  EXPECT_EQ(parse_size("0"), 0);
  EXPECT_EQ(parse_size("3840"), 3840);
  EXPECT_EQ(parse_size("64K"), 65536);
  EXPECT_EQ(parse_size("64k"), 65536);
  EXPECT_EQ(parse_size("1M"), 1 << 20);
  EXPECT_EQ(parse_size("2G"), std::int64_t{2} << 30);
  EXPECT_EQ(parse_size("2^28"), std::int64_t{1} << 28);
  EXPECT_EQ(parse_size("2^0"), 1);
  EXPECT_EQ(parse_size("9223372036854775807"), std::numeric_limits<std::int64_t>::max());
}

TEST(ParseSize, RejectsEverythingElse) {
  for (const char* bad : {"", "abc", "-1", "+5", "1.5", "12x", "1KB", " 12", "12 ", "2^", "2^63",
                          "2^x", "3^4", "9223372036854775808", "9000000000000000000G", "K"}) {
    EXPECT_FALSE(parse_size(bad).has_value()) << "'" << bad << "'";
  }
}

TEST(Cli, ParsesPositionalsOptionsAndCommonOptions) {
  Cli cli("lab", "test");
  std::int64_t width = 3840, height = 2160;
  std::string variant = "all";
  cudalab::CommonOptions common;
  cli.positional("width", width, "w", 1, 1 << 20);
  cli.positional("height", height, "h", 1, 1 << 20);
  cli.option("--variant", variant, "v", {"all", "naive", "x4"});
  cli.add_common(common);
  EXPECT_EQ(parse(cli, {"76", "62", "--variant", "x4", "--repeat", "5", "--json", "--device", "1"}),
            std::nullopt);
  EXPECT_EQ(width, 76);
  EXPECT_EQ(height, 62);
  EXPECT_EQ(variant, "x4");
  EXPECT_EQ(common.repeat, 5);
  EXPECT_TRUE(common.json);
  EXPECT_EQ(common.device, 1);
  EXPECT_TRUE(common.device_given);
}

TEST(Cli, SizesAcceptSuffixesAndPowersOfTwo) {
  for (const auto& [text, value] : std::vector<std::pair<std::string, std::int64_t>>{
           {"2^28", std::int64_t{1} << 28}, {"64K", 65536}, {"3M", 3 << 20}, {"1000", 1000}}) {
    Cli cli("lab", "test");
    std::int64_t n = 1;
    int block = 256;
    cli.positional("n", n, "n", 1, std::int64_t{1} << 40);
    cli.option("--block", block, "b", 32, 1 << 30);
    EXPECT_EQ(parse(cli, {text, "--block", text}), std::nullopt) << text;
    EXPECT_EQ(n, value) << text;
    EXPECT_EQ(block, value) << text;
  }
}

TEST(Cli, GivenTellsWhichArgumentsAppeared) {
  Cli cli("lab", "test");
  std::int64_t w = 1, h = 1;
  cli.positional("WIDTH", w, "w", 1, 100);
  cli.positional("HEIGHT", h, "h", 1, 100);
  EXPECT_EQ(parse(cli, {"7"}), std::nullopt);
  EXPECT_TRUE(cli.given("WIDTH"));
  EXPECT_FALSE(cli.given("HEIGHT"));
}

// A lab of several sections: one --variant runs only its own section; a --section that names
// another is a usage error; "all" leaves --section as given.
TEST(Cli, AVariantNarrowsTheSectionToItsOwn) {
  const auto narrowed = [](std::vector<std::string> words, const std::string& own) {
    Cli cli("lab", "test");
    std::string section = "all", variant = "all";
    cli.option("--section", section, "s", {"all", "conv", "heat2d"});
    cli.option("--variant", variant, "v");
    EXPECT_EQ(parse(cli, std::move(words)), std::nullopt);
    cli.narrow_section(section, variant, own);
    return section;
  };
  EXPECT_EQ(narrowed({"--variant", "heat2d_naive"}, "heat2d"), "heat2d");
  EXPECT_EQ(narrowed({"--variant", "heat2d_naive", "--section", "heat2d"}, "heat2d"), "heat2d");
  EXPECT_EQ(narrowed({"--section", "conv"}, "heat2d"), "conv");  // no --variant: as given
  EXPECT_EQ(narrowed({}, "heat2d"), "all");
  EXPECT_THROW(narrowed({"--variant", "heat2d_naive", "--section", "conv"}, "heat2d"), cudalab::UsageError);
}

TEST(Cli, DefaultsStayWhenNothingIsGiven) {
  Cli cli("lab", "test");
  std::int64_t n = 1000;
  cudalab::CommonOptions common;
  cli.positional("n", n, "n", 1, 1000000);
  cli.add_common(common);
  EXPECT_EQ(parse(cli, {}), std::nullopt);
  EXPECT_EQ(n, 1000);
  EXPECT_EQ(common.warmup, 3);
  EXPECT_EQ(common.repeat, 20);
  EXPECT_FALSE(common.json);
  EXPECT_FALSE(common.device_given);
}

TEST(Cli, HelpExitsZeroOnStdout) {
  Cli cli("lab", "does things");
  cudalab::CommonOptions common;
  cli.add_common(common);
  testing::internal::CaptureStdout();
  EXPECT_EQ(parse(cli, {"--help"}), 0);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("does things"), std::string::npos);
  EXPECT_NE(out.find("--repeat"), std::string::npos);
  EXPECT_NE(out.find("77 no usable CUDA device"), std::string::npos);
}

TEST(Cli, BadInputGivesExitTwoAndOneLine) {
  const std::vector<std::vector<std::string>> bad = {
      {"abc"},              // not a number
      {"0"},                // below the minimum
      {"-5"},               // negative
      {"2000000"},          // above the maximum
      {"--nope"},           // unknown flag
      {"5", "6"},           // extra positional
      {"--variant", "x9"},  // not one of the choices
      {"--repeat", "0"},    // repeat must be >= 1
      {"--device"},         // missing value
  };
  for (const auto& words : bad) {
    Cli cli("lab", "test");
    std::int64_t n = 1;
    std::string variant = "all";
    cudalab::CommonOptions common;
    cli.positional("n", n, "n", 1, 1000000);
    cli.option("--variant", variant, "v", {"all", "naive"});
    cli.add_common(common);
    testing::internal::CaptureStderr();
    const auto code = parse(cli, words);
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(code, 2) << words[0];
    EXPECT_EQ(count_lines(err), 1) << err;
    EXPECT_EQ(err.rfind("lab: error: ", 0), 0u) << err;
  }
}

TEST(Cli, TheErrorLineSaysWhatIsWrongWithTheNumber) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--k", "-1"}, "--k: -1 is negative; allowed: 0 .. 32"},
      {{"--k", "33"}, "--k: 33 is out of range; allowed: 0 .. 32"},
      {{"--k", "x1"}, "--k: 'x1' is not a whole number"},
      {{"--k", "-x"}, "--k: '-x' is not a whole number"},
  };
  for (const auto& [words, expected] : cases) {
    Cli cli("lab", "test");
    int k = -1;
    cli.option("--k", k, "k", 0, 32);
    testing::internal::CaptureStderr();
    EXPECT_EQ(parse(cli, words), 2) << words[1];
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(expected), std::string::npos) << err;
    EXPECT_EQ(k, -1) << words[1];
  }
}

TEST(Cli, DeviceAndJsonSetHasNoTimingOptions) {
  Cli cli("lab", "test");
  cudalab::CommonOptions common;
  cli.add_common(common, cudalab::CommonSet::kDeviceAndJson);
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse(cli, {"--repeat", "3"}), 2);
  testing::internal::GetCapturedStderr();
}

}  // namespace

namespace {

enum class Fruit { kApple, kPear };
std::string fruit_name(Fruit f) { return f == Fruit::kApple ? "apple" : "pear"; }
const std::vector<Fruit> kFruits{Fruit::kApple, Fruit::kPear};

TEST(Variants, NamesLookupAndSelection) {
  EXPECT_EQ(cudalab::names_of(kFruits, fruit_name), (std::vector<std::string>{"apple", "pear"}));
  Fruit f{};
  EXPECT_TRUE(cudalab::find_by_name(kFruits, fruit_name, "pear", &f));
  EXPECT_EQ(f, Fruit::kPear);
  EXPECT_FALSE(cudalab::find_by_name(kFruits, fruit_name, "plum", &f));
  EXPECT_EQ(cudalab::select_variants(kFruits, fruit_name, "all"), kFruits);
  EXPECT_EQ(cudalab::select_variants(kFruits, fruit_name, "apple"), std::vector<Fruit>{Fruit::kApple});
  EXPECT_TRUE(cudalab::select_variants(kFruits, fruit_name, "plum").empty());
}

// A variant the GPU does not run is named and left out of "all", and is exit 77 asked for alone;
// the others pass through in order.
TEST(Variants, RunnableVariantsNameWhatTheyLeaveOut) {
  const auto why_not = [](Fruit f) { return f == Fruit::kPear ? std::string("needs a pear tree") : std::string(); };
  std::vector<std::string> notes;
  const auto note = [&](const std::string& line) { notes.push_back(line); };
  EXPECT_EQ(cudalab::runnable_variants(kFruits, "all", fruit_name, why_not, note), std::vector<Fruit>{Fruit::kApple});
  EXPECT_EQ(notes, std::vector<std::string>{"  pear: not available for this GPU (needs a pear tree)"});
  notes.clear();
  EXPECT_EQ(cudalab::runnable_variants(std::vector<Fruit>{Fruit::kApple}, "apple", fruit_name, why_not, note),
            std::vector<Fruit>{Fruit::kApple});
  try {
    cudalab::runnable_variants(std::vector<Fruit>{Fruit::kPear}, "pear", fruit_name, why_not, note, " (here)");
    ADD_FAILURE() << "a variant the GPU does not run, asked for alone, must be NoDeviceError";
  } catch (const cudalab::NoDeviceError& e) {
    EXPECT_EQ(std::string(e.what()), "--variant pear: needs a pear tree (here)");
  }
  EXPECT_TRUE(notes.empty());
}

TEST(Variants, VariantOptionAcceptsAllAndEveryName) {
  for (const char* choice : {"all", "apple", "pear"}) {
    cudalab::Cli cli("lab", "test");
    std::string v;
    cli.variant_option(v, cudalab::names_of(kFruits, fruit_name), {"red", "green"});
    EXPECT_EQ(parse(cli, {"--variant", choice}), std::nullopt);
    EXPECT_EQ(v, choice);
  }
  cudalab::Cli cli("lab", "test");
  std::string v;
  cli.variant_option(v, cudalab::names_of(kFruits, fruit_name), {"red", "green"});
  EXPECT_EQ(parse(cli, {}), std::nullopt);
  EXPECT_EQ(v, "all");
  testing::internal::CaptureStderr();
  EXPECT_EQ(parse(cli, {"--variant", "plum"}), 2);
  testing::internal::GetCapturedStderr();
}

TEST(Variants, ListVariantsPrintsTheTableAndExitsZeroAsTextOrJson) {
  for (bool json : {false, true}) {
    cudalab::Cli cli("lab", "test");
    std::string v;
    cudalab::CommonOptions common;
    cli.variant_option(v, cudalab::names_of(kFruits, fruit_name), {"red and round", "green"});
    cli.add_common(common);
    testing::internal::CaptureStdout();
    EXPECT_EQ(parse(cli, json ? std::vector<std::string>{"--list-variants", "--json"} : std::vector<std::string>{"--list-variants"}), 0);
    const std::string out = testing::internal::GetCapturedStdout();
    if (json) {
      EXPECT_NE(out.find("\"variant_table\""), std::string::npos) << out;
      EXPECT_NE(out.find("\"what\": \"red and round\""), std::string::npos) << out;
      EXPECT_NE(out.find("\"schema_version\": 1"), std::string::npos) << out;
    } else {
      EXPECT_NE(out.find("apple"), std::string::npos) << out;
      EXPECT_NE(out.find("red and round"), std::string::npos) << out;
    }
  }
  cudalab::Cli cli("lab", "test");
  std::string v;
  EXPECT_THROW(cli.variant_option(v, {"a", "b"}, {"only one"}), std::logic_error);
}

}  // namespace
