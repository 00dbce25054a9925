// The timing fields of schema fp4gemm.bench/3 through JSON, CSV, the table and its notes, and
// compare reading them back (and /2 files, which were timed "stream hot").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/bench_compare.hpp"
#include "report/bench_report.hpp"

namespace fp4gemm {
namespace {

using ::testing::HasSubstr;

BenchRow graph_cold_row() {
  BenchRow r;
  r.backend = "cuda-decode";
  r.bench_case.problem = {{1, 6144, 6144}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
  r.bytes = 21.2e6;
  r.ran = true;
  r.timing.median_s = r.timing.p10_s = r.timing.p90_s = 5e-6;
  r.timing.method = TimingMethod::graph;
  r.timing.timer = "cuda-events";
  r.timing.cache = CacheState::cold;
  r.timing.rotations = 8;
  r.timing.calls_per_sample = 40;
  r.timing.working_set_bytes = 8 * 21.2e6;
  return r;
}

TEST(BenchTimingReport, JsonCarriesMethodCacheAndRotations) {
  BenchRow stream_row = graph_cold_row();
  stream_row.backend = "cublas-bf16";
  stream_row.timing.method = TimingMethod::stream;
  stream_row.timing.note = "graph capture failed, timed on the stream instead: why";
  stream_row.launch = {true, 2.5e-6};
  BenchContext context;
  context.timing.method = TimingMethod::graph;
  context.timing.cache = CacheState::cold;
  // Written, dumped to text and parsed again: what a file holds.
  const nlohmann::json j = nlohmann::json::parse(bench_json({graph_cold_row(), stream_row}, context).dump());
  EXPECT_EQ(j["schema"], "fp4gemm.bench/3");
  EXPECT_EQ(j["timing"]["method"], "graph");
  EXPECT_EQ(j["timing"]["cache"], "cold");
  const nlohmann::json& g = j["results"][0];
  EXPECT_EQ(g["timing_method"], "graph");
  EXPECT_EQ(g["timer"], "cuda-events");
  EXPECT_EQ(g["cache"], "cold");
  EXPECT_EQ(g["rotations"], 8);
  EXPECT_EQ(g["calls_per_sample"], 40);
  EXPECT_DOUBLE_EQ(g["working_set_bytes"].get<double>(), 8 * 21.2e6);
  EXPECT_DOUBLE_EQ(g["launch_overhead_us"].get<double>(), 0);  // graph replay: none in the time
  EXPECT_EQ(g["timing_note"], "");
  const nlohmann::json& s = j["results"][1];
  EXPECT_EQ(s["timing_method"], "stream");
  EXPECT_DOUBLE_EQ(s["launch_overhead_us"].get<double>(), 2.5);
  EXPECT_EQ(s["timing_note"], "graph capture failed, timed on the stream instead: why");
  // CSV: the same fields as columns.
  const std::string csv = bench_csv({graph_cold_row()});
  EXPECT_THAT(csv, HasSubstr("timer,timing_method,cache,rotations,working_set_bytes,launch_overhead_us,timing_note"));
  EXPECT_THAT(csv, HasSubstr("cuda-events,graph,cold,8,"));
}

TEST(BenchTimingReport, TableShowsTheTimingAndNotesFallbacks) {
  BenchRow fallback = graph_cold_row();
  fallback.timing.method = TimingMethod::stream;
  fallback.timing.note = "graph capture failed, timed on the stream instead: why";
  const std::string table = bench_table({graph_cold_row(), fallback});
  EXPECT_THAT(table, HasSubstr("graph 40x cold R=8"));
  EXPECT_THAT(table, HasSubstr("stream 40x cold R=8"));
  EXPECT_THAT(table, HasSubstr("note: cuda-decode nvfp4 w4a16 1x6144x6144 -> bf16: graph capture failed"));
  TimingOptions single;
  single.method = TimingMethod::single;
  single.cache = CacheState::hot;
  EXPECT_THAT(timing_header(single), HasSubstr("timing: single (one call per sample"));
  EXPECT_THAT(timing_header(single), HasSubstr("cache hot"));
  EXPECT_THAT(timing_header(TimingOptions{}), HasSubstr("timing: graph (CUDA-graph replay, launch overhead out), cache cold"));
}

TEST(BenchTimingReport, CompareReadsSchema3AndNotesOtherTiming) {
  BenchContext context;
  const nlohmann::json graph = nlohmann::json::parse(bench_json({graph_cold_row()}, context).dump());
  // The same row as a /2 file had it: no timing fields (the harness then timed stream, hot).
  nlohmann::json old = graph;
  old["schema"] = "fp4gemm.bench/2";
  for (const char* field : {"timing_method", "cache", "rotations", "working_set_bytes", "launch_overhead_us", "timing_note"})
    old["results"][0].erase(field);
  const std::vector<ComparedRow> same = compare_bench(graph, "OLD", graph, "NEW");
  ASSERT_EQ(same.size(), 1u);
  EXPECT_EQ(same[0].note, "");
  EXPECT_DOUBLE_EQ(same[0].ratio(), 1.0);
  const std::vector<ComparedRow> mixed = compare_bench(old, "OLD", graph, "NEW");
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_EQ(mixed[0].note, "timed differently: stream hot vs graph cold");
  EXPECT_THAT(comparison_table(mixed), HasSubstr("timed differently: stream hot vs graph cold"));
}

}  // namespace
}  // namespace fp4gemm
