// Parsing real config.json files of every architecture, and the presets built from them.
#include <gtest/gtest.h>

#include "fp4gemm/error.hpp"
#include "fp4gemm/model.hpp"
#include "model_test_support.hpp"

namespace fp4gemm {
namespace {

using test::preset_config_path;
using test::test_config_path;

int count_layers(const ModelConfig& m, MlpKind kind) {
  return static_cast<int>(std::count(m.layers.begin(), m.layers.end(), kind));
}

TEST(ModelConfig, Glm5) {
  const ModelConfig m = read_model_config(preset_config_path("glm5.json"));
  EXPECT_EQ(m.arch, Architecture::glm_moe_dsa);
  EXPECT_EQ(m.hidden_size, 6144);
  EXPECT_EQ(m.vocab_size, 154880);
  EXPECT_EQ(m.num_heads, 64);
  EXPECT_EQ(m.num_layers(), 78);
  const auto& mla = std::get<MlaAttention>(m.attention);
  EXPECT_EQ(mla.q_lora_rank, 2048);
  EXPECT_EQ(mla.kv_lora_rank, 512);
  EXPECT_EQ(mla.qk_nope_head_dim, 192);
  EXPECT_EQ(mla.qk_rope_head_dim, 64);
  EXPECT_EQ(mla.v_head_dim, 256);
  ASSERT_TRUE(m.indexer);
  EXPECT_EQ(m.indexer->n_heads, 32);
  EXPECT_EQ(m.indexer->head_dim, 128);
  EXPECT_EQ(m.indexer->topk, 2048);
  EXPECT_EQ(std::count(m.indexer->runs.begin(), m.indexer->runs.end(), true), 78);
  ASSERT_TRUE(m.moe);
  EXPECT_EQ(m.moe->experts, 256);
  EXPECT_EQ(m.moe->top_k, 8);
  EXPECT_EQ(m.moe->intermediate, 2048);
  EXPECT_EQ(m.moe->shared_experts, 1);
  EXPECT_EQ(m.intermediate_size, 12288);
  EXPECT_EQ(count_layers(m, MlpKind::dense), 3);
  EXPECT_EQ(m.layers[2], MlpKind::dense);
  EXPECT_EQ(m.layers[3], MlpKind::moe);
  EXPECT_EQ(m.mtp_layers, 1);
  // No quantization_config: ModelOpt's default, which leaves lm_head and the MTP layer alone.
  EXPECT_NE(m.fp4.source.find("assumed"), std::string::npos);
  EXPECT_FALSE(m.fp4.quantizes("lm_head"));
  EXPECT_FALSE(m.fp4.quantizes("model.layers.78.eh_proj"));
  EXPECT_TRUE(m.fp4.quantizes("model.layers.77.self_attn.q_a_proj"));
}

TEST(ModelConfig, Glm45) {
  const ModelConfig m = read_model_config(preset_config_path("glm45.json"));
  EXPECT_EQ(m.arch, Architecture::glm4_moe);
  EXPECT_EQ(m.hidden_size, 5120);
  EXPECT_EQ(m.num_heads, 96);
  const auto& gqa = std::get<GqaAttention>(m.attention);
  EXPECT_EQ(gqa.head_dim, 128);
  EXPECT_EQ(gqa.num_kv_heads, 8);
  EXPECT_EQ(m.num_layers(), 92);
  EXPECT_EQ(count_layers(m, MlpKind::dense), 3);
  EXPECT_EQ(m.moe->experts, 160);
  EXPECT_EQ(m.moe->intermediate, 1536);
  EXPECT_EQ(m.moe->shared_experts, 1);
  EXPECT_EQ(m.intermediate_size, 12288);
  EXPECT_EQ(m.mtp_layers, 1);
  EXPECT_FALSE(m.indexer);
}

TEST(ModelConfig, DeepseekV3) {
  const ModelConfig m = read_model_config(preset_config_path("deepseek_v3.json"));
  EXPECT_EQ(m.arch, Architecture::deepseek_v3);
  EXPECT_EQ(m.hidden_size, 7168);
  EXPECT_EQ(m.num_heads, 128);
  const auto& mla = std::get<MlaAttention>(m.attention);
  EXPECT_EQ(mla.q_lora_rank, 1536);
  EXPECT_EQ(mla.qk_nope_head_dim, 128);
  EXPECT_EQ(mla.v_head_dim, 128);
  EXPECT_EQ(m.num_layers(), 61);
  EXPECT_EQ(count_layers(m, MlpKind::moe), 58);
  EXPECT_EQ(m.moe->experts, 256);
  EXPECT_EQ(m.intermediate_size, 18432);
  EXPECT_EQ(m.mtp_layers, 1);
  // Its quantization_config is FP8 blocks, not FP4: the default list applies.
  EXPECT_NE(m.fp4.source.find("assumed"), std::string::npos);
}

TEST(ModelConfig, Qwen3MoeAndDense) {
  const ModelConfig moe = read_model_config(preset_config_path("qwen3_moe.json"));
  EXPECT_EQ(moe.arch, Architecture::qwen3_moe);
  EXPECT_EQ(std::get<GqaAttention>(moe.attention).num_kv_heads, 4);
  EXPECT_EQ(count_layers(moe, MlpKind::moe), 48);
  EXPECT_EQ(moe.moe->experts, 128);
  EXPECT_EQ(moe.moe->intermediate, 768);
  EXPECT_EQ(moe.moe->shared_experts, 0);
  EXPECT_EQ(moe.intermediate_size, 0);  // no dense layer
  EXPECT_EQ(moe.mtp_layers, 0);

  const ModelConfig dense = read_model_config(preset_config_path("qwen3_32b.json"));
  EXPECT_EQ(dense.arch, Architecture::qwen3);
  EXPECT_EQ(dense.hidden_size, 5120);
  EXPECT_EQ(std::get<GqaAttention>(dense.attention).head_dim, 128);  // given: 5120 / 64 = 80 otherwise
  EXPECT_EQ(dense.intermediate_size, 25600);
  EXPECT_EQ(count_layers(dense, MlpKind::dense), 64);
  EXPECT_FALSE(dense.moe);
}

TEST(ModelConfig, Llama) {
  const ModelConfig m = read_model_config(preset_config_path("llama31.json"));
  EXPECT_EQ(m.arch, Architecture::llama);
  EXPECT_EQ(std::get<GqaAttention>(m.attention).head_dim, 128);  // 8192 / 64: no head_dim field
  EXPECT_EQ(std::get<GqaAttention>(m.attention).num_kv_heads, 8);
  EXPECT_EQ(m.num_layers(), 80);
  EXPECT_EQ(m.intermediate_size, 28672);
  EXPECT_EQ(m.vocab_size, 128256);
}

TEST(ModelConfig, GptOssTakesItsMxfp4List) {
  const ModelConfig m = read_model_config(preset_config_path("gpt_oss_120b.json"));
  EXPECT_EQ(m.arch, Architecture::gpt_oss);
  EXPECT_EQ(std::get<GqaAttention>(m.attention).head_dim, 64);
  EXPECT_EQ(m.num_layers(), 36);
  EXPECT_EQ(count_layers(m, MlpKind::moe), 36);
  EXPECT_EQ(m.moe->experts, 128);
  EXPECT_EQ(m.moe->top_k, 4);
  EXPECT_EQ(m.moe->intermediate, 2880);
  EXPECT_EQ(m.fp4.format, Fp4Format::mxfp4);
  EXPECT_NE(m.fp4.source.find("mxfp4"), std::string::npos);
  EXPECT_FALSE(m.fp4.quantizes("model.layers.5.self_attn.q_proj"));  // via "model.layers.*.self_attn"
  EXPECT_FALSE(m.fp4.quantizes("lm_head"));
  EXPECT_TRUE(m.fp4.quantizes("model.layers.5.mlp.experts.gate_up_proj"));
}

TEST(ModelConfig, Mixtral) {
  const ModelConfig m = read_model_config(preset_config_path("mixtral.json"));
  EXPECT_EQ(m.arch, Architecture::mixtral);
  EXPECT_EQ(m.moe->experts, 8);
  EXPECT_EQ(m.moe->top_k, 2);
  EXPECT_EQ(m.moe->intermediate, 14336);
  EXPECT_EQ(m.intermediate_size, 0);
  EXPECT_EQ(std::get<GqaAttention>(m.attention).head_dim, 128);
}

// GLM-5.1-NVFP4 spells the layer types out and embeds a modelopt quantization_config.
TEST(ModelConfig, Glm51Nvfp4ListsAndEmbeddedQuantization) {
  const ModelConfig m = read_model_config(test_config_path("glm51_nvfp4_config.json"));
  EXPECT_EQ(count_layers(m, MlpKind::dense), 3);
  EXPECT_EQ(m.layers[3], MlpKind::moe);
  EXPECT_EQ(std::count(m.indexer->runs.begin(), m.indexer->runs.end(), true), 78);
  EXPECT_EQ(m.fp4.format, Fp4Format::nvfp4);
  EXPECT_NE(m.fp4.source.find("modelopt NVFP4"), std::string::npos);
  EXPECT_FALSE(m.fp4.quantizes("model.layers.0.mlp.gate_proj"));  // "model.layers.0*"
  EXPECT_FALSE(m.fp4.quantizes("model.layers.10.mlp.shared_experts.down_proj"));
  EXPECT_TRUE(m.fp4.quantizes("model.layers.10.mlp.experts.0.down_proj"));
}

TEST(ModelPresets, EveryPresetLoads) {
  ASSERT_EQ(model_presets().size(), 10u);
  for (const ModelPreset& p : model_presets()) {
    const ModelConfig m = preset_model(p.name);
    EXPECT_EQ(m.name, p.name);
    EXPECT_NE(m.origin.find("config.json"), std::string::npos) << p.name;
  }
}

TEST(ModelPresets, PublishedExclusionLists) {
  const ModelConfig glm5 = preset_model("glm5");
  EXPECT_NE(glm5.fp4.source.find("nvidia/GLM-5-NVFP4"), std::string::npos);
  EXPECT_FALSE(glm5.fp4.quantizes("model.layers.10.self_attn.indexer.wq_b"));  // "...indexer*"
  EXPECT_FALSE(glm5.fp4.quantizes("model.layers.10.self_attn.o_proj"));
  EXPECT_TRUE(glm5.fp4.quantizes("model.layers.10.mlp.experts.0.gate_proj"));
  // DeepSeek-V3.1-NVFP4 keeps o_proj in FP4 but not the low-rank projections.
  const ModelConfig ds = preset_model("deepseek-v3");
  EXPECT_TRUE(ds.fp4.quantizes("model.layers.10.self_attn.o_proj"));
  EXPECT_FALSE(ds.fp4.quantizes("model.layers.10.self_attn.kv_b_proj"));
  EXPECT_EQ(preset_model("qwen3-32b").fp4.excluded, std::vector<std::string>{"lm_head"});
}

TEST(ModelPresets, UnknownNameListsThePresets) {
  try {
    preset_model("glm6");
    FAIL() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'glm6' is not a preset"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("glm5, glm45, deepseek-v3"), std::string::npos) << e.what();
  }
}

TEST(HfQuantConfig, ReadsExcludeModules) {
  const Fp4Checkpoint c = read_hf_quant_config(preset_config_path("qwen3_30b_a3b_nvfp4_hf_quant_config.json"));
  EXPECT_EQ(c.format, Fp4Format::nvfp4);
  EXPECT_EQ(c.excluded.size(), 49u);
  EXPECT_FALSE(c.quantizes("model.layers.7.mlp.gate"));
  EXPECT_TRUE(c.quantizes("model.layers.7.mlp.experts.3.up_proj"));
}

}  // namespace
}  // namespace fp4gemm
