// Built-in models: embedded config.json files (src/model/configs, sources in SOURCES.md) and,
// where a published NVFP4 checkpoint's hf_quant_config.json was at hand, its exclusion list.
#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "fp4gemm/model.hpp"
#include "model/embedded_configs.hpp"

namespace fp4gemm {
namespace {

struct PresetSpec {
  ModelPreset preset;
  std::string_view origin;       // the model whose config.json this is
  std::string_view config_file;  // in src/model/configs
  std::string_view checkpoint;   // the NVFP4 checkpoint of quant_file; empty: none
  std::string_view quant_file;
};

// Without a quant_file the fp4 column comes from the config itself (gpt-oss's mxfp4
// quantization_config) or ModelOpt's default (model.hpp, default_fp4_checkpoint).
constexpr PresetSpec kPresets[] = {
    {{"glm5", "zai-org/GLM-5 (glm_moe_dsa); fp4 per nvidia/GLM-5-NVFP4"}, "zai-org/GLM-5",
     "glm5.json", "nvidia/GLM-5-NVFP4", "glm5_nvfp4_hf_quant_config.json"},
    {{"glm45", "zai-org/GLM-4.5 (glm4_moe); fp4 assumed ModelOpt default"}, "zai-org/GLM-4.5",
     "glm45.json", "", ""},
    {{"deepseek-v3", "deepseek-ai/DeepSeek-V3 (deepseek_v3); fp4 per nvidia/DeepSeek-V3.1-NVFP4"},
     "deepseek-ai/DeepSeek-V3", "deepseek_v3.json", "nvidia/DeepSeek-V3.1-NVFP4",
     "deepseek_v31_nvfp4_hf_quant_config.json"},
    {{"qwen3-30b-a3b", "Qwen/Qwen3-30B-A3B (qwen3_moe); fp4 per nvidia/Qwen3-30B-A3B-NVFP4"},
     "Qwen/Qwen3-30B-A3B", "qwen3_moe.json", "nvidia/Qwen3-30B-A3B-NVFP4",
     "qwen3_30b_a3b_nvfp4_hf_quant_config.json"},
    {{"qwen3-235b-a22b", "Qwen/Qwen3-235B-A22B (qwen3_moe); fp4 assumed ModelOpt default"},
     "Qwen/Qwen3-235B-A22B", "qwen3_moe_235b_a22b.json", "", ""},
    {{"qwen3-32b", "Qwen/Qwen3-32B (qwen3); fp4 per nvidia/Qwen3-32B-NVFP4"}, "Qwen/Qwen3-32B",
     "qwen3_32b.json", "nvidia/Qwen3-32B-NVFP4", "qwen3_32b_nvfp4_hf_quant_config.json"},
    {{"llama3.1-70b", "meta-llama/Meta-Llama-3.1-70B (llama); fp4 assumed ModelOpt default"},
     "meta-llama/Meta-Llama-3.1-70B", "llama31.json", "", ""},
    {{"llama3.1-8b", "meta-llama/Meta-Llama-3.1-8B (llama); fp4 assumed ModelOpt default"},
     "meta-llama/Meta-Llama-3.1-8B", "llama31_8b.json", "", ""},
    {{"gpt-oss-120b", "openai/gpt-oss-120b (gpt_oss); fp4 per its own mxfp4 quantization_config"},
     "openai/gpt-oss-120b", "gpt_oss_120b.json", "", ""},
    {{"mixtral-8x7b", "mistralai/Mixtral-8x7B-v0.1 (mixtral); fp4 assumed ModelOpt default"},
     "mistralai/Mixtral-8x7B-v0.1", "mixtral.json", "", ""},
};

}  // namespace

const std::vector<ModelPreset>& model_presets() {
  static const std::vector<ModelPreset> presets = [] {
    std::vector<ModelPreset> out;
    for (const PresetSpec& p : kPresets) out.push_back(p.preset);
    return out;
  }();
  return presets;
}

ModelConfig preset_model(std::string_view name) {
  for (const PresetSpec& p : kPresets) {
    if (p.preset.name != name) continue;
    ModelConfig m = parse_model_config(model_detail::embedded_config(p.config_file), fmt::format("preset {}", name));
    m.name = std::string(name);
    m.origin = fmt::format("{} config.json", p.origin);
    if (!p.quant_file.empty())
      m.fp4 = parse_hf_quant_config(model_detail::embedded_config(p.quant_file),
                                    fmt::format("{} hf_quant_config.json", p.checkpoint));
    return m;
  }
  std::string known;
  for (const PresetSpec& p : kPresets) known += fmt::format("{}{}", known.empty() ? "" : ", ", p.preset.name);
  throw InvalidArgument(fmt::format("model '{}' is not a preset (presets: {})", name, known));
}

}  // namespace fp4gemm
