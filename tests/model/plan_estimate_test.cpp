// Plan arithmetic on small models, every number worked out by hand in the comments.
#include <numeric>

#include <gtest/gtest.h>

#include "model/tiny_mixtral.hpp"

#include "fp4gemm/error.hpp"
#include "fp4gemm/plan_estimate.hpp"

namespace fp4gemm {
namespace {

// hidden 64, 4 heads of 16, 2 K/V heads, FFN 128, 4 layers, vocab 1000.
ModelConfig tiny_llama() {
  return parse_model_config(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
      "num_key_value_heads": 2, "intermediate_size": 128, "num_hidden_layers": 4, "vocab_size": 1000})",
                            "tiny llama");
}

// The same attention, 2 layers, 4 experts of 128, top-2.
using test::tiny_mixtral;

// 1 GB/s, 1 us per ring step, no base latency: all-reduce of 1024 B on 2 GPUs =
// 2 * 1 us + 2 * 1/2 * 1024 B / 1 GB/s = 3.024 us; a 1024 B send = 1 us + 1.024 us.
const Link kLink{"test", "test link", 1e9, 1e-6, 0.0, "test"};

// 1 ps per multiply-add: M x N x K = 32768 costs 32.768 ns.
double mnk_timer(const GemmCall& c) { return 1e-12 * double(c.shape.m * c.shape.n * c.shape.k); }

constexpr double kTol = 1e-15;  // seconds

TEST(PlanEstimate, TensorParallelIsCommunicationBound) {
  // tp2, T = 8, M = 8. Per layer: qkv N = (2 + 2*1) * 16 = 64, K = 64 -> 32768; o_proj 64 x 32
  // -> 16384; gate_up 128 x 64 -> 65536; down 64 x 64 -> 32768; 147456 per layer, 589824 for 4.
  // lm_head 500 x 64 -> 256000. GEMM 845824 ps. Two all-reduces of 8*64*2 = 1024 B per layer:
  // 8 * 3.024 us = 24.192 us.
  Workload w;
  w.tokens = 8;
  const PlanEstimate e = estimate_plan(tiny_llama(), {2, 1, 1}, w, kLink, mnk_timer);
  EXPECT_EQ(e.microbatches, 1);
  ASSERT_EQ(e.stages.size(), 1u);
  EXPECT_NEAR(e.gemm_s, 845824e-12, kTol);
  EXPECT_NEAR(e.comm_s, 24.192e-6, kTol);
  EXPECT_NEAR(e.forward_s, 25.037824e-6, kTol);
  EXPECT_NEAR(e.bubble_s, 0, kTol);
  EXPECT_FALSE(e.compute_bound());
}

TEST(PlanEstimate, PipelineCountsTheBubble) {
  // tp1pp2, T = 8: m = 2 micro-batches of 4; stage 0 = layers 0-1, stage 1 = layers 2-3 + lm_head.
  // Per layer at M = 4: qkv (4 + 2*2) * 16 = 128 x 64 -> 32768; o 64 x 64 -> 16384; gate_up 256 x 64
  // -> 65536; down 64 x 128 -> 32768; 147456. Stage 0: 294912 ps GEMM + a send of
  // 2 * 4 * 64 * 2 = 1024 B (2.024 us) = 2.318912 us. Stage 1: 294912 + lm_head 4 * 1000 * 64 =
  // 550912 ps. Forward = (2.318912 + 0.550912) + (2 - 1) * 2.318912 = 5.188736 us;
  // bubble = 5.188736 - 2 * 2.318912 = 0.550912 us.
  Workload w;
  w.tokens = 8;
  const PlanEstimate e = estimate_plan(tiny_llama(), {1, 2, 1}, w, kLink, mnk_timer);
  EXPECT_EQ(e.microbatches, 2);
  EXPECT_EQ(e.microbatch_tokens, 4);
  ASSERT_EQ(e.stages.size(), 2u);
  EXPECT_NEAR(e.stages[0].gemm_s, 294912e-12, kTol);
  EXPECT_NEAR(e.stages[0].comm_s, 2.024e-6, kTol);
  EXPECT_NEAR(e.stages[1].gemm_s, 550912e-12, kTol);
  EXPECT_NEAR(e.stages[1].comm_s, 0, kTol);
  EXPECT_EQ(e.bottleneck_stage, 0);
  EXPECT_NEAR(e.forward_s, 5.188736e-6, kTol);
  EXPECT_NEAR(e.bubble_s, 0.550912e-6, kTol);
  EXPECT_NEAR(e.gemm_s, 2 * 294912e-12, kTol);
  EXPECT_NEAR(e.comm_s, 2 * 2.024e-6, kTol);
}

TEST(PlanEstimate, CompareRanksByThroughputPerGpu) {
  Workload w;
  w.tokens = 8;
  const std::vector<ParallelPlan> plans{{2, 1, 1}, {1, 2, 1}};
  const PlanComparison c = compare_plans(tiny_llama(), plans, w, kLink, mnk_timer);
  ASSERT_EQ(c.ranked.size(), 2u);
  EXPECT_EQ(to_string(c.ranked[0].plan), "tp1pp2");
  // 25.037824 / 5.188736 = 4.8254...
  EXPECT_EQ(c.verdict.rfind("tp1pp2 wins: 4.83x the throughput per GPU of tp2\n", 0), 0u) << c.verdict;
  EXPECT_NE(c.verdict.find("tp2: 2 GPUs, forward 25.0 us"), std::string::npos) << c.verdict;
  EXPECT_NE(c.verdict.find("communication-bound"), std::string::npos) << c.verdict;

  // 10000x slower GEMMs: tp2's 8.46 ms of GEMM dwarf its 24 us of all-reduce.
  const auto slow = [](const GemmCall& call) { return 1e4 * mnk_timer(call); };
  EXPECT_TRUE(estimate_plan(tiny_llama(), {2, 1, 1}, w, kLink, slow).compute_bound());
  EXPECT_THROW(compare_plans(tiny_llama(), {}, w, kLink, mnk_timer), InvalidArgument);
}

TEST(PlanEstimate, ExpertParallelAllToAll) {
  // ep2 = attention data-parallel x 2 (M = 4), 2 whole experts per GPU; balanced routing of 8 x 2
  // over 4 experts gives 4 tokens each. Per layer: qkv 128 x 64 at M 4 -> 32768; o 64 x 64 ->
  // 16384; 2 experts x (gate_up 256 x 64 + down 64 x 128 at M 4) -> 196608; 245760 per layer,
  // 491520 for 2, + lm_head 4 * 1000 * 64 = 747520 ps. Per MoE layer: dispatch and combine, each
  // the busiest GPU's 8 tokens * 64 * 2 B * (2-1)/2 = 512 B -> 1.512 us; 2 layers -> 6.048 us.
  Workload w;
  w.tokens = 8;
  const PlanEstimate ep = estimate_plan(tiny_mixtral(), {1, 1, 2}, w, kLink, mnk_timer);
  EXPECT_NEAR(ep.gemm_s, 747520e-12, kTol);
  EXPECT_NEAR(ep.comm_s, 6.048e-6, kTol);
  // tp2: experts split 2 ways, 4 per GPU at M 4 (128 x 64 and 64 x 64): 196608 per layer again;
  // attention at M 8: 32768 + 16384; lm_head 500 x 64 at M 8: the same 747520 ps. Two
  // all-reduces of 1024 B per layer: 4 * 3.024 = 12.096 us.
  const PlanEstimate tp = estimate_plan(tiny_mixtral(), {2, 1, 1}, w, kLink, mnk_timer);
  EXPECT_NEAR(tp.gemm_s, 747520e-12, kTol);
  EXPECT_NEAR(tp.comm_s, 12.096e-6, kTol);
}

// With shared experts (row-parallel over tp) a MoE layer of tp > 1 and dp > 1 ends with an
// all-reduce over tp, not an all-gather: tp2ep4 on the tiny model (dp 2: 4 tokens per GPU of 8),
// 4 x 64 x 2 B = 512 B over 2 GPUs on kLink (1 us a step): all-gather 1 step + 256 ns, all-reduce
// 2 steps + 512 ns, so 1.256 us more per layer, 2.512 us for the 2 layers.
TEST(PlanEstimate, SharedExpertsReduceOverTpAfterTheCombine) {
  Workload w;
  w.tokens = 8;
  ModelConfig shared = tiny_mixtral();
  shared.moe->shared_experts = 1;
  EXPECT_FALSE(moe_layer_reduces_over_tp(tiny_mixtral()));
  EXPECT_TRUE(moe_layer_reduces_over_tp(shared));
  const double plain = estimate_plan(tiny_mixtral(), {2, 1, 4}, w, kLink, mnk_timer).comm_s;
  EXPECT_NEAR(estimate_plan(shared, {2, 1, 4}, w, kLink, mnk_timer).comm_s - plain, 2.512e-6, 1e-12);
}

TEST(PlanEstimate, OneLayerAsPlanMeasureRunsIt) {
  // The layer of ExpertParallelAllToAll: 245760 ps of GEMM, dispatch + combine 2 * 1.512 us, no
  // send (one stage). Its two layers + lm_head (256000 ps) are the plan's stage.
  Workload w;
  w.tokens = 8;
  const LayerEstimate ep = estimate_layer(tiny_mixtral(), {1, 1, 2}, w, kLink, mnk_timer, 0);
  EXPECT_EQ(ep.stage, 0);
  EXPECT_NEAR(ep.gemm_s, 245760e-12, kTol);
  EXPECT_NEAR(ep.comm_s, 3.024e-6, kTol);
  EXPECT_EQ(ep.send_s, 0);
  const PlanEstimate plan = estimate_plan(tiny_mixtral(), {1, 1, 2}, w, kLink, mnk_timer);
  EXPECT_NEAR(2 * ep.gemm_s + 256000e-12, plan.gemm_s, kTol);
  EXPECT_NEAR(2 * ep.comm_s, plan.comm_s, kTol);
  // tp1pp2 of PipelineCountsTheBubble: a micro-batch of 4 tokens; each stage's layer 147456 ps,
  // no collective (tp 1); stage 0 sends 1024 B (2.024 us), stage 1 none. Its sample layers are
  // its first ones, 0 and 2.
  const LayerEstimate first = estimate_layer(tiny_llama(), {1, 2, 1}, w, kLink, mnk_timer, 0);
  const LayerEstimate last = estimate_layer(tiny_llama(), {1, 2, 1}, w, kLink, mnk_timer, 1);
  EXPECT_NEAR(first.gemm_s, 147456e-12, kTol);
  EXPECT_EQ(first.comm_s, 0);
  EXPECT_NEAR(first.send_s, 2.024e-6, kTol);
  EXPECT_NEAR(last.gemm_s, 147456e-12, kTol);
  EXPECT_EQ(last.send_s, 0);
  EXPECT_EQ(sample_layer(tiny_llama(), {1, 2, 1}, 1).layer, 2);
  EXPECT_THROW(estimate_layer(tiny_llama(), {1, 2, 1}, w, kLink, mnk_timer, 2), InvalidArgument);
}

TEST(PlanEstimate, SlowestExpertGpuSetsTheStage) {
  // Uniform routing: GPU 0 holds experts 0-1, GPU 1 experts 2-3. Each routed token costs
  // 256*64 + 64*128 = 24576 ps per layer; attention and lm_head as in ExpertParallelAllToAll.
  Workload w;
  w.tokens = 64;
  w.routing = {RoutingKind::uniform, 1.0, 3};
  const std::vector<std::int64_t> counts = route_tokens(64, 2, 4, w.routing);
  const std::int64_t busiest = std::max(counts[0] + counts[1], counts[2] + counts[3]);
  ASSERT_NE(counts[0] + counts[1], counts[2] + counts[3]);  // the seed gives an imbalance to find
  const double tokens_ps = 2.0 * 32 * (128 * 64 + 64 * 64) + 32.0 * 1000 * 64;  // M = 64 / 2
  const PlanEstimate e = estimate_plan(tiny_mixtral(), {1, 1, 2}, w, kLink, mnk_timer);
  EXPECT_NEAR(e.gemm_s, (tokens_ps + 2.0 * double(busiest) * 24576) * 1e-12, kTol);
}

TEST(PlanEstimate, MtpPassesAddTheMtpLayer) {
  // Each GEMM call costs 1 us. GLM-5 tp8, T = 256, balanced: every expert gets 8 tokens. The MTP
  // layer has 12 token GEMMs (eh_proj, 5 MLA, 3 indexer, 2 shared expert, shared_head.head) and
  // 256 experts x 2 routed GEMMs: 524 calls per pass.
  Workload w;
  w.tokens = 256;
  const auto per_call = [](const GemmCall&) { return 1e-6; };
  const ModelConfig glm5 = preset_model("glm5");
  const PlanEstimate without = estimate_plan(glm5, {8, 1, 1}, w, links().front(), per_call);
  w.mtp_passes = 1;
  const PlanEstimate with = estimate_plan(glm5, {8, 1, 1}, w, links().front(), per_call);
  EXPECT_NEAR(with.gemm_s - without.gemm_s, 524e-6, 1e-12);
  EXPECT_GT(with.comm_s, without.comm_s);
}

TEST(PlanEstimate, RequiredCallsAndTimeTable) {
  // tiny llama tp2, T = 8: qkv and down are both 8 x 64 x 64; o_proj 8 x 64 x 32; gate_up
  // 8 x 128 x 64 (all FP4 under the default list); lm_head 8 x 500 x 64 in bf16.
  Workload w;
  w.tokens = 8;
  const std::vector<GemmCall> calls = required_gemm_calls(tiny_llama(), {2, 1, 1}, w);
  ASSERT_EQ(calls.size(), 4u);
  GemmTimeTable table;
  for (const GemmCall& c : calls) table.set(c, mnk_timer(c));
  EXPECT_NEAR(estimate_plan(tiny_llama(), {2, 1, 1}, w, kLink, std::cref(table)).forward_s, 25.037824e-6, kTol);
  try {
    estimate_plan(tiny_llama(), {1, 1, 1}, w, kLink, std::cref(table));
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("no measured time for the fp4 GEMM M x N x K = 8x"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(table.set({{1, 1, 16}, true}, -1.0), InvalidArgument);
}

TEST(PlanEstimate, BadWorkloads) {
  Workload w;
  w.tokens = 0;
  EXPECT_THROW(estimate_plan(tiny_llama(), {1, 1, 1}, w, kLink, mnk_timer), InvalidArgument);
  w.tokens = 4;
  w.microbatches = 5;
  EXPECT_THROW(estimate_plan(tiny_llama(), {1, 2, 1}, w, kLink, mnk_timer), InvalidArgument);
  w.microbatches = 0;
  const auto negative = [](const GemmCall&) { return -1.0; };
  EXPECT_THROW(estimate_plan(tiny_llama(), {1, 1, 1}, w, kLink, negative), InvalidArgument);
  EXPECT_THROW(estimate_plan(tiny_llama(), {3, 1, 1}, w, kLink, mnk_timer), InvalidArgument);  // 4 heads
}

TEST(Links, TableAndCollectives) {
  EXPECT_EQ(find_link("pcie5").bytes_per_second, 63.0e9);
  EXPECT_THROW(find_link("infiniband"), InvalidArgument);
  // Ring all-reduce on 8 GPUs: 2 * 7 steps and 2 * 7/8 of the bytes.
  const Link& nv = find_link("nvlink4");
  EXPECT_DOUBLE_EQ(all_reduce_seconds(nv, 8, 450e9), nv.base_latency_s + 14 * nv.step_latency_s + 1.75);
  EXPECT_DOUBLE_EQ(all_gather_seconds(nv, 4, 450e9), nv.base_latency_s + 3 * nv.step_latency_s + 0.75);
  EXPECT_EQ(all_reduce_seconds(nv, 1, 1e9), 0.0);
  EXPECT_EQ(all_to_all_seconds(nv, 1, 1e9), 0.0);
}

}  // namespace
}  // namespace fp4gemm
