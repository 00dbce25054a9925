// auto's choice in bench output: the --explain text (kernel, table row, each refusal, the launch
// plan), the "dispatch" object of JSON rows and the dispatch_* CSV columns, present only on rows
// that have one; every row's "plan"; and `compare` reading a file with the field against an older
// one without it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/bench_compare.hpp"
#include "report/bench_report.hpp"
#include "report/dispatch_report.hpp"

namespace fp4gemm {
namespace {

using testing::HasSubstr;

BenchRow row_of(const std::string& backend, std::int64_t m, std::int64_t k) {
  BenchRow r;
  r.backend = backend;
  r.bench_case.problem = {{m, 768, k}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
  r.bytes = 1e7;
  r.ran = true;
  r.timing.median_s = r.timing.p10_s = r.timing.p90_s = 20e-6;
  return r;
}

// An auto row that fell from cuda-wgmma to cuda-mma, and a cuda-mma row without a dispatch.
std::vector<BenchRow> fallback_rows() {
  std::vector<BenchRow> rows{row_of("auto", 256, 48), row_of("cuda-mma", 256, 48)};
  rows[0].dispatch = Dispatch{"sm_90, M >= 128: cuda-wgmma (unmeasured: first H200 numbers pending)",
                              {{"cuda-wgmma", "K = 48: rows of B must be 16-byte aligned for TMA"}},
                              "cuda-mma"};
  return rows;
}

TEST(BenchDispatchReport, ExplainNamesKernelRowAndRefusals) {
  EXPECT_EQ(explain_dispatch(fallback_rows()),
            "auto nvfp4 w4a16 256x768x48 -> bf16: cuda-mma\n"
            "  table row: sm_90, M >= 128: cuda-wgmma (unmeasured: first H200 numbers pending)\n"
            "  refused cuda-wgmma: K = 48: rows of B must be 16-byte aligned for TMA\n");
  std::vector<BenchRow> none = fallback_rows();
  none[0].dispatch->chosen.clear();
  EXPECT_THAT(explain_dispatch(none), HasSubstr("256x768x48 -> bf16: no kernel takes it\n"));
  EXPECT_EQ(explain_dispatch({row_of("cuda-mma", 1, 64)}), "");
  // The kernel's launch plan, where the run told one (GemmRun::plan), closes the row's lines.
  std::vector<BenchRow> planned = fallback_rows();
  planned[0].plan = "128x128x64, 4 stages, 256 threads, split-K 2 (12 CTAs)";
  EXPECT_THAT(explain_dispatch(planned),
              HasSubstr("  refused cuda-wgmma: K = 48: rows of B must be 16-byte aligned for TMA\n"
                        "  plan: 128x128x64, 4 stages, 256 threads, split-K 2 (12 CTAs)\n"));
}

// Every row carries its plan in JSON and CSV (empty where none was told); CSV quotes its commas.
TEST(BenchDispatchReport, RowsCarryTheirLaunchPlan) {
  std::vector<BenchRow> rows = fallback_rows();
  rows[1].plan = "128x128x64, 4 stages";
  const nlohmann::json j = nlohmann::json::parse(bench_json(rows, BenchContext{}).dump());
  EXPECT_EQ(j["results"][0]["plan"], "");
  EXPECT_EQ(j["results"][1]["plan"], "128x128x64, 4 stages");
  EXPECT_THAT(bench_csv(rows), HasSubstr(",\"128x128x64, 4 stages\","));
}

TEST(BenchDispatchReport, JsonCarriesTheDispatchOnItsRowsOnly) {
  const nlohmann::json j = bench_json(fallback_rows(), {});
  const nlohmann::json& d = j["results"][0]["dispatch"];
  EXPECT_EQ(d["kernel"], "cuda-mma");
  EXPECT_THAT(d["rule"].get<std::string>(), HasSubstr("M >= 128: cuda-wgmma"));
  ASSERT_EQ(d["refused"].size(), 1u);
  EXPECT_EQ(d["refused"][0]["backend"], "cuda-wgmma");
  EXPECT_THAT(d["refused"][0]["reason"].get<std::string>(), HasSubstr("K = 48"));
  EXPECT_FALSE(j["results"][1].contains("dispatch"));
  EXPECT_EQ(j["schema"], "fp4gemm.bench/3");
}

TEST(BenchDispatchReport, CsvColumnsOnEveryLineWhenSomeRowHasOne) {
  const std::string csv = bench_csv(fallback_rows());
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_THAT(header, HasSubstr(",dispatch_kernel,dispatch_rule,dispatch_refused"));
  EXPECT_THAT(csv, HasSubstr(",cuda-mma,\"sm_90, M >= 128"));
  EXPECT_THAT(csv, HasSubstr("\"[{\"\"backend\"\":\"\"cuda-wgmma\"\""));
  EXPECT_THAT(csv, HasSubstr(",,,\n"));  // the cuda-mma row: three empty dispatch cells
  EXPECT_THAT(bench_csv({row_of("cuda-mma", 1, 64)}), testing::Not(HasSubstr("dispatch")));
}

// A file with dispatch objects compares with one written before the field existed.
TEST(BenchDispatchReport, CompareReadsFilesWithAndWithoutIt) {
  nlohmann::json old_doc = bench_json(fallback_rows(), {});
  for (auto& r : old_doc["results"]) r.erase("dispatch");
  const nlohmann::json new_doc = bench_json(fallback_rows(), {});
  const std::vector<ComparedRow> rows = compare_bench(old_doc, "OLD", new_doc, "NEW");
  ASSERT_EQ(rows.size(), 2u);
  for (const ComparedRow& r : rows) {
    EXPECT_EQ(r.note, "") << r.key;
    EXPECT_EQ(r.change(), Change::within_noise) << r.key;
  }
}

}  // namespace
}  // namespace fp4gemm
