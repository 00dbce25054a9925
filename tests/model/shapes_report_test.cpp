// The `fp4gemm shapes` report: the table a user checks against their engine, and its JSON.
#include <gtest/gtest.h>

#include "fp4gemm/parallel.hpp"
#include "model/shapes_report.hpp"

namespace fp4gemm {
namespace {

TEST(ShapesReport, TableOfGlm5Tp8) {
  const ModelConfig m = preset_model("glm5");
  const ParallelPlan plan{8, 1, 1};
  const std::string text = shapes_table(m, plan, per_gpu_gemms(m, plan));
  EXPECT_NE(text.find("model  glm5 (zai-org/GLM-5 config.json, glm_moe_dsa)"), std::string::npos) << text;
  EXPECT_NE(text.find("plan   tp8: 8 GPUs; attention tp8; routed experts: 256 of 256 per GPU (ep1), each split 8 ways"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("fp4    nvfp4: nvidia/GLM-5-NVFP4 hf_quant_config.json"), std::string::npos) << text;
  EXPECT_NE(text.find("layers 78 decoder layers: dense 0-2, MoE 3-77\n"), std::string::npos) << text;
  EXPECT_NE(text.find("stage 0: decoder layers 0-77 (3 dense, 75 MoE), MTP layer 78, lm_head"), std::string::npos)
      << text;
  // Columns: name kind N K per-layer layers fp4 sharding M modules.
  EXPECT_NE(text.find("experts.gate_up_proj         routed_expert    512   6144        256      75  yes  column/8"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1 MTP  no   replicated"), std::string::npos) << text;
}

TEST(ShapesReport, DataParallelAttentionAndPipelineHeader) {
  const ModelConfig m = preset_model("deepseek-v3");
  const ParallelPlan plan{2, 2, 8};
  const std::string text = shapes_table(m, plan, per_gpu_gemms(m, plan));
  EXPECT_NE(text.find("plan   tp2pp2ep8: 16 GPUs = 2 pipeline stages of 8; attention tp2 in 4 data-parallel "
                      "replicas; routed experts: 32 of 256 per GPU (ep8), whole"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("M      tokens: the batch's tokens / 4 (each attention replica's share)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("stage 1: decoder layers 31-60 (0 dense, 30 MoE), MTP layer 61, lm_head"), std::string::npos)
      << text;
}

TEST(ShapesReport, LayerRangesOfScatteredDenseLayers) {
  nlohmann::json j = nlohmann::json::parse(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_attention_heads": 4,
      "head_dim": 16, "intermediate_size": 128, "num_hidden_layers": 8, "vocab_size": 100, "num_experts": 4, "num_experts_per_tok": 2,
      "moe_intermediate_size": 32, "mlp_only_layers": [0, 2, 3]})");
  const ModelConfig m = parse_model_config(j.dump(), "test");
  const std::string text = shapes_table(m, {1, 1, 1}, per_gpu_gemms(m, {1, 1, 1}));
  EXPECT_NE(text.find("layers 8 decoder layers: dense 0,2-3, MoE 1,4-7\n"), std::string::npos) << text;
}

TEST(ShapesReport, Json) {
  const ModelConfig m = preset_model("glm5");
  const ParallelPlan plan{4, 2, 1};
  const nlohmann::json j = shapes_json(m, plan, per_gpu_gemms(m, plan));
  EXPECT_EQ(j["model"]["model_type"], "glm_moe_dsa");
  EXPECT_EQ(j["model"]["dense_layer_indices"], "0-2");
  EXPECT_EQ(j["model"]["moe_layer_indices"], "3-77");
  EXPECT_EQ(j["model"]["routed_experts"], 256);
  EXPECT_EQ(j["plan"]["name"], "tp4pp2");
  EXPECT_EQ(j["plan"]["gpus"], 8);
  EXPECT_EQ(j["fp4"]["format"], "nvfp4");
  ASSERT_EQ(j["stages"].size(), 2u);
  EXPECT_EQ(j["stages"][1]["first_layer"], 39);
  EXPECT_EQ(j["stages"][1]["lm_head"], true);
  const nlohmann::json& first = j["stages"][0]["gemms"][0];
  EXPECT_EQ(first["name"], "q_a_proj");
  EXPECT_EQ(first["kind"], "attention");
  EXPECT_EQ(first["n"], 2048);
  EXPECT_EQ(first["k"], 6144);
  EXPECT_EQ(first["layers"], 39);
  EXPECT_EQ(first["fp4"], false);
  EXPECT_EQ(first["sharding"], "replicated");
  EXPECT_EQ(first["m_source"], "tokens");
  EXPECT_EQ(first["modules"], "model.layers.*.self_attn.q_a_proj");
}

}  // namespace
}  // namespace fp4gemm
