// `fp4gemm plan --measure`'s rank path on a GPU, through the real launcher (forked rank, NCCL
// loaded with dlopen, CUDA events): world size 1, a tiny MoE layer on the auto backend, and a
// hand-made job with every kind of collective step (all-reduce, all-gather, all-to-all and the
// stage send, each onto the one GPU). Checks that the GEMM outputs were finite and not all zero,
// that every time is positive, and that the prediction can be made from what came back. Skips with
// a message where there is no GPU. NCCL must be found: on the GPU machines set
// FP4GEMM_NCCL_LIBRARY to the wheel's lib/libnccl.so.2 (README).
#include <gtest/gtest.h>

#include <string>

#include "cluster/layer_measure.hpp"
#include "cluster/rank_launcher.hpp"
#include "model/tiny_mixtral.hpp"

namespace fp4gemm {
namespace {


// One GEMM, then each collective over the one GPU.
LayerCase every_collective() {
  RankJob job;
  job.plan = {1, 1, 1};
  job.tokens = 2;
  job.gpu_tokens = 2;
  LayerStep gemm{LayerStepKind::gemm, "gemm"};
  gemm.n = 256;
  gemm.k = 512;  // the tiny model's K are 64 and 128: another shape
  gemm.m = {2, 3};
  job.steps.push_back(gemm);
  LayerStep all_reduce{LayerStepKind::all_reduce, "all-reduce"};
  all_reduce.bytes = 4096;
  job.steps.push_back(all_reduce);
  LayerStep all_gather{LayerStepKind::all_gather, "all-gather"};
  all_gather.bytes = 4096;
  job.steps.push_back(all_gather);
  LayerStep all_to_all{LayerStepKind::all_to_all, "dispatch", 0, 0, true, {}, RankGroup::stage};
  all_to_all.send_bytes = {8192};
  all_to_all.receive_bytes = {8192};
  job.steps.push_back(all_to_all);
  LayerStep send{LayerStepKind::stage_send, "stage send"};
  send.bytes = 2048;
  send.send_to = 0;
  send.receive_from = 0;
  job.steps.push_back(send);
  return LayerCase{{job}};
}

TEST(PlanMeasureGpu, WorldSizeOneRunsTheLayerAndEveryCollective) {
  std::string why_none;
  if (count_gpus_in_child(why_none) == 0) GTEST_SKIP() << "no CUDA device: " << why_none;
  const ModelConfig model = test::tiny_mixtral();
  Workload work;
  std::vector<LayerCase> cases = {every_collective()};
  const std::vector<ParallelPlan> plans = {{1, 1, 1}};
  const std::vector<std::int64_t> batches = {4, 64};
  for (LayerCase& c : layer_cases(model, plans, batches, work)) cases.push_back(std::move(c));

  MeasureSettings settings;
  settings.sweep.gpus = 1;
  settings.sweep.min_bytes = 1024;
  settings.sweep.max_bytes = 16384;
  settings.sweep.iters = settings.iters = 3;
  settings.sweep.warmup = settings.warmup = 1;
  settings.sweep.timeout_seconds = 120;
  const std::vector<RankReport> reports = measure_layers(settings, cases, 1);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_FALSE(reports[0].device.empty());
  ASSERT_EQ(reports[0].sweep.size(), 10u);  // 1..16 KiB of each op
  for (const CollectiveMeasurement& m : reports[0].sweep) EXPECT_TRUE(m.correct);
  ASSERT_EQ(reports[0].cases.size(), cases.size());

  for (std::size_t c = 0; c < cases.size(); ++c) {
    const RankJob& job = cases[c].job(0);
    SCOPED_TRACE("case " + std::to_string(c) + ": batch " + std::to_string(job.tokens));
    const RankCaseReport& r = reports[0].cases[c];
    ASSERT_EQ(r.steps.size(), job.steps.size());
    for (std::size_t s = 0; s < job.steps.size(); ++s) {
      SCOPED_TRACE(job.steps[s].name);
      EXPECT_TRUE(r.steps[s].outputs_ok);  // finite, not all zero
      if (job.steps[s].kind == LayerStepKind::gemm && job.steps[s].m.empty()) continue;
      EXPECT_GT(r.steps[s].seconds, 0.0);
      if (job.steps[s].kind == LayerStepKind::gemm) {
        EXPECT_FALSE(r.steps[s].kernel.empty());
      }
    }
    EXPECT_FALSE(r.isolated.empty());
    for (const IsolatedGemm& g : r.isolated) EXPECT_GT(g.seconds, 0.0);
    const LayerMeasurement m = merge_layer(cases[c], reports, c);
    EXPECT_TRUE(m.outputs_ok);
    EXPECT_GT(m.gemm_s, 0.0);
    if (c == 0) {
      EXPECT_GT(m.comm_s, 0.0);
      EXPECT_GT(m.send_s, 0.0);
      continue;
    }
    // The model's own layer: its prediction from the GEMMs timed alone (no collective at tp1).
    const GemmTimeTable isolated = isolated_gemm_times(reports, c);
    Workload w = work;
    w.tokens = job.tokens;
    const LayerEstimate e = estimate_layer(model, job.plan, w, links().front(), std::cref(isolated), 0);
    EXPECT_GT(e.gemm_s, 0.0);
    EXPECT_EQ(e.comm_s, 0.0);
  }
}

}  // namespace
}  // namespace fp4gemm
