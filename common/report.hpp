#pragma once
// The one report layer: what a lab prints goes through a Report, which renders it either as
// readable text (headings, aligned "label : value" fields, tables) or, with --json, as a
// single JSON document on stdout for scripts and graders.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cudalab {

// The version of the JSON document every lab prints with --json (its "schema_version"), which
// docs/schema/lab-report.schema.json describes: booleans are booleans, numbers are numbers, a
// unit is in the key's name (_ms, _gbps, _bytes), the copy ceiling is "copy_ceiling_gbps".
constexpr int kReportSchemaVersion = 1;

// A scalar for a field or a table cell. Doubles carry the number of decimals used in text.
// A value may also carry its own text (Value::shown): the JSON keeps the number or boolean,
// the text table shows "1.5 MiB" or "NO". Value() is null: "-" in text, null in JSON.
class Value {
 public:
  Value() : v_(std::monostate{}) {}
  Value(const char* s) : v_(std::string(s)) {}
  Value(std::string s) : v_(std::move(s)) {}
  Value(bool b) : v_(b) {}
  Value(int i) : v_(static_cast<std::int64_t>(i)) {}
  Value(long i) : v_(static_cast<std::int64_t>(i)) {}
  Value(long long i) : v_(static_cast<std::int64_t>(i)) {}
  Value(unsigned i) : v_(static_cast<std::int64_t>(i)) {}
  Value(unsigned long i) : v_(static_cast<std::int64_t>(i)) {}
  Value(unsigned long long i) : v_(static_cast<std::int64_t>(i)) {}
  Value(double d, int decimals = 2) : v_(d), decimals_(decimals) {}

  // `value` in JSON, `text` in the text output.
  static Value shown(Value value, std::string text) {
    value.text_ = std::move(text);
    value.has_text_ = true;
    return value;
  }

  std::string text() const;
  bool is_number() const;
  bool is_null() const { return std::holds_alternative<std::monostate>(v_); }
  const std::variant<std::monostate, std::string, bool, std::int64_t, double>& raw() const { return v_; }

 private:
  std::variant<std::monostate, std::string, bool, std::int64_t, double> v_;
  int decimals_ = 2;
  bool has_text_ = false;
  std::string text_;
};

// A result's verdict: true/false in JSON, "yes"/"NO" in text.
inline Value correct_cell(bool correct) { return Value::shown(Value(correct), correct ? "yes" : "NO"); }
// "1.50 GiB", "33.2 MiB", "512 B".
std::string human_bytes(double bytes);
// A byte count: a number in JSON, "1.5 MiB" in text.
Value bytes_cell(double bytes);

struct Column {
  std::string key;    // JSON key (a unit in the name: _ms, _gbps, _bytes)
  std::string title;  // text header
  bool in_text{true};  // false: JSON only (a row's booleans that the text folds into one "ok")
  bool in_json{true};  // false: text only
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  void add_row(std::vector<Value> cells);  // one cell per column
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<Value>>& rows() const { return rows_; }
  // Text rendering: numbers right-aligned, text left-aligned, one space-padded line per row.
  std::string render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Value>> rows_;
};

class Report {
 public:
  Report(const std::string& lab, bool json, std::FILE* out = stdout);
  ~Report();
  Report(const Report&) = delete;
  Report& operator=(const Report&) = delete;

  // Text: a blank line and "== title ==". JSON: ignored (structure comes from items/keys).
  void heading(const std::string& title);
  // Text: "  label : value unit". JSON: "key": value in the current object.
  void field(const std::string& key, const std::string& label, const Value& value,
             const std::string& unit = "");
  // A shape or another tuple of numbers: text "  label : 8192 x 333" (the parts' texts joined by
  // " x "), JSON "key": {"nx": 8192, "ny": 333}: numbers, never the prose "8192 x 333".
  void dims(const std::string& key, const std::string& label, const std::vector<std::pair<std::string, Value>>& parts);
  // A group of numbers that reads as one line: text "  label : text", JSON "key": {part: value,
  // ...} (the GPU's clocks and power: numbers in JSON, a sentence in text).
  void group(const std::string& key, const std::string& label, const std::vector<std::pair<std::string, Value>>& parts,
             const std::string& text);
  // Text: the rendered table. JSON: "key": [ {column key: cell, ...}, ... ].
  void table(const std::string& key, const Table& table);
  // Text: the line as is. JSON: appended to the "notes" array.
  void note(const std::string& text);
  // Starts a new object appended to the array `array_key` of the top-level document
  // (device_query: one object per device); fields go there until end_item().
  void begin_item(const std::string& array_key);
  void end_item();

  bool json() const { return json_; }
  // JSON mode: prints the document. Text mode: flushes. Called by the destructor otherwise,
  // except while an exception unwinds a JSON report: an error prints no half document.
  void finish();
  // The document built so far, as JSON text (for tests).
  std::string json_text() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool json_;
  std::FILE* out_;
  bool finished_ = false;
  int exceptions_at_start_ = 0;
};

}  // namespace cudalab
