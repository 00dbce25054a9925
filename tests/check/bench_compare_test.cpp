// `fp4gemm compare`: the noise rule on synthetic intervals, row matching, and bad documents.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "fp4gemm/error.hpp"
#include "report/bench_compare.hpp"

namespace fp4gemm {
namespace {

using nlohmann::json;

TEST(CompareNoiseRule, FlagsOnlyApartIntervalsBeyondFivePercent) {
  const TimedResult old_r{10.0, 9.5, 10.5};
  // Apart and 20% slower / faster.
  EXPECT_EQ(classify_change(old_r, {12.0, 11.8, 12.2}), Change::slower);
  EXPECT_EQ(classify_change(old_r, {8.0, 7.8, 8.2}), Change::faster);
  // 20% slower but the intervals overlap: noise.
  EXPECT_EQ(classify_change(old_r, {12.0, 10.4, 13.0}), Change::within_noise);
  // Intervals apart but the ratio within 0.95-1.05: not flagged.
  EXPECT_EQ(classify_change({10.0, 9.9, 10.1}, {10.4, 10.3, 10.5}), Change::within_noise);
  EXPECT_EQ(classify_change({10.0, 9.9, 10.1}, {9.6, 9.5, 9.7}), Change::within_noise);
}

json row(const std::string& backend, std::int64_t m, double median, bool ran = true) {
  return {{"backend", backend}, {"m", m}, {"n", 768}, {"k", 6144}, {"format", "nvfp4"},
          {"mode", "w4a16"}, {"scale_layout", "linear"}, {"out_dtype", "bf16"}, {"ran", ran},
          {"median_us", median}, {"p10_us", median * 0.99}, {"p90_us", median * 1.01}};
}

json bench_doc(std::vector<json> rows) {
  return {{"schema", "fp4gemm.bench/2"}, {"results", rows}};
}

TEST(CompareBench, MatchesRowsByConfigurationAndFlags) {
  const json old_doc = bench_doc({row("cuda-mma", 1, 30), row("cuda-mma", 16, 30), row("cublas-bf16", 1, 25),
                                  row("cpu-fast", 1, 100, false)});
  const json new_doc = bench_doc({row("cuda-mma", 16, 30.5), row("cuda-mma", 1, 10), row("cpu-fast", 1, 90),
                                  row("cuda-mma", 256, 50)});
  const std::vector<ComparedRow> rows = compare_bench(old_doc, "OLD 'a'", new_doc, "NEW 'b'");
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[0].key, "cuda-mma 1x768x6144 nvfp4 w4a16 linear -> bf16");
  EXPECT_DOUBLE_EQ(rows[0].ratio(), 10.0 / 30.0);
  EXPECT_EQ(rows[0].change(), Change::faster);
  EXPECT_EQ(rows[1].change(), Change::within_noise);  // 30 -> 30.5: intervals overlap
  EXPECT_EQ(rows[2].note, "only in OLD");
  EXPECT_FALSE(rows[2].new_result);
  EXPECT_EQ(rows[3].note, "not run in OLD");
  EXPECT_EQ(rows[3].change(), Change::within_noise);
  EXPECT_EQ(rows[4].key, "cuda-mma 256x768x6144 nvfp4 w4a16 linear -> bf16");
  EXPECT_EQ(rows[4].note, "only in NEW");
  const std::string table = comparison_table(rows);
  EXPECT_NE(table.find("FASTER"), std::string::npos);
  EXPECT_NE(table.find("5 row(s) compared: 0 slower, 1 faster"), std::string::npos);
}

TEST(CompareBench, RejectsDocumentsThatAreNotBenchFiles) {
  const json good = bench_doc({row("cuda-mma", 1, 30)});
  test::expect_error<InvalidArgument>([&] { compare_bench(json{{"a", 1}}, "OLD 'x.json'", good, "NEW"); },
                                      "OLD 'x.json' is not an fp4gemm bench JSON file");
  test::expect_error<InvalidArgument>(
      [&] { compare_bench(good, "OLD", json{{"schema", "fp4gemm.bench/2"}}, "NEW 'y.json'"); },
      "NEW 'y.json' has no \"results\" array");
  json missing = row("cuda-mma", 1, 30);
  missing.erase("p90_us");
  test::expect_error<InvalidArgument>([&] { compare_bench(good, "OLD", bench_doc({missing}), "NEW 'y.json'"); },
                                      "NEW 'y.json': results[0] is not a bench row");
  test::expect_error<InvalidArgument>(
      [&] { compare_bench(bench_doc({row("a", 1, 1), row("a", 1, 2)}), "OLD 'x.json'", good, "NEW"); },
      "OLD 'x.json': results[1] repeats the row of results[0]");
}

}  // namespace
}  // namespace fp4gemm
