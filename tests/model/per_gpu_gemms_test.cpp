// Per-GPU GEMM lists checked by hand against the configs (numbers worked out in the comments).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fp4gemm/error.hpp"
#include "fp4gemm/parallel.hpp"
#include "model_test_support.hpp"

namespace fp4gemm {
namespace {

using test::row;

void expect_gemm(const GemmEntry& e, std::int64_t n, std::int64_t k, int count, int layers, bool fp4,
                 std::string_view sharding) {
  SCOPED_TRACE(e.name);
  EXPECT_EQ(e.n, n);
  EXPECT_EQ(e.k, k);
  EXPECT_EQ(e.per_layer_count, count);
  EXPECT_EQ(e.layers, layers);
  EXPECT_EQ(e.fp4, fp4);
  EXPECT_EQ(e.sharding(), sharding);
}

// GLM-5: hidden 6144, 64 heads, q_lora 2048, kv_lora 512, qk 192+64, v 256; indexer 32 x 128;
// FFN 12288 (layers 0-2); 256 experts of 2048 + 1 shared (layers 3-77); MTP layer 78;
// vocab 154880. fp4 per nvidia/GLM-5-NVFP4 (attention, indexer, layer 78, lm_head excluded).
TEST(PerGpuGemms, Glm5Tp1) {
  const std::vector<Stage> stages = per_gpu_gemms(preset_model("glm5"), {1, 1, 1});
  ASSERT_EQ(stages.size(), 1u);
  const Stage& s = stages[0];
  EXPECT_EQ(s.first_layer, 0);
  EXPECT_EQ(s.end_layer, 78);
  EXPECT_EQ(s.dense_layers, 3);
  EXPECT_EQ(s.moe_layers, 75);
  EXPECT_EQ(s.mtp_layers, 1);
  EXPECT_TRUE(s.lm_head);
  expect_gemm(row(s, "q_a_proj"), 2048, 6144, 1, 78, false, "replicated");
  expect_gemm(row(s, "q_b_proj"), 64 * 256, 2048, 1, 78, false, "column/1");
  expect_gemm(row(s, "kv_a_proj_with_mqa"), 512 + 64, 6144, 1, 78, false, "replicated");
  expect_gemm(row(s, "kv_b_proj"), 64 * (192 + 256), 512, 1, 78, false, "column/1");
  expect_gemm(row(s, "indexer.wq_b"), 32 * 128, 2048, 1, 78, false, "replicated");
  expect_gemm(row(s, "indexer.wk"), 128, 6144, 1, 78, false, "replicated");
  expect_gemm(row(s, "indexer.weights_proj"), 32, 6144, 1, 78, false, "replicated");
  expect_gemm(row(s, "o_proj"), 6144, 64 * 256, 1, 78, false, "row/1");
  expect_gemm(row(s, "gate_up_proj"), 2 * 12288, 6144, 1, 3, true, "column/1");
  expect_gemm(row(s, "down_proj"), 6144, 12288, 1, 3, true, "row/1");
  expect_gemm(row(s, "experts.gate_up_proj"), 2 * 2048, 6144, 256, 75, true, "column/1");
  expect_gemm(row(s, "experts.down_proj"), 6144, 2048, 256, 75, true, "row/1");
  expect_gemm(row(s, "shared_experts.gate_up_proj"), 4096, 6144, 1, 75, true, "column/1");
  expect_gemm(row(s, "shared_experts.down_proj"), 6144, 2048, 1, 75, true, "row/1");
  expect_gemm(row(s, "eh_proj", true), 6144, 2 * 6144, 1, 1, false, "replicated");
  expect_gemm(row(s, "experts.gate_up_proj", true), 4096, 6144, 256, 1, false, "column/1");
  expect_gemm(row(s, "indexer.wq_b", true), 4096, 2048, 1, 1, false, "replicated");
  expect_gemm(row(s, "shared_head.head", true), 154880, 6144, 1, 1, false, "column/1");
  expect_gemm(row(s, "lm_head"), 154880, 6144, 1, 1, false, "column/1");
  EXPECT_EQ(s.gemms.size(), 29u);  // 14 decoder rows, 14 MTP rows, lm_head
  EXPECT_EQ(row(s, "experts.gate_up_proj").m_source, MSource::routed_tokens);
  EXPECT_EQ(row(s, "shared_experts.gate_up_proj").m_source, MSource::tokens);
  EXPECT_EQ(row(s, "experts.gate_up_proj").modules, "model.layers.*.mlp.experts.*.gate_proj+up_proj");
  EXPECT_EQ(row(s, "eh_proj", true).modules, "model.layers.78.eh_proj");
  EXPECT_EQ(s.gemms.front().name, "q_a_proj");
  EXPECT_EQ(s.gemms.back().name, "lm_head");
}

// TP8: column-parallel N / 8, row-parallel K / 8; each expert's 2048 split 8 ways.
TEST(PerGpuGemms, Glm5Tp8) {
  const Stage s = per_gpu_gemms(preset_model("glm5"), {8, 1, 1}).at(0);
  expect_gemm(row(s, "q_a_proj"), 2048, 6144, 1, 78, false, "replicated");
  expect_gemm(row(s, "q_b_proj"), 16384 / 8, 2048, 1, 78, false, "column/8");
  expect_gemm(row(s, "kv_b_proj"), 28672 / 8, 512, 1, 78, false, "column/8");
  expect_gemm(row(s, "o_proj"), 6144, 16384 / 8, 1, 78, false, "row/8");
  expect_gemm(row(s, "indexer.wq_b"), 4096, 2048, 1, 78, false, "replicated");
  expect_gemm(row(s, "gate_up_proj"), 24576 / 8, 6144, 1, 3, true, "column/8");
  expect_gemm(row(s, "down_proj"), 6144, 12288 / 8, 1, 3, true, "row/8");
  expect_gemm(row(s, "experts.gate_up_proj"), 4096 / 8, 6144, 256, 75, true, "column/8");
  expect_gemm(row(s, "experts.down_proj"), 6144, 2048 / 8, 256, 75, true, "row/8");
  expect_gemm(row(s, "shared_experts.gate_up_proj"), 512, 6144, 1, 75, true, "column/8");
  expect_gemm(row(s, "shared_experts.down_proj"), 6144, 256, 1, 75, true, "row/8");
  expect_gemm(row(s, "lm_head"), 154880 / 8, 6144, 1, 1, false, "column/8");
}

// EP: whole experts, 256 / 8 = 32 per GPU. tp8ep8 keeps attention TP8; ep8 alone runs attention
// data-parallel (tp1 x 8 replicas), so attention and the shared expert are whole.
TEST(PerGpuGemms, Glm5ExpertParallel) {
  const Stage tp_ep = per_gpu_gemms(preset_model("glm5"), {8, 1, 8}).at(0);
  expect_gemm(row(tp_ep, "experts.gate_up_proj"), 4096, 6144, 32, 75, true, "ep8");
  expect_gemm(row(tp_ep, "experts.down_proj"), 6144, 2048, 32, 75, true, "ep8");
  expect_gemm(row(tp_ep, "shared_experts.gate_up_proj"), 512, 6144, 1, 75, true, "column/8");
  expect_gemm(row(tp_ep, "q_b_proj"), 2048, 2048, 1, 78, false, "column/8");

  const ParallelPlan dp_ep{1, 1, 8};
  EXPECT_EQ(dp_ep.dp(), 8);
  EXPECT_EQ(dp_ep.gpus(), 8);
  const Stage s = per_gpu_gemms(preset_model("glm5"), dp_ep).at(0);
  expect_gemm(row(s, "experts.gate_up_proj"), 4096, 6144, 32, 75, true, "ep8");
  expect_gemm(row(s, "q_b_proj"), 16384, 2048, 1, 78, false, "column/1");
  expect_gemm(row(s, "shared_experts.gate_up_proj"), 4096, 6144, 1, 75, true, "column/1");

  // ep2 under tp8: 128 experts per GPU, each split 8 / 2 = 4 ways.
  const Stage mixed = per_gpu_gemms(preset_model("glm5"), {8, 1, 2}).at(0);
  expect_gemm(row(mixed, "experts.gate_up_proj"), 1024, 6144, 128, 75, true, "ep2 + column/4");
  expect_gemm(row(mixed, "experts.down_proj"), 6144, 512, 128, 75, true, "ep2 + row/4");
}

// Pipeline stages as vLLM splits them: 78 / 2 = 39 each; 78 / 4 = 19 r 2 -> 19, 20, 20, 19;
// 61 / 2 = 30 r 1 -> 31, 30. MTP and lm_head on the last stage.
TEST(PerGpuGemms, PipelineStages) {
  const std::vector<Stage> pp2 = per_gpu_gemms(preset_model("glm5"), {4, 2, 1});
  ASSERT_EQ(pp2.size(), 2u);
  EXPECT_EQ(pp2[0].end_layer, 39);
  EXPECT_EQ(pp2[0].dense_layers, 3);
  EXPECT_EQ(pp2[0].moe_layers, 36);
  EXPECT_FALSE(pp2[0].lm_head);
  EXPECT_EQ(pp2[0].mtp_layers, 0);
  EXPECT_EQ(pp2[1].first_layer, 39);
  EXPECT_EQ(pp2[1].dense_layers, 0);
  EXPECT_EQ(pp2[1].moe_layers, 39);
  EXPECT_TRUE(pp2[1].lm_head);
  EXPECT_EQ(pp2[1].mtp_layers, 1);
  expect_gemm(row(pp2[0], "q_b_proj"), 16384 / 4, 2048, 1, 39, false, "column/4");
  expect_gemm(row(pp2[0], "gate_up_proj"), 24576 / 4, 6144, 1, 3, true, "column/4");
  expect_gemm(row(pp2[1], "experts.gate_up_proj"), 1024, 6144, 256, 39, true, "column/4");
  EXPECT_THROW(row(pp2[1], "gate_up_proj"), std::runtime_error);  // no dense layer there

  std::vector<int> sizes;
  for (const Stage& s : per_gpu_gemms(preset_model("glm5"), {1, 4, 1})) sizes.push_back(s.end_layer - s.first_layer);
  EXPECT_EQ(sizes, (std::vector<int>{19, 20, 20, 19}));
  const std::vector<Stage> ds = per_gpu_gemms(preset_model("deepseek-v3"), {8, 2, 1});
  EXPECT_EQ(ds[0].end_layer, 31);
  EXPECT_EQ(ds[1].end_layer - ds[1].first_layer, 30);
}

// DeepSeek-V3: hidden 7168, 128 heads, q_lora 1536, kv_lora 512, qk 128+64, v 128; FFN 18432;
// 256 experts of 2048; vocab 129280. fp4 per nvidia/DeepSeek-V3.1-NVFP4: o_proj is FP4 there.
TEST(PerGpuGemms, DeepseekV3Tp8) {
  const Stage s = per_gpu_gemms(preset_model("deepseek-v3"), {8, 1, 1}).at(0);
  expect_gemm(row(s, "q_a_proj"), 1536, 7168, 1, 61, false, "replicated");
  expect_gemm(row(s, "q_b_proj"), 128 * 192 / 8, 1536, 1, 61, false, "column/8");
  expect_gemm(row(s, "kv_a_proj_with_mqa"), 576, 7168, 1, 61, false, "replicated");
  expect_gemm(row(s, "kv_b_proj"), 128 * 256 / 8, 512, 1, 61, false, "column/8");
  expect_gemm(row(s, "o_proj"), 7168, 128 * 128 / 8, 1, 61, true, "row/8");
  expect_gemm(row(s, "gate_up_proj"), 2 * 18432 / 8, 7168, 1, 3, true, "column/8");
  expect_gemm(row(s, "down_proj"), 7168, 18432 / 8, 1, 3, true, "row/8");
  expect_gemm(row(s, "experts.gate_up_proj"), 512, 7168, 256, 58, true, "column/8");
  expect_gemm(row(s, "experts.down_proj"), 7168, 256, 256, 58, true, "row/8");
  expect_gemm(row(s, "shared_experts.down_proj"), 7168, 256, 1, 58, true, "row/8");
  expect_gemm(row(s, "eh_proj", true), 7168, 14336, 1, 1, false, "replicated");
  expect_gemm(row(s, "o_proj", true), 7168, 2048, 1, 1, false, "row/8");  // layer 61 excluded
  expect_gemm(row(s, "lm_head"), 129280 / 8, 7168, 1, 1, false, "column/8");
  EXPECT_THROW(row(s, "indexer.wq_b"), std::runtime_error);
}

// GQA: qkv N = (heads/tp + 2 * max(1, kv/tp)) * head_dim.
TEST(PerGpuGemms, GqaModels) {
  const Stage llama = per_gpu_gemms(preset_model("llama3.1-70b"), {8, 1, 1}).at(0);
  expect_gemm(row(llama, "qkv_proj"), (8 + 2 * 1) * 128, 8192, 1, 80, true, "column/8");
  expect_gemm(row(llama, "o_proj"), 8192, 64 * 128 / 8, 1, 80, true, "row/8");
  expect_gemm(row(llama, "gate_up_proj"), 2 * 28672 / 8, 8192, 1, 80, true, "column/8");
  expect_gemm(row(llama, "lm_head"), 128256 / 8, 8192, 1, 1, false, "column/8");
  EXPECT_EQ(row(llama, "qkv_proj").modules, "model.layers.*.self_attn.q_proj+k_proj+v_proj");
  // tp16 > 8 K/V heads: each GPU holds one, replicated.
  expect_gemm(row(per_gpu_gemms(preset_model("llama3.1-70b"), {16, 1, 1}).at(0), "qkv_proj"), (4 + 2) * 128, 8192, 1,
              80, true, "column/16");

  // Qwen3-30B-A3B: 32 heads, 4 K/V heads of 128; 128 experts of 768, no shared expert.
  const Stage qwen = per_gpu_gemms(preset_model("qwen3-30b-a3b"), {4, 1, 1}).at(0);
  expect_gemm(row(qwen, "qkv_proj"), (8 + 2) * 128, 2048, 1, 48, true, "column/4");
  expect_gemm(row(qwen, "experts.gate_up_proj"), 2 * 768 / 4, 2048, 128, 48, true, "column/4");
  EXPECT_THROW(row(qwen, "shared_experts.gate_up_proj"), std::runtime_error);

  // gpt-oss-120b under ep4 (attention data-parallel): 32 whole experts per GPU; MXFP4 experts,
  // attention unquantized.
  const Stage oss = per_gpu_gemms(preset_model("gpt-oss-120b"), {1, 1, 4}).at(0);
  expect_gemm(row(oss, "experts.gate_up_proj"), 2 * 2880, 2880, 32, 36, true, "ep4");
  expect_gemm(row(oss, "qkv_proj"), (64 + 2 * 8) * 64, 2880, 1, 36, false, "column/1");
  EXPECT_EQ(row(oss, "experts.gate_up_proj").modules, "model.layers.*.mlp.experts.gate_up_proj");

  const Stage mixtral = per_gpu_gemms(preset_model("mixtral-8x7b"), {2, 1, 2}).at(0);
  expect_gemm(row(mixtral, "experts.gate_up_proj"), 2 * 14336, 4096, 4, 32, true, "ep2");
  EXPECT_EQ(row(mixtral, "experts.gate_up_proj").modules, "model.layers.*.block_sparse_moe.experts.*.w1+w3");
}

// indexer_types "shared" layers reuse the previous top-k and skip the indexer's projections.
TEST(PerGpuGemms, SharedIndexerLayersSkipTheIndexer) {
  nlohmann::json j = nlohmann::json::parse(test::read_text(test::preset_config_path("glm5.json")));
  for (int i = 0; i < 78; ++i) j["indexer_types"].push_back(i % 2 == 0 ? "full" : "shared");
  const Stage s = per_gpu_gemms(parse_model_config(j.dump(), "test"), {8, 1, 1}).at(0);
  EXPECT_EQ(row(s, "indexer.wq_b").layers, 39);
  EXPECT_EQ(row(s, "q_a_proj").layers, 78);
}

std::string plan_error(const ModelConfig& m, ParallelPlan p) {
  try {
    validate_plan(m, p);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(ValidatePlan, RejectsWithTheRuleNamed) {
  const ModelConfig glm5 = preset_model("glm5");
  EXPECT_EQ(plan_error(glm5, {3, 1, 1}), "plan tp3: num_attention_heads = 64 is not divisible by tp = 3");
  EXPECT_EQ(plan_error(glm5, {8, 1, 3}).rfind("plan tp8ep3: one of tp = 8 and ep = 3 must divide the other", 0), 0u);
  EXPECT_EQ(plan_error(glm5, {1, 1, 512}), "plan ep512: the 256 routed experts are not divisible by ep = 512");
  EXPECT_EQ(plan_error(glm5, {1, 79, 1}), "plan tp1pp79: pp = 79 exceeds the 78 decoder layers");
  EXPECT_EQ(plan_error(glm5, {0, 1, 1}), "plan tp0pp1ep1: every count must be at least 1");
  EXPECT_EQ(plan_error(preset_model("llama3.1-70b"), {8, 1, 8}),
            "plan tp8ep8: ep = 8 needs a mixture-of-experts model; llama3.1-70b has no experts");
  EXPECT_EQ(plan_error(preset_model("llama3.1-8b"), {32, 1, 1}), "");  // 8 K/V heads replicated 4 times
  EXPECT_EQ(plan_error(preset_model("qwen3-30b-a3b"), {16, 1, 1}), "");
  EXPECT_EQ(plan_error(preset_model("glm45"), {12, 1, 1}),
            "plan tp12: num_key_value_heads = 8 and tp = 12: one must divide the other (K/V heads are split "
            "across tp, or replicated when there are fewer than tp)");

  nlohmann::json j = nlohmann::json::parse(test::read_text(test::preset_config_path("glm5.json")));
  j["moe_intermediate_size"] = 2004;
  EXPECT_EQ(plan_error(parse_model_config(j.dump(), "test"), {8, 1, 1}),
            "plan tp8: the expert intermediate size 2004 is not divisible by the 8 ways each expert is split");
  EXPECT_EQ(plan_error(parse_model_config(j.dump(), "test"), {8, 1, 8}),
            "plan tp8ep8: the shared-expert intermediate size 2004 is not divisible by tp = 8");
  EXPECT_THROW(per_gpu_gemms(glm5, {3, 1, 1}), InvalidArgument);
}

TEST(ParsePlan, Spellings) {
  const auto same = [](ParallelPlan a, ParallelPlan b) { return a.tp == b.tp && a.pp == b.pp && a.ep == b.ep; };
  EXPECT_TRUE(same(parse_plan("tp4pp2"), {4, 2, 1}));
  EXPECT_TRUE(same(parse_plan("pp2tp4"), {4, 2, 1}));
  EXPECT_TRUE(same(parse_plan("ep8"), {1, 1, 8}));
  EXPECT_TRUE(same(parse_plan("tp8ep8"), {8, 1, 8}));
  for (const char* text : {"tp1", "tp8", "tp4pp2", "ep8", "tp8ep8", "tp2pp2ep8"})
    EXPECT_EQ(to_string(parse_plan(text)), text);
}

TEST(ParsePlan, Errors) {
  const auto message = [](std::string_view text) {
    try {
      parse_plan(text);
    } catch (const InvalidArgument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message("tp4xp2"), "--plan 'tp4xp2': expected parts tp<N>, pp<N>, ep<N> (e.g. tp4pp2), got 'xp2'");
  EXPECT_EQ(message("tp"), "--plan 'tp': expected parts tp<N>, pp<N>, ep<N> (e.g. tp4pp2), got 'tp'");
  EXPECT_EQ(message("tp4tp2"), "--plan 'tp4tp2': tp is given twice");
  EXPECT_EQ(message("tp0"), "--plan 'tp0': tp = 0 must be a count from 1 to 999999");
  EXPECT_EQ(message("pp1234567"), "--plan 'pp1234567': pp = 1234567 must be a count from 1 to 999999");
  EXPECT_EQ(message(""), "--plan is empty; expected e.g. tp8, tp4pp2, tp8ep8 or ep8");
}

}  // namespace
}  // namespace fp4gemm
