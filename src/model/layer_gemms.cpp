// The GEMMs of one layer: names, per-GPU N and K under the plan's sharding (parallel.hpp gives
// the rules), and whether the checkpoint quantizes them.
#include "model/layer_gemms.hpp"

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace fp4gemm::model_detail {
namespace {

// Module names of a GEMM: its parts (a fused GEMM has several) relative to the layer, with '*'
// for the expert index, e.g. {"mlp.experts.*.gate_proj", "mlp.experts.*.up_proj"}.
using Parts = std::vector<std::string>;

// Routed-expert module names by architecture.
struct ExpertModules {
  Parts gate_up, down;
};
ExpertModules expert_modules(Architecture a) {
  switch (a) {
    case Architecture::mixtral:  // block_sparse_moe.experts.N.{w1 (gate), w3 (up), w2 (down)}
      return {{"block_sparse_moe.experts.*.w1", "block_sparse_moe.experts.*.w3"}, {"block_sparse_moe.experts.*.w2"}};
    case Architecture::gpt_oss:  // one fused parameter for all experts
      return {{"mlp.experts.gate_up_proj"}, {"mlp.experts.down_proj"}};
    default:
      return {{"mlp.experts.*.gate_proj", "mlp.experts.*.up_proj"}, {"mlp.experts.*.down_proj"}};
  }
}

// Rows of the vocabulary one GPU's lm_head holds: engines pad the vocabulary so that every
// rank holds ceil(V / tp).
std::int64_t vocab_rows(const ModelConfig& m, const ParallelPlan& p) { return (m.vocab_size + p.tp - 1) / p.tp; }

class LayerBuilder {
 public:
  // Module names are `concrete_prefix` + part when checked against the exclusion list and
  // `shown_prefix` + part in reports.
  LayerBuilder(const ModelConfig& m, const ParallelPlan& p, const LayerSite& site, std::string concrete_prefix,
               std::string shown_prefix)
      : m_(m), p_(p), site_(site), concrete_prefix_(std::move(concrete_prefix)), shown_prefix_(std::move(shown_prefix)) {}
  // A decoder or MTP layer: "model.layers.<index>." (shown as "model.layers.*." for decoder
  // layers, which the rows merge).
  LayerBuilder(const ModelConfig& m, const ParallelPlan& p, const LayerSite& site)
      : LayerBuilder(m, p, site, fmt::format("model.layers.{}.", site.index),
                     site.mtp ? fmt::format("model.layers.{}.", site.index) : "model.layers.*.") {}

  // A GEMM of per-GPU size n x k. `ways` is the split of column/row sharding.
  void add(std::string name, GemmKind kind, std::int64_t n, std::int64_t k, Split split, int ways, const Parts& parts,
           int count = 1, int expert_ways = 1, MSource m_source = MSource::tokens) {
    GemmEntry e;
    e.name = std::move(name);
    e.kind = kind;
    e.n = n;
    e.k = k;
    e.per_layer_count = count;
    e.layers = 1;
    e.mtp = site_.mtp;
    e.m_source = m_source;
    e.split = split;
    e.split_ways = split == Split::replicated ? 1 : ways;
    e.expert_ways = expert_ways;
    e.fp4 = true;
    for (const std::string_view part : parts) {
      // The exclusion lists never single out experts: expert 0 stands for all.
      const std::size_t star = part.find('*');
      const std::string concrete = star == std::string_view::npos
                                       ? fmt::format("{}{}", concrete_prefix_, part)
                                       : fmt::format("{}{}0{}", concrete_prefix_, part.substr(0, star), part.substr(star + 1));
      e.fp4 = e.fp4 && m_.fp4.quantizes(concrete);
      e.modules += e.modules.empty() ? fmt::format("{}{}", shown_prefix_, part)
                                     : fmt::format("+{}", part.substr(part.rfind('.') + 1));
    }
    out_.push_back(std::move(e));
  }

  void attention() {
    const std::int64_t h = m_.hidden_size, heads = m_.num_heads;
    const int tp = p_.tp;
    if (const auto* mla = std::get_if<MlaAttention>(&m_.attention)) {
      const std::int64_t qk = mla->qk_nope_head_dim + mla->qk_rope_head_dim;
      add("q_a_proj", GemmKind::attention, mla->q_lora_rank, h, Split::replicated, 1, {"self_attn.q_a_proj"});
      add("q_b_proj", GemmKind::attention, heads * qk / tp, mla->q_lora_rank, Split::column, tp, {"self_attn.q_b_proj"});
      add("kv_a_proj_with_mqa", GemmKind::attention, mla->kv_lora_rank + mla->qk_rope_head_dim, h, Split::replicated, 1,
          {"self_attn.kv_a_proj_with_mqa"});
      add("kv_b_proj", GemmKind::attention, heads * (mla->qk_nope_head_dim + mla->v_head_dim) / tp, mla->kv_lora_rank,
          Split::column, tp, {"self_attn.kv_b_proj"});
      indexer(mla->q_lora_rank);
      add("o_proj", GemmKind::attention, h, heads * mla->v_head_dim / tp, Split::row, tp, {"self_attn.o_proj"});
    } else {
      const auto& gqa = std::get<GqaAttention>(m_.attention);
      // K/V heads: split when there are at least tp of them, else one (replicated) per GPU.
      const std::int64_t kv_local = gqa.num_kv_heads >= tp ? gqa.num_kv_heads / tp : 1;
      add("qkv_proj", GemmKind::attention, (heads / tp + 2 * kv_local) * gqa.head_dim, h, Split::column, tp,
          {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"});
      add("o_proj", GemmKind::attention, h, heads * gqa.head_dim / tp, Split::row, tp, {"self_attn.o_proj"});
    }
  }

  // GLM-5's DSA indexer (HF GlmMoeDsaIndexer): wq_b q_lora_rank -> n_heads * head_dim, wk
  // hidden -> head_dim, weights_proj hidden -> n_heads; replicated (vLLM's Indexer:
  // "no tensor parallel, just replicated").
  void indexer(std::int64_t q_lora_rank) {
    if (!m_.indexer) return;
    const DsaIndexer& ix = *m_.indexer;
    if (!site_.mtp && !ix.runs[site_.index]) return;  // "shared": reuses the previous top-k
    const std::int64_t h = m_.hidden_size;
    add("indexer.wq_b", GemmKind::indexer, ix.n_heads * ix.head_dim, q_lora_rank, Split::replicated, 1,
        {"self_attn.indexer.wq_b"});
    add("indexer.wk", GemmKind::indexer, ix.head_dim, h, Split::replicated, 1, {"self_attn.indexer.wk"});
    add("indexer.weights_proj", GemmKind::indexer, ix.n_heads, h, Split::replicated, 1,
        {"self_attn.indexer.weights_proj"});
  }

  void mlp() {
    const std::int64_t h = m_.hidden_size;
    const int tp = p_.tp;
    if (site_.mlp == MlpKind::dense) {
      const std::int64_t i = m_.intermediate_size;
      add("gate_up_proj", GemmKind::dense_mlp, 2 * i / tp, h, Split::column, tp, {"mlp.gate_proj", "mlp.up_proj"});
      add("down_proj", GemmKind::dense_mlp, h, i / tp, Split::row, tp, {"mlp.down_proj"});
      return;
    }
    const MoeBlock& moe = *m_.moe;
    const int etp = p_.expert_tp(), ep = p_.ep;
    const int local = static_cast<int>(moe.experts / ep);
    const ExpertModules names = expert_modules(m_.arch);
    add("experts.gate_up_proj", GemmKind::routed_expert, 2 * moe.intermediate / etp, h, Split::column, etp,
        names.gate_up, local, ep, MSource::routed_tokens);
    add("experts.down_proj", GemmKind::routed_expert, h, moe.intermediate / etp, Split::row, etp, names.down, local,
        ep, MSource::routed_tokens);
    if (moe.shared_experts == 0) return;
    const std::int64_t si = moe.intermediate * moe.shared_experts;
    add("shared_experts.gate_up_proj", GemmKind::shared_expert, 2 * si / tp, h, Split::column, tp,
        {"mlp.shared_experts.gate_proj", "mlp.shared_experts.up_proj"});
    add("shared_experts.down_proj", GemmKind::shared_expert, h, si / tp, Split::row, tp,
        {"mlp.shared_experts.down_proj"});
  }

  // DeepSeek-style MTP (vLLM DeepSeekMultiTokenPredictorLayer): eh_proj, a plain Linear
  // [embedding; hidden] (2h) -> h, then the decoder block, then shared_head.head, a vocab-parallel
  // head like lm_head.
  void mtp_head() { add("shared_head.head", GemmKind::lm_head, vocab_rows(m_, p_), m_.hidden_size, Split::column, p_.tp, {"shared_head.head"}); }
  void mtp_input() {
    add("eh_proj", GemmKind::mtp_proj, m_.hidden_size, 2 * m_.hidden_size, Split::replicated, 1, {"eh_proj"});
  }

  std::vector<GemmEntry> take() { return std::move(out_); }

 private:
  const ModelConfig& m_;
  const ParallelPlan& p_;
  LayerSite site_;
  std::string concrete_prefix_, shown_prefix_;
  std::vector<GemmEntry> out_;
};

}  // namespace

std::vector<GemmEntry> layer_gemms(const ModelConfig& model, const ParallelPlan& plan, const LayerSite& site) {
  LayerBuilder b(model, plan, site);
  if (site.mtp) b.mtp_input();
  b.attention();
  b.mlp();
  if (site.mtp) b.mtp_head();
  return b.take();
}

GemmEntry lm_head_gemm(const ModelConfig& model, const ParallelPlan& plan) {
  LayerBuilder b(model, plan, LayerSite{}, "", "");
  b.add("lm_head", GemmKind::lm_head, vocab_rows(model, plan), model.hidden_size, Split::column, plan.tp, {"lm_head"});
  return b.take().front();
}

}  // namespace fp4gemm::model_detail
