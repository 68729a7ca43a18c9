#include "common/report.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "render_report.hpp"

namespace {

using cudalab::Column;
using cudalab::Report;
using cudalab::Table;
using cudalab::Value;

using cudalab_test::read_back;
using cudalab_test::render;

Table sample_table() {
  Table t({{"variant", "variant"}, {"median_ms", "median ms"}, {"gbps", "GB/s"}});
  t.add_row({"naive", Value(1.25, 3), Value(1909.0, 0)});
  t.add_row({"x4_vectorized", Value(0.5, 3), Value(3555.4, 0)});
  return t;
}

TEST(Value, TextFormatting) {
  EXPECT_EQ(Value(3.14159, 2).text(), "3.14");
  EXPECT_EQ(Value(4814.3, 0).text(), "4814");
  EXPECT_EQ(Value(132).text(), "132");
  EXPECT_EQ(Value(true).text(), "yes");
  EXPECT_EQ(Value("H200").text(), "H200");
  EXPECT_TRUE(Value(1.0).is_number());
  EXPECT_FALSE(Value("1").is_number());
}

TEST(Value, NullShownAndTheVerdictAndByteCells) {
  EXPECT_TRUE(Value().is_null());
  EXPECT_EQ(Value().text(), "-");
  EXPECT_FALSE(Value().is_number());
  const Value wrong = cudalab::correct_cell(false);
  EXPECT_EQ(wrong.text(), "NO");
  EXPECT_FALSE(std::get<bool>(wrong.raw()));
  EXPECT_EQ(cudalab::correct_cell(true).text(), "yes");
  const Value mib = cudalab::bytes_cell(1.5 * 1024 * 1024);
  EXPECT_EQ(mib.text(), "1.5 MiB");
  EXPECT_DOUBLE_EQ(std::get<double>(mib.raw()), 1.5 * 1024 * 1024);
  EXPECT_EQ(Value::shown(Value(3), "three").text(), "three");
}

TEST(Report, JsonKeepsNumbersBooleansAndNullsAndLeavesOutTextOnlyColumns) {
  const std::string out = render(true, [](Report& r) {
    Table t({{"variant", "variant"}, {"median_ms", "median ms"}, {"ok", "ok", true, false}, {"correct", "correct", false, true}});
    t.add_row({"naive", Value(), "NO", cudalab::correct_cell(false)});
    r.table("variants", t);
    r.field("moved_bytes", "moved", cudalab::bytes_cell(2048));
  });
  const auto doc = nlohmann::json::parse(out);
  EXPECT_EQ(doc["schema_version"], cudalab::kReportSchemaVersion);
  EXPECT_TRUE(doc["variants"][0]["median_ms"].is_null());
  EXPECT_TRUE(doc["variants"][0]["correct"].is_boolean());
  EXPECT_FALSE(doc["variants"][0].contains("ok"));
  EXPECT_EQ(doc["moved_bytes"], 2048.0);
  const std::string text = render(false, [](Report& r) {
    Table t({{"variant", "variant"}, {"ok", "ok", true, false}, {"correct", "correct", false, true}});
    t.add_row({"naive", "NO", cudalab::correct_cell(false)});
    r.table("variants", t);
  });
  EXPECT_NE(text.find("NO"), std::string::npos) << text;
  EXPECT_EQ(text.find("correct"), std::string::npos) << text;
}

TEST(Table, RejectsRowsOfTheWrongWidth) {
  Table t({{"a", "a"}, {"b", "b"}});
  EXPECT_THROW(t.add_row({1}), std::invalid_argument);
}

TEST(Table, RendersAlignedColumns) {
  const std::string text = sample_table().render();
  // header, rule, two rows
  EXPECT_NE(text.find("variant        median ms  GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("naive              1.250  1909"), std::string::npos) << text;
  EXPECT_NE(text.find("x4_vectorized      0.500  3555"), std::string::npos) << text;
}

TEST(Report, JsonIsOneValidDocumentWithEverything) {
  const std::string out = render(true, [](Report& r) {
    r.heading("ignored in JSON");
    r.field("sm_count", "SMs", 132);
    r.field("bandwidth_gbps", "bandwidth", Value(4814.3, 1), "GB/s");
    r.begin_item("devices");
    r.field("name", "name", "NVIDIA H200");
    r.end_item();
    r.begin_item("devices");
    r.field("name", "name", "second");
    r.end_item();
    r.table("results", sample_table());
    r.note("a note");
  });
  const auto doc = nlohmann::json::parse(out);  // throws (fails the test) if not valid JSON
  EXPECT_EQ(doc["lab"], "lab");
  EXPECT_EQ(doc["sm_count"], 132);
  EXPECT_DOUBLE_EQ(doc["bandwidth_gbps"].get<double>(), 4814.3);  // full precision, not text
  ASSERT_EQ(doc["devices"].size(), 2u);
  EXPECT_EQ(doc["devices"][1]["name"], "second");
  ASSERT_EQ(doc["results"].size(), 2u);
  EXPECT_EQ(doc["results"][1]["variant"], "x4_vectorized");
  EXPECT_DOUBLE_EQ(doc["results"][1]["gbps"].get<double>(), 3555.4);
  EXPECT_EQ(doc["notes"][0], "a note");
  EXPECT_EQ(out.find("ignored in JSON"), std::string::npos);
}

// A shape is numbers in JSON and "8192 x 333" in text.
TEST(Report, DimsAreNumbersInJsonAndOneLineInText) {
  const auto fill = [](Report& r) { r.dims("shape", "input (rows x cols)", {{"rows", 8192}, {"cols", 333}}); };
  const auto doc = nlohmann::json::parse(render(true, fill));
  EXPECT_EQ(doc["shape"]["rows"], 8192);
  EXPECT_EQ(doc["shape"]["cols"], 333);
  EXPECT_TRUE(doc["shape"]["rows"].is_number());
  const std::string text = render(false, fill);
  EXPECT_NE(text.find(": 8192 x 333\n"), std::string::npos) << text;
}

TEST(Report, TextHasHeadingsFieldsAndTables) {
  const std::string out = render(false, [](Report& r) {
    r.heading("Device 0");
    r.field("sm_count", "multiprocessors (SMs)", 132);
    r.field("bw", "bandwidth", Value(4814.3, 1), "GB/s");
    r.table("results", sample_table());
  });
  EXPECT_NE(out.find("== Device 0 =="), std::string::npos) << out;
  EXPECT_NE(out.find("multiprocessors (SMs)"), std::string::npos);
  EXPECT_NE(out.find(": 132\n"), std::string::npos) << out;
  EXPECT_NE(out.find(": 4814.3 GB/s\n"), std::string::npos) << out;
  EXPECT_NE(out.find("x4_vectorized"), std::string::npos);
  EXPECT_EQ(out.find('{'), std::string::npos);  // no JSON in text mode
}

}  // namespace

TEST(Report, AnErrorThatUnwindsAJsonReportPrintsNoHalfDocument) {
  for (bool json : {true, false}) {
    std::FILE* f = std::tmpfile();
    try {
      Report r("lab", json, f);
      r.field("device", "device", "H200");
      throw std::runtime_error("bad input found after the report opened");
    } catch (const std::runtime_error&) {
    }
    const std::string out = read_back(f);
    if (json) {
      EXPECT_EQ(out, "");  // no document: the caller's one line on stderr says why
    } else {
      EXPECT_NE(out.find("H200"), std::string::npos);  // text was printed as it came
    }
  }
  // a report made and finished inside a handler (an exception already in flight) still prints
  try {
    throw std::runtime_error("outer");
  } catch (const std::runtime_error&) {
    EXPECT_NE(render(true, [](Report& r) { r.field("n", "n", 1LL); }).find("\"n\": 1"), std::string::npos);
  }
}
