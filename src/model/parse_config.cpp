// config.json -> ModelConfig, one reader per architecture. The layer rules follow each
// architecture's transformers implementation (named per function).
#include <algorithm>
#include <array>
#include <functional>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "fp4gemm/model.hpp"
#include "io/source_name.hpp"
#include "model/fp4_checkpoint.hpp"
#include "model/json_fields.hpp"

namespace fp4gemm {
namespace {

using model_detail::JsonFields;

constexpr std::int64_t kMaxLayers = 100000;  // a bound on per-layer tables, far above any model

// `head_dim_derived`: transformers derives a missing head_dim as hidden_size /
// num_attention_heads (Llama, Mixtral); the other GQA configs' classes default it to a constant of
// their own (Qwen3: 128, gpt-oss: 64), so there it is required rather than guessed.
// num_key_value_heads defaults to num_attention_heads.
GqaAttention read_gqa(const JsonFields& f, const ModelConfig& m, bool head_dim_derived) {
  const std::optional<std::int64_t> head_dim =
      head_dim_derived ? f.optional_positive("head_dim") : std::optional<std::int64_t>(f.positive("head_dim"));
  if (!head_dim && m.hidden_size % m.num_heads != 0)
    f.fail("head_dim", fmt::format("is missing and hidden_size = {} is not divisible by num_attention_heads = {}",
                                   m.hidden_size, m.num_heads));
  const std::int64_t kv = f.optional_positive("num_key_value_heads").value_or(m.num_heads);
  if (m.num_heads % kv != 0)
    f.fail("num_key_value_heads", fmt::format("= {} must divide num_attention_heads = {}", kv, m.num_heads));
  return {head_dim.value_or(m.hidden_size / m.num_heads), kv};
}

MlaAttention read_mla(const JsonFields& f) {
  return {f.positive("q_lora_rank"), f.positive("kv_lora_rank"), f.positive("qk_nope_head_dim"),
          f.positive("qk_rope_head_dim"), f.positive("v_head_dim")};
}

MoeBlock read_moe(const JsonFields& f, std::string_view experts_field, std::string_view intermediate_field,
                  std::int64_t shared_experts) {
  const MoeBlock moe{f.positive(experts_field), f.positive("num_experts_per_tok"), f.positive(intermediate_field),
                     shared_experts};
  if (moe.top_k > moe.experts)
    f.fail("num_experts_per_tok", fmt::format("= {} exceeds the {} routed experts ('{}')", moe.top_k, moe.experts,
                                              experts_field));
  return moe;
}

// A per-layer list of names (mlp_layer_types, indexer_types): one per decoder layer, each one of
// the two allowed values; true where it is `yes`.
std::vector<bool> read_layer_flags(const JsonFields& f, std::string_view field, int layers, std::string_view yes,
                                   std::string_view no) {
  const std::vector<std::string> names = f.optional_strings(field);
  if (std::ssize(names) != layers)
    f.fail(field, fmt::format("has {} entries; num_hidden_layers is {}", names.size(), layers));
  std::vector<bool> flags;
  for (const std::string& name : names) {
    if (name != yes && name != no)
      f.fail(field, fmt::format("entries must be \"{}\" or \"{}\", got \"{}\"", yes, no, name));
    flags.push_back(name == yes);
  }
  return flags;
}

void set_mlp_kinds(ModelConfig& m, const std::function<bool(int)>& is_moe) {
  for (int i = 0; i < m.num_layers(); ++i) m.layers[i] = is_moe(i) ? MlpKind::moe : MlpKind::dense;
}

// DeepSeek-V3 (modeling_deepseek.py): MoE where layer >= first_k_dense_replace and
// layer % moe_layer_freq == 0; shared experts; num_nextn_predict_layers MTP layers.
// GLM-4.5 (Glm4MoeDecoderLayer): MoE where layer >= first_k_dense_replace.
void read_deepseek_style(const JsonFields& f, ModelConfig& m) {
  m.moe = read_moe(f, "n_routed_experts", "moe_intermediate_size", f.non_negative("n_shared_experts"));
  const std::int64_t first_dense = f.non_negative("first_k_dense_replace");
  const std::int64_t freq = m.arch == Architecture::glm4_moe ? 1 : f.optional_positive("moe_layer_freq").value_or(1);
  set_mlp_kinds(m, [&](int i) { return i >= first_dense && i % freq == 0; });
  m.mtp_layers = static_cast<int>(f.optional_non_negative("num_nextn_predict_layers").value_or(0));
}

// GLM-5 (configuration_glm_moe_dsa.py): DeepSeek-V3's layout, with mlp_layer_types
// ("dense"/"sparse") overriding first_k_dense_replace when given, and the DSA indexer in every
// layer except those indexer_types marks "shared" (layer 0 always runs it: there is no previous
// top-k to reuse).
void read_glm_moe_dsa(const JsonFields& f, ModelConfig& m) {
  read_deepseek_style(f, m);
  if (f.has("mlp_layer_types")) {
    const std::vector<bool> sparse = read_layer_flags(f, "mlp_layer_types", m.num_layers(), "sparse", "dense");
    set_mlp_kinds(m, [&](int i) { return sparse[i]; });
  }
  DsaIndexer indexer{f.positive("index_n_heads"), f.positive("index_head_dim"), f.positive("index_topk"),
                     std::vector<bool>(m.num_layers(), true)};
  if (f.has("indexer_types")) indexer.runs = read_layer_flags(f, "indexer_types", m.num_layers(), "full", "shared");
  indexer.runs[0] = true;
  m.indexer = std::move(indexer);
}

// Qwen3 MoE (Qwen3MoeDecoderLayer): MoE where the layer is not in mlp_only_layers and
// (layer + 1) % decoder_sparse_step == 0; no shared expert.
void read_qwen3_moe(const JsonFields& f, ModelConfig& m) {
  m.moe = read_moe(f, "num_experts", "moe_intermediate_size", 0);
  const std::vector<std::int64_t> mlp_only = f.optional_non_negative_list("mlp_only_layers");
  const std::int64_t step = f.optional_positive("decoder_sparse_step").value_or(1);
  set_mlp_kinds(m, [&](int i) {
    return std::find(mlp_only.begin(), mlp_only.end(), i) == mlp_only.end() && (i + 1) % step == 0;
  });
}

// Mixtral and gpt-oss: every layer is MoE, intermediate_size is the expert's.
void read_all_moe(const JsonFields& f, ModelConfig& m) {
  m.moe = read_moe(f, "num_local_experts", "intermediate_size", 0);
  set_mlp_kinds(m, [](int) { return true; });
}

void read_dense(const JsonFields&, ModelConfig& m) {
  set_mlp_kinds(m, [](int) { return false; });
}

struct ArchitectureReader {
  std::string_view model_type;
  Architecture arch;
  bool mla;
  bool head_dim_derived;  // GQA: a missing head_dim is hidden_size / heads (read_gqa)
  void (*read)(const JsonFields&, ModelConfig&);
};

constexpr std::array kReaders{
    ArchitectureReader{"glm_moe_dsa", Architecture::glm_moe_dsa, true, false, read_glm_moe_dsa},
    ArchitectureReader{"deepseek_v3", Architecture::deepseek_v3, true, false, read_deepseek_style},
    ArchitectureReader{"glm4_moe", Architecture::glm4_moe, false, false, read_deepseek_style},
    ArchitectureReader{"qwen3_moe", Architecture::qwen3_moe, false, false, read_qwen3_moe},
    ArchitectureReader{"qwen3", Architecture::qwen3, false, false, read_dense},
    ArchitectureReader{"llama", Architecture::llama, false, true, read_dense},
    ArchitectureReader{"gpt_oss", Architecture::gpt_oss, false, false, read_all_moe},
    ArchitectureReader{"mixtral", Architecture::mixtral, false, true, read_all_moe},
};

const ArchitectureReader& find_reader(const JsonFields& f, const std::string& model_type) {
  for (const ArchitectureReader& r : kReaders)
    if (r.model_type == model_type) return r;
  std::string known;
  for (const ArchitectureReader& r : kReaders) known += fmt::format("{}{}", known.empty() ? "" : ", ", r.model_type);
  f.fail("model_type", fmt::format("\"{}\" is not supported (supported: {})", model_type, known));
}

}  // namespace

std::string_view to_string(Architecture a) {
  for (const ArchitectureReader& r : kReaders)
    if (r.arch == a) return r.model_type;
  return "?";
}

ModelConfig parse_model_config(std::string_view json_text, std::string_view source) {
  const nlohmann::json root = model_detail::parse_json_object(json_text, source);
  const std::string model_type = JsonFields(root, std::string(source), "every model").string("model_type");
  const JsonFields f(root, std::string(source), model_type);
  const ArchitectureReader& reader = find_reader(f, model_type);

  ModelConfig m;
  m.name = std::string(source);
  m.origin = std::string(source);
  m.arch = reader.arch;
  m.hidden_size = f.positive("hidden_size");
  m.vocab_size = f.positive("vocab_size");
  m.num_heads = f.positive("num_attention_heads");
  const std::int64_t layers = f.positive("num_hidden_layers");
  if (layers > kMaxLayers) f.fail("num_hidden_layers", fmt::format("= {} is more than {} (no such model)", layers, kMaxLayers));
  m.layers.resize(static_cast<std::size_t>(layers));
  if (reader.mla) m.attention = read_mla(f);
  else m.attention = read_gqa(f, m, reader.head_dim_derived);
  reader.read(f, m);
  // The dense MLP's size matters only where a layer is dense (Mixtral's and gpt-oss's
  // intermediate_size is their experts').
  if (std::count(m.layers.begin(), m.layers.end(), MlpKind::dense) > 0) m.intermediate_size = f.positive("intermediate_size");
  m.fp4 = model_detail::embedded_fp4_checkpoint(f).value_or(default_fp4_checkpoint(m));
  return m;
}

ModelConfig read_model_config(const std::filesystem::path& path, std::string_view argument) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path, argument);
  ModelConfig m = parse_model_config(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                     io::source_name(argument, path));
  m.name = path.string();
  m.origin = "config.json";
  return m;
}

}  // namespace fp4gemm
