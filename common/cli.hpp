#pragma once
// The one command-line setup every lab shares, built on CLI11 (kept out of this header so
// lab sources compile quickly under nvcc). Every lab gets the same common options, the same
// error handling (one line on stderr, exit code 2) and the same --help footer.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudalab {

struct CommonOptions {
  int device = 0;
  int warmup = 3;
  int repeat = 20;
  bool json = false;
  std::uint64_t seed = 42;
  bool no_l2_flush = false;
  bool device_given = false;  // --device appeared on the command line
};

// Which of the common options a lab offers. Labs that time kernels on random inputs take all of
// them; labs that time kernels on fixed inputs take all but --seed (an option that changes
// nothing is refused, not ignored); device_query, hello and latency take only --device and --json.
enum class CommonSet { kAll, kNoSeed, kDeviceAndJson };

// Parses an integer the way the labs accept sizes: decimal digits, optionally followed by a
// binary suffix K, M or G (64K = 65536), or a power of two written 2^k. Returns nullopt for
// anything else (signs, spaces, trailing junk, overflow).
std::optional<std::int64_t> parse_size(const std::string& text);

class Cli {
 public:
  Cli(const std::string& lab_name, const std::string& description);
  ~Cli();
  Cli(const Cli&) = delete;
  Cli& operator=(const Cli&) = delete;

  // An integer positional argument or option in [min, max], parsed with parse_size.
  void positional(const std::string& name, std::int64_t& value, const std::string& help,
                  std::int64_t min, std::int64_t max);
  void option(const std::string& flags, std::int64_t& value, const std::string& help,
              std::int64_t min, std::int64_t max);
  void option(const std::string& flags, int& value, const std::string& help, int min, int max);
  // A string option; when `choices` is not empty, only those values are accepted.
  void option(const std::string& flags, std::string& value, const std::string& help,
              const std::vector<std::string>& choices = {});
  void flag(const std::string& flags, bool& value, const std::string& help);
  // --variant: "all" (the default) or one of `names`; and --list-variants, which prints the
  // variant table (each name and `what` it changes, one line each; with --json the document
  // {"schema_version", "lab", "variant_table": [{"variant", "what"}]}) and exits 0.
  void variant_option(std::string& value, const std::vector<std::string>& names, const std::vector<std::string>& what);
  void add_common(CommonOptions& options, CommonSet which = CommonSet::kAll);
  // Extra text for --help (examples, notes), printed before the exit-code table.
  void footer(const std::string& text);

  // Parses argv. Returns nullopt when the lab should run; otherwise the exit code to return:
  // 0 after --help (printed on stdout), 2 after a usage error (one line on stderr).
  std::optional<int> parse(int argc, const char* const* argv);
  // After parse: whether the option or positional (by its name or any flag) was given.
  bool given(const std::string& name) const;
  // After parse, in a lab of several sections: one --variant (not "all") runs only its own
  // section, `own`, so `section` becomes `own`; a --section that names another is a UsageError.
  void narrow_section(std::string& section, const std::string& variant, const std::string& own) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cudalab
