// `plan --measure` on the CPU side: the cases built for every rank, a rank's report through its
// pipe bytes and back, the merge over the ranks (the slowest rank's split) and the isolated GEMM
// times the prediction uses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cluster/layer_measure.hpp"
#include "expect_error.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

using ::testing::ElementsAre;

TEST(LayerMeasure, CasesArePlanMajorWithEveryRanksJob) {
  const std::vector<ParallelPlan> plans = {{2, 1, 1}, {1, 1, 2}};
  const std::vector<std::int64_t> batches = {1, 64};
  const std::vector<LayerCase> cases = layer_cases(preset_model("glm5"), plans, batches, Workload{});
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[1].job(0).plan.tp, 2);
  EXPECT_EQ(cases[1].job(0).tokens, 64);
  EXPECT_EQ(cases[2].job(1).plan.ep, 2);
  EXPECT_EQ(cases[2].job(1).tokens, 1);
  EXPECT_EQ(cases[2].job(1).rank, 1);
  EXPECT_EQ(cases[3].ranks.size(), 2u);
}

TEST(LayerMeasure, ReportsSurviveThePipe) {
  RankReport r;
  r.device = "NVIDIA H200 (PCI 0000:19:00.0)";
  r.sweep = {{CollectiveOp::all_to_all, 1024, 256, 6.25e-6, true}};
  r.cases.push_back({{{1.5e-5, true, "cuda-decode"}, {3.25e-6, false, ""}}, {{{{1, 768, 6144}, true}, 8.5e-6}}});
  const RankReport back = rank_report_from_payload(to_payload(r), 0);
  EXPECT_EQ(back.device, r.device);
  ASSERT_EQ(back.sweep.size(), 1u);
  EXPECT_EQ(back.sweep[0].op, CollectiveOp::all_to_all);
  EXPECT_EQ(back.sweep[0].seconds_per_op, 6.25e-6);
  ASSERT_EQ(back.cases.size(), 1u);
  ASSERT_EQ(back.cases[0].steps.size(), 2u);
  EXPECT_EQ(back.cases[0].steps[0].seconds, 1.5e-5);
  EXPECT_EQ(back.cases[0].steps[0].kernel, "cuda-decode");
  EXPECT_FALSE(back.cases[0].steps[1].outputs_ok);
  ASSERT_EQ(back.cases[0].isolated.size(), 1u);
  EXPECT_EQ(back.cases[0].isolated[0].call.shape, (GemmShape{1, 768, 6144}));
  EXPECT_EQ(back.cases[0].isolated[0].seconds, 8.5e-6);
  test::expect_error<Error>([] { rank_report_from_payload("{\"device\": 1}", 3); },
                            "the report of rank 3 does not parse");
}

// A two-step job per rank: one GEMM and one all-reduce (tp2), plus the stage send under pp.
LayerCase two_rank_case() {
  LayerCase c;
  for (int rank = 0; rank < 2; ++rank) {
    RankJob job;
    job.plan = {1, 2, 1};
    job.rank = rank;
    job.steps.push_back({LayerStepKind::gemm, "o_proj"});
    job.steps.push_back({LayerStepKind::all_reduce, "MLP all-reduce"});
    job.steps.push_back({LayerStepKind::stage_send, "stage send"});
    c.ranks.push_back(job);
  }
  return c;
}

TEST(LayerMeasure, TheSlowestRankSetsTheLayer) {
  // Rank 0: 10 + 5 + 1 = 16 us; rank 1: 12 + 2 + 3 = 17 us: rank 1's split is the layer's.
  std::vector<RankReport> reports(2);
  reports[0].cases.push_back({{{10e-6, true, "k"}, {5e-6, true, ""}, {1e-6, true, ""}}, {}});
  reports[1].cases.push_back({{{12e-6, false, "k"}, {2e-6, true, ""}, {3e-6, true, ""}}, {}});
  const LayerMeasurement m = merge_layer(two_rank_case(), reports, 0);
  EXPECT_EQ(m.slowest_rank, 1);
  EXPECT_DOUBLE_EQ(m.gemm_s, 12e-6);
  EXPECT_DOUBLE_EQ(m.comm_s, 2e-6);
  EXPECT_DOUBLE_EQ(m.send_s, 3e-6);
  EXPECT_DOUBLE_EQ(m.total_s(), 17e-6);
  ASSERT_EQ(m.rank_total_s.size(), 2u);
  EXPECT_DOUBLE_EQ(m.rank_total_s[0], 16e-6);
  EXPECT_FALSE(m.outputs_ok);  // rank 1's GEMM

  reports[1].cases[0].steps.pop_back();
  test::expect_error<Error>([&] { merge_layer(two_rank_case(), reports, 0); }, "rank 1 reported 2 steps");
}

TEST(LayerMeasure, IsolatedTimesTakeTheSlowestRank) {
  std::vector<RankReport> reports(2);
  reports[0].cases.push_back({{}, {{{{1, 768, 6144}, true}, 8e-6}, {{{4, 768, 6144}, true}, 9e-6}}});
  reports[1].cases.push_back({{}, {{{{1, 768, 6144}, true}, 10e-6}}});
  const GemmTimeTable t = isolated_gemm_times(reports, 0);
  EXPECT_EQ(t({{1, 768, 6144}, true}), 10e-6);
  EXPECT_EQ(t({{4, 768, 6144}, true}), 9e-6);
  test::expect_error<InvalidArgument>([&] { t({{1, 768, 6144}, false}); }, "no measured time");
}

}  // namespace
}  // namespace fp4gemm
