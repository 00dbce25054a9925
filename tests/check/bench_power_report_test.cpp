// The power summary in the table, JSON and CSV: present only when some row has one.
#include <gtest/gtest.h>

#include "report/bench_report.hpp"

namespace fp4gemm {
namespace {

BenchRow timed_row(const std::string& backend) {
  BenchRow r;
  r.backend = backend;
  r.bench_case.problem.shape = {16, 6144, 6144};
  r.bytes = 1e7;
  r.ran = true;
  r.timing.median_s = r.timing.p10_s = r.timing.p90_s = 20e-6;
  return r;
}

TEST(BenchPowerReport, AbsentWithoutSummaries) {
  const std::vector<BenchRow> rows{timed_row("cpu-fast")};
  EXPECT_EQ(bench_table(rows).find("power"), std::string::npos);
  EXPECT_EQ(bench_csv(rows).find("power"), std::string::npos);
  EXPECT_FALSE(bench_json(rows, {})["results"][0].contains("power"));
}

TEST(BenchPowerReport, PresentWhereMeasured) {
  std::vector<BenchRow> rows{timed_row("cuda-decode"), timed_row("cpu-fast")};
  const std::vector<PowerSample> samples{{600, 1980, 3200, 55}, {640, 1400, 3200, 61}};
  rows[0].power = summarize_power(samples, 700, 1980);
  const std::string table = bench_table(rows);
  EXPECT_NE(table.find("power"), std::string::npos);
  EXPECT_NE(table.find("620 W / 700 W, SM 1690 MHz, mem 3200 MHz, 61 C, throttled 50%"),
            std::string::npos);
  const nlohmann::json j = bench_json(rows, {});
  ASSERT_TRUE(j["results"][0].contains("power"));
  EXPECT_DOUBLE_EQ(j["results"][0]["power"]["mean_w"].get<double>(), 620);
  EXPECT_DOUBLE_EQ(j["results"][0]["power"]["throttle_share"].get<double>(), 0.5);
  EXPECT_EQ(j["results"][0]["power"]["samples"].get<int>(), 2);
  EXPECT_FALSE(j["results"][1].contains("power"));
  // CSV: the same columns on every line, empty cells where not measured.
  const std::string csv = bench_csv(rows);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",power_mean_w,power_limit_w,"), std::string::npos);
  std::size_t commas[3] = {0, 0, 0};
  std::size_t line = 0;
  for (char c : csv) {
    if (c == '\n') ++line;
    else if (c == ',' && line < 3) ++commas[line];
  }
  EXPECT_EQ(commas[0], commas[1]);
  EXPECT_EQ(commas[0], commas[2]);
  EXPECT_NE(csv.find(",,,,,,,,\n"), std::string::npos);  // 8 empty power cells
}

}  // namespace
}  // namespace fp4gemm
