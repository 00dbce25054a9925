#pragma once
// Models: the geometry of a transformer, read from its Hugging Face config.json, and which of its
// linear layers a published FP4 checkpoint quantizes.
//
// Architectures, by config.json "model_type":
//   glm_moe_dsa  GLM-5           MLA attention + DSA indexer; dense then MoE layers; shared expert; MTP
//   deepseek_v3  DeepSeek-V3/R1  MLA attention; dense then MoE layers; shared expert; MTP
//   glm4_moe     GLM-4.5/4.6     GQA attention; dense then MoE layers; shared expert; MTP
//   qwen3_moe    Qwen3 MoE       GQA attention; MoE layers (dense where mlp_only_layers says)
//   qwen3        Qwen3 dense     GQA attention; dense MLP
//   llama        Llama 3         GQA attention; dense MLP
//   gpt_oss      gpt-oss         GQA attention; MoE every layer (fused gate_up experts)
//   mixtral      Mixtral         GQA attention; MoE every layer
//
// Errors start with the source (a path, or "preset NAME") and name the field and the rule:
//   "config.json: field 'moe_intermediate_size' is missing (needed for glm_moe_dsa)"
//   "config.json: field 'hidden_size' must be a positive integer, got "6144" (string)"
// Text that is not JSON throws IoError; JSON that breaks a rule throws InvalidArgument.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fp4gemm/tensor.hpp"

namespace fp4gemm {

enum class Architecture { glm_moe_dsa, deepseek_v3, glm4_moe, qwen3_moe, qwen3, llama, gpt_oss, mixtral };
std::string_view to_string(Architecture a);  // the model_type

// Multi-head latent attention (DeepSeek-V3, GLM-5). Per head, q and k have
// qk_nope_head_dim + qk_rope_head_dim elements and v has v_head_dim.
struct MlaAttention {
  std::int64_t q_lora_rank = 0, kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
};

// Grouped-query attention: num_attention_heads query heads share num_kv_heads K/V heads.
struct GqaAttention {
  std::int64_t head_dim = 0, num_kv_heads = 0;
};

// The DSA (DeepSeek sparse attention) indexer of GLM-5: its own projections pick the top-k
// tokens each query attends to.
struct DsaIndexer {
  std::int64_t n_heads = 0, head_dim = 0, topk = 0;
  // Per decoder layer: true where the layer runs its indexer projections; false where it reuses
  // the previous layer's top-k ("shared" in config.json's indexer_types).
  std::vector<bool> runs;
};

// The mixture-of-experts block: `experts` routed experts with intermediate size `intermediate`
// (each token picks top_k), plus `shared_experts` experts every token goes through, run as one
// MLP of intermediate size intermediate * shared_experts (DeepSeek/GLM convention).
struct MoeBlock {
  std::int64_t experts = 0, top_k = 0, intermediate = 0, shared_experts = 0;
};

enum class MlpKind { dense, moe };

// Which linear layers of the FP4 checkpoint are left unquantized. A module is excluded when a
// pattern matches its name or one of its dotted ancestors ("model.layers.*.self_attn" excludes
// "model.layers.3.self_attn.q_proj"). Patterns are fnmatch globs: '*' matches any run of
// characters (dots included), '?' one character; no [classes] (no checkpoint here uses them).
struct Fp4Checkpoint {
  Fp4Format format = Fp4Format::nvfp4;
  std::vector<std::string> excluded;
  std::string source;  // where the list came from, for reports
  bool quantizes(std::string_view module) const;
};

struct ModelConfig {
  std::string name;    // preset name, or the config file's path
  std::string origin;  // what the numbers are, e.g. "zai-org/GLM-5 config.json"
  Architecture arch = Architecture::llama;
  std::int64_t hidden_size = 0, vocab_size = 0, num_heads = 0;
  std::variant<MlaAttention, GqaAttention> attention;
  std::optional<DsaIndexer> indexer;
  std::optional<MoeBlock> moe;
  std::int64_t intermediate_size = 0;  // dense MLP; 0 when no layer is dense
  std::vector<MlpKind> layers;         // one per decoder layer (num_hidden_layers)
  int mtp_layers = 0;                  // num_nextn_predict_layers, after the decoder layers
  Fp4Checkpoint fp4;

  int num_layers() const { return static_cast<int>(layers.size()); }
  // The MLP of MTP layer j (0-based): a MoE block when the model has one (as in DeepSeek-V3,
  // GLM-4.5 and GLM-5, whose MTP layer index is past first_k_dense_replace).
  MlpKind mtp_mlp() const { return moe ? MlpKind::moe : MlpKind::dense; }
};

// config.json text. `source` starts every error message. The FP4 exclusion list comes from the
// config's own quantization_config when it describes an FP4 checkpoint (quant_method "mxfp4",
// or "modelopt" with quant_algo NVFP4), else the ModelOpt NVFP4 default is assumed (lm_head and
// the MTP layers unquantized; see default_fp4_checkpoint).
ModelConfig parse_model_config(std::string_view json_text, std::string_view source);
// The file at `path` (the model's name is the path); IoError if it cannot be read. Messages
// start with "<argument> '<path>'".
ModelConfig read_model_config(const std::filesystem::path& path, std::string_view argument = "--config");

// ModelOpt's hf_quant_config.json: quantization.quant_algo must be "NVFP4" (or "MXFP4");
// quantization.exclude_modules (absent: none) lists the unquantized modules.
Fp4Checkpoint parse_hf_quant_config(std::string_view json_text, std::string_view source);
Fp4Checkpoint read_hf_quant_config(const std::filesystem::path& path,
                                   std::string_view argument = "--quant-config");

// What ModelOpt's NVFP4_DEFAULT_CFG leaves unquantized in `model`: "*lm_head*" (its
// _default_disabled_quantizer_cfg; the other entries there are routers, which are not listed
// GEMMs), plus every MTP layer, which transformers does not load (GLM-5's and DeepSeek-V3.1's
// published lists exclude them too).
Fp4Checkpoint default_fp4_checkpoint(const ModelConfig& model);

// ------------------------------------------------------------------ presets
// Models compiled into the binary: their config.json (and the exclusion list of their published
// NVFP4 checkpoint where one was at hand), embedded verbatim; src/model/configs/SOURCES.md.
struct ModelPreset {
  std::string_view name;         // "glm5"
  std::string_view description;  // "zai-org/GLM-5 (glm_moe_dsa)"
};
const std::vector<ModelPreset>& model_presets();
// InvalidArgument listing the preset names if `name` is none of them.
ModelConfig preset_model(std::string_view name);

}  // namespace fp4gemm
