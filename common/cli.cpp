#include "common/cli.hpp"
#include "common/report.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <limits>

#include "common/cuda_check.hpp"
#include "common/exit_codes.hpp"

namespace cudalab {

std::optional<std::int64_t> parse_size(const std::string& text) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (text.empty()) return std::nullopt;
  // 2^k
  if (text.size() > 2 && text[0] == '2' && text[1] == '^') {
    const auto exponent = parse_size(text.substr(2));
    if (!exponent || *exponent > 62 || text.find_first_not_of("0123456789", 2) != std::string::npos) {
      return std::nullopt;
    }
    return std::int64_t{1} << *exponent;
  }
  std::int64_t value = 0;
  std::size_t i = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    const int digit = text[i] - '0';
    if (value > (kMax - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (i == 0) return std::nullopt;
  if (i == text.size()) return value;
  if (i + 1 != text.size()) return std::nullopt;
  int shift = 0;
  switch (text[i]) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: return std::nullopt;
  }
  if (value > (kMax >> shift)) return std::nullopt;
  return value << shift;
}

struct Cli::Impl {
  explicit Impl(const std::string& name, const std::string& description) : app(description, name) {}
  CLI::App app;
  std::string lab_name;
  std::vector<std::string> variant_names, variant_what;  // variant_option
  bool list_variants = false;
  bool* json = nullptr;  // add_common's --json
};

namespace {

// CLI11 validator for integers within [min, max] in parse_size's notation. The message
// becomes part of the single error line the user sees.
CLI::Validator size_in_range(std::int64_t min, std::int64_t max) {
  return CLI::Validator(
      [min, max](std::string& input) -> std::string {
        const auto v = parse_size(input);
        if (!v) {
          if (input.size() > 1 && input[0] == '-' && parse_size(input.substr(1))) {
            return fmt::format("{} is negative; allowed: {} .. {}", input, min, max);
          }
          return fmt::format("'{}' is not a whole number (examples: 1000, 64K, 2^20)", input);
        }
        if (*v < min || *v > max) {
          return fmt::format("{} is out of range; allowed: {} .. {}", input, min, max);
        }
        input = std::to_string(*v);  // hand CLI11 plain digits
        return {};
      },
      "");
}

const char* kExitCodeHelp =
    "Exit codes: 0 success, 1 result differs from the CPU reference, 2 usage error,\n"
    "            3 CUDA runtime error, 77 no usable CUDA device.";

}  // namespace

Cli::Cli(const std::string& lab_name, const std::string& description)
    : impl_(std::make_unique<Impl>(lab_name, description)) {
  impl_->lab_name = lab_name;
  impl_->app.footer(kExitCodeHelp);
  impl_->app.get_formatter()->column_width(34);
}

Cli::~Cli() = default;

namespace {
template <typename T>
void add_integer(CLI::App& app, const std::string& flags, T& value, const std::string& help,
                 std::int64_t min, std::int64_t max) {
  app.add_option(flags, value, fmt::format("{} [{}..{}]", help, min, max))
      ->transform(size_in_range(min, max))  // transform: the validator rewrites "2^20" to digits
      ->type_name("INT")
      ->capture_default_str();
}
}  // namespace

void Cli::positional(const std::string& name, std::int64_t& value, const std::string& help,
                     std::int64_t min, std::int64_t max) {
  add_integer(impl_->app, name, value, help, min, max);
}

void Cli::option(const std::string& flags, std::int64_t& value, const std::string& help,
                 std::int64_t min, std::int64_t max) {
  add_integer(impl_->app, flags, value, help, min, max);
}

void Cli::option(const std::string& flags, int& value, const std::string& help, int min, int max) {
  add_integer(impl_->app, flags, value, help, min, max);
}

void Cli::option(const std::string& flags, std::string& value, const std::string& help,
                 const std::vector<std::string>& choices) {
  auto* opt = impl_->app.add_option(flags, value, help)->capture_default_str();
  if (!choices.empty()) opt->check(CLI::IsMember(choices));
}

void Cli::flag(const std::string& flags, bool& value, const std::string& help) {
  impl_->app.add_flag(flags, value, help);
}

void Cli::variant_option(std::string& value, const std::vector<std::string>& names, const std::vector<std::string>& what) {
  if (names.size() != what.size()) throw std::logic_error("variant_option: one line of `what` per variant name");
  std::vector<std::string> choices{"all"};
  choices.insert(choices.end(), names.begin(), names.end());
  value = "all";
  option("--variant", value, "variant to run (all: every variant, in ladder order)", choices);
  impl_->variant_names = names;
  impl_->variant_what = what;
  impl_->app.add_flag("--list-variants", impl_->list_variants,
                      "print the variants (name, what each changes) and exit; with --json as JSON");
}

void Cli::add_common(CommonOptions& o, CommonSet which) {
  add_integer(impl_->app, "--device", o.device, "CUDA device ordinal to use", 0, 1023);
  impl_->app.get_option("--device")->each([&o](const std::string&) { o.device_given = true; });
  impl_->app.add_flag("--json", o.json, "print one JSON document on stdout instead of tables");
  impl_->json = &o.json;
  if (which == CommonSet::kDeviceAndJson) return;
  add_integer(impl_->app, "--warmup", o.warmup, "untimed launches before timing", 0, 1000);
  add_integer(impl_->app, "--repeat", o.repeat, "timed launches; the median is reported", 1, 100000);
  if (which != CommonSet::kNoSeed) {
    add_integer(impl_->app, "--seed", o.seed, "seed of the random input data", 0,
                std::numeric_limits<std::int64_t>::max());
  }
  impl_->app.add_flag("--no-l2-flush", o.no_l2_flush, "do not evict L2 before each timed launch");
}

void Cli::footer(const std::string& text) {
  impl_->app.footer(text + "\n\n" + kExitCodeHelp);
}

bool Cli::given(const std::string& name) const { return impl_->app.count(name) > 0; }

std::optional<int> Cli::parse(int argc, const char* const* argv) {
  try {
    impl_->app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(impl_->app.help().c_str(), stdout);
    return kExitSuccess;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(impl_->app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return kExitSuccess;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what) {
      if (c == '\n') c = ' ';
    }
    std::fprintf(stderr, "%s: error: %s (run with --help for usage)\n", impl_->lab_name.c_str(),
                 what.c_str());
    return kExitUsage;
  }
  if (impl_->list_variants) {
    Report report(impl_->lab_name, impl_->json != nullptr && *impl_->json);
    Table t({{"variant", "variant"}, {"what", "what it changes"}});
    for (std::size_t i = 0; i < impl_->variant_names.size(); ++i) t.add_row({impl_->variant_names[i], impl_->variant_what[i]});
    report.table("variant_table", t);
    report.finish();
    return kExitSuccess;
  }
  return std::nullopt;
}

void Cli::narrow_section(std::string& section, const std::string& variant, const std::string& own) const {
  if (variant == "all") return;
  if (given("--section") && section != own) {
    throw UsageError("--variant " + variant + " is a " + own + " variant, not " + section);
  }
  section = own;
}

}  // namespace cudalab
