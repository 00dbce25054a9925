// The jobs of `plan --measure`'s ranks for GLM-5 at a batch of 16 tokens (balanced routing), every
// number worked out by hand from the preset's config (hidden 6144, 64 heads, q_lora_rank 2048,
// kv_lora_rank 512, qk 192 + 64, v 256, DSA indexer 32 x 128, 256 experts of 2048, top-8, one
// shared expert, layers 0-2 dense), and the refusals.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cluster/layer_job.hpp"
#include "expect_error.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

using ::testing::ElementsAre;
using ::testing::Each;

Workload batch(std::int64_t tokens) {
  Workload w;
  w.tokens = tokens;
  return w;
}

// Step kind, name, N, K per step; M lists and byte counts are checked separately.
struct Expected {
  LayerStepKind kind;
  std::string name;
  std::int64_t n = 0, k = 0;
};

void expect_steps(const RankJob& job, const std::vector<Expected>& expected) {
  ASSERT_EQ(job.steps.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i) + " " + expected[i].name);
    EXPECT_EQ(job.steps[i].kind, expected[i].kind);
    EXPECT_EQ(job.steps[i].name, expected[i].name);
    EXPECT_EQ(job.steps[i].n, expected[i].n);
    EXPECT_EQ(job.steps[i].k, expected[i].k);
  }
}

constexpr auto G = LayerStepKind::gemm;

// The attention of one GPU: q_b N = 64 x 256 / tp, kv_b N = 64 x (192 + 256) / tp, o_proj K =
// 64 x 256 / tp; q_a, kv_a and the indexer replicated.
std::vector<Expected> attention(int tp) {
  return {{G, "q_a_proj", 2048, 6144},           {G, "q_b_proj", 16384 / tp, 2048},
          {G, "kv_a_proj_with_mqa", 576, 6144},  {G, "kv_b_proj", 28672 / tp, 512},
          {G, "indexer.wq_b", 4096, 2048},       {G, "indexer.wk", 128, 6144},
          {G, "indexer.weights_proj", 32, 6144}, {G, "o_proj", 6144, 16384 / tp}};
}

std::vector<Expected> concat(std::vector<Expected> a, const std::vector<Expected>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(LayerJob, Tp8AllReducesAfterAttentionAndAfterTheMlp) {
  // tp8: one micro-batch of 16 tokens, M = 16. Routing: 16 x 8 = 128 picks over 256 experts,
  // balanced: experts 0..127 one token each. Every GPU holds 1/8 of every expert (gate_up N =
  // 2 x 2048 / 8 = 512, down K = 256): 128 calls of M = 1. All-reduces of 16 x 6144 x 2 = 196608 B.
  const RankJob job = rank_job(preset_model("glm5"), {8, 1, 1}, batch(16), 3);
  EXPECT_EQ(job.stage, 0);
  EXPECT_EQ(job.tp_color, 0);
  EXPECT_EQ(job.ep_rank, 0);
  EXPECT_EQ(job.layer, 3);  // the first MoE layer
  EXPECT_EQ(job.mlp, MlpKind::moe);
  EXPECT_EQ(job.gpu_tokens, 16);
  expect_steps(job, concat(concat(attention(8), {{LayerStepKind::all_reduce, "attention all-reduce"}}),
                           {{G, "experts.gate_up_proj", 512, 6144},
                            {G, "experts.down_proj", 6144, 256},
                            {G, "shared_experts.gate_up_proj", 512, 6144},
                            {G, "shared_experts.down_proj", 6144, 256},
                            {LayerStepKind::all_reduce, "MLP all-reduce"}}));
  EXPECT_THAT(job.steps[0].m, ElementsAre(16));
  EXPECT_EQ(job.steps[9].m.size(), 128u);
  EXPECT_THAT(job.steps[9].m, Each(1));
  EXPECT_THAT(job.steps[11].m, ElementsAre(16));
  for (const std::size_t i : {8u, 13u}) {
    EXPECT_EQ(job.steps[i].group, RankGroup::tp);
    EXPECT_EQ(job.steps[i].group_size, 8);
    EXPECT_EQ(job.steps[i].bytes, 196608u);
  }
}

TEST(LayerJob, Tp4Pp2SendsToTheNextStage) {
  // tp4pp2: min(2, 16) = 2 micro-batches of 8 tokens, M = 8; layers 0-38 and 39-77, so stage 1
  // runs layer 39. Routing over 8 tokens: 64 picks, experts 0..63 one token each; each GPU holds
  // 1/4 of every expert (gate_up N = 1024, down K = 512). All-reduces of 8 x 6144 x 2 = 98304 B
  // over 4; the stage send 2 x 8 x 6144 x 2 = 196608 B from rank r of stage 0 to rank r + 4.
  const ModelConfig glm5 = preset_model("glm5");
  const RankJob last = rank_job(glm5, {4, 2, 1}, batch(16), 5);
  EXPECT_EQ(last.stage, 1);
  EXPECT_EQ(last.tp_color, 1);
  EXPECT_EQ(last.layer, 39);
  EXPECT_EQ(last.microbatch_tokens, 8);
  EXPECT_EQ(last.gpu_tokens, 8);
  expect_steps(last, concat(concat(attention(4), {{LayerStepKind::all_reduce, "attention all-reduce"}}),
                            {{G, "experts.gate_up_proj", 1024, 6144},
                             {G, "experts.down_proj", 6144, 512},
                             {G, "shared_experts.gate_up_proj", 1024, 6144},
                             {G, "shared_experts.down_proj", 6144, 512},
                             {LayerStepKind::all_reduce, "MLP all-reduce"},
                             {LayerStepKind::stage_send, "stage send"}}));
  EXPECT_EQ(last.steps[9].m.size(), 64u);
  EXPECT_THAT(last.steps[0].m, ElementsAre(8));
  EXPECT_EQ(last.steps[8].bytes, 98304u);
  EXPECT_EQ(last.steps[8].group_size, 4);
  const LayerStep& received = last.steps.back();
  EXPECT_EQ(received.bytes, 196608u);
  EXPECT_EQ(received.send_to, -1);
  EXPECT_EQ(received.receive_from, 1);

  const RankJob first = rank_job(glm5, {4, 2, 1}, batch(16), 1);
  EXPECT_EQ(first.stage, 0);
  EXPECT_EQ(first.tp_color, 0);
  EXPECT_EQ(first.layer, 3);
  EXPECT_EQ(first.steps.back().send_to, 5);
  EXPECT_EQ(first.steps.back().receive_from, -1);
}

TEST(LayerJob, Ep8DispatchesAndCombinesWithAllToAll) {
  // ep8: attention data-parallel over 8 GPUs, M = ceil(16 / 8) = 2, tp 1 (no all-reduce); 32 whole
  // experts per GPU (gate_up N = 4096, down K = 2048). Experts 0..127 got one token each, so GPUs
  // 0-3 receive R = 32 routed rows and GPUs 4-7 none. Each GPU sends 32 / 8 = 4 rows of
  // 6144 x 2 B = 49152 B to each of GPUs 0-3 and nothing to 4-7; GPU 2 receives 4 rows from every
  // GPU. Combine sends the same rows back.
  const ModelConfig glm5 = preset_model("glm5");
  const RankJob busy = rank_job(glm5, {1, 1, 8}, batch(16), 2);
  EXPECT_EQ(busy.ep_rank, 2);
  EXPECT_EQ(busy.tp_color, 2);
  EXPECT_EQ(busy.gpu_tokens, 2);
  expect_steps(busy, concat(attention(1), {{LayerStepKind::all_to_all, "dispatch"},
                                           {G, "experts.gate_up_proj", 4096, 6144},
                                           {G, "experts.down_proj", 6144, 2048},
                                           {LayerStepKind::all_to_all, "combine"},
                                           {G, "shared_experts.gate_up_proj", 4096, 6144},
                                           {G, "shared_experts.down_proj", 6144, 2048}}));
  const std::uint64_t rows4 = 49152;
  const LayerStep& dispatch = busy.steps[8];
  EXPECT_EQ(dispatch.group, RankGroup::stage);
  EXPECT_EQ(dispatch.group_size, 8);
  EXPECT_THAT(dispatch.send_bytes, ElementsAre(rows4, rows4, rows4, rows4, 0, 0, 0, 0));
  EXPECT_THAT(dispatch.receive_bytes, Each(rows4));
  EXPECT_EQ(busy.steps[9].m.size(), 32u);
  EXPECT_THAT(busy.steps[9].m, Each(1));
  const LayerStep& combine = busy.steps[11];
  EXPECT_EQ(combine.send_bytes, dispatch.receive_bytes);
  EXPECT_EQ(combine.receive_bytes, dispatch.send_bytes);
  EXPECT_THAT(busy.steps[12].m, ElementsAre(2));

  const RankJob idle = rank_job(glm5, {1, 1, 8}, batch(16), 6);
  EXPECT_TRUE(idle.steps[9].m.empty());  // experts 192..223: no token
  EXPECT_THAT(idle.steps[8].send_bytes, ElementsAre(rows4, rows4, rows4, rows4, 0, 0, 0, 0));
  EXPECT_THAT(idle.steps[8].receive_bytes, Each(0u));
}

TEST(LayerJob, WorldSizeOneRunsGemmsAlone) {
  // tp1 (= ep1): every collective would be over one GPU, so none is listed.
  const RankJob job = rank_job(preset_model("glm5"), parse_plan("ep1"), batch(4), 0);
  for (const LayerStep& s : job.steps) EXPECT_EQ(s.kind, LayerStepKind::gemm) << s.name;
  EXPECT_EQ(job.steps.size(), 12u);
  // 4 tokens x 8 = 32 picks: experts 0..31, all on the one GPU, whole (N = 4096).
  EXPECT_EQ(job.steps[8].m.size(), 32u);
  EXPECT_EQ(job.steps[8].n, 4096);
}

TEST(LayerJob, RefusesPlansThatDoNotFitTheRun) {
  test::expect_error<InvalidArgument>([] { require_measurable({8, 1, 1}, 1, 1); }, "tp8 needs 8 GPUs, this host has 1");
  test::expect_error<InvalidArgument>([] { require_measurable({4, 2, 1}, 1, 1); },
                                      "tp4pp2 needs 8 GPUs, this host has 1");
  test::expect_error<InvalidArgument>([] { require_measurable({1, 1, 8}, 2, 4); }, "ep8 needs 8 GPUs, this host has 4");
  test::expect_error<InvalidArgument>([] { require_measurable({1, 1, 1}, 8, 8); },
                                      "tp1 uses 1 GPU, not the 8 of this run (--gpus)");
  EXPECT_NO_THROW(require_measurable({1, 1, 1}, 1, 8));
  test::expect_error<InvalidArgument>([] { rank_job(preset_model("glm5"), {2, 1, 1}, batch(1), 2); },
                                      "rank 2 is not one of the 2 GPUs of tp2");
}

}  // namespace
}  // namespace fp4gemm
