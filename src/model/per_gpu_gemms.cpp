// Stages and their GEMM rows: layers assigned to pipeline stages, each layer's GEMMs merged into
// one row per distinct GEMM.
#include <tuple>

#include <fmt/format.h>

#include "fp4gemm/parallel.hpp"
#include "model/layer_gemms.hpp"

namespace fp4gemm {
namespace {

// Decoder layers per stage, as vLLM's get_pp_indices (vllm/distributed/utils.py): L / pp each;
// the remainder r adds one layer to stages pp-2, pp-3, ..., pp-1-r (the last stage also holds
// the final norm and lm_head).
std::vector<int> stage_layer_counts(int layers, int pp) {
  std::vector<int> counts(static_cast<std::size_t>(pp), layers / pp);
  for (int i = 2; i < layers % pp + 2; ++i) ++counts[static_cast<std::size_t>(pp - i)];
  return counts;
}

// Everything but `layers`: rows that agree on it are the same GEMM in another layer.
auto row_key(const GemmEntry& e) {
  return std::tie(e.name, e.kind, e.n, e.k, e.per_layer_count, e.mtp, e.fp4, e.m_source, e.split, e.split_ways,
                  e.expert_ways, e.modules);
}

void merge_into(std::vector<GemmEntry>& rows, std::vector<GemmEntry> layer) {
  for (GemmEntry& e : layer) {
    bool merged = false;
    for (GemmEntry& row : rows)
      if (row_key(row) == row_key(e)) {
        row.layers += e.layers;
        merged = true;
        break;
      }
    if (!merged) rows.push_back(std::move(e));
  }
}

}  // namespace

std::string_view to_string(GemmKind k) {
  switch (k) {
    case GemmKind::attention: return "attention";
    case GemmKind::indexer: return "indexer";
    case GemmKind::dense_mlp: return "dense_mlp";
    case GemmKind::shared_expert: return "shared_expert";
    case GemmKind::routed_expert: return "routed_expert";
    case GemmKind::mtp_proj: return "mtp_proj";
    case GemmKind::lm_head: return "lm_head";
  }
  return "?";
}

std::string_view to_string(MSource s) { return s == MSource::tokens ? "tokens" : "routed_tokens"; }

std::string GemmEntry::sharding() const {
  const std::string split_text = split == Split::replicated ? "replicated"
                                 : fmt::format("{}/{}", split == Split::column ? "column" : "row", split_ways);
  if (expert_ways == 1) return split_text;
  // Whole experts: "ep8"; experts also split: "ep2 + column/4".
  return split_ways == 1 ? fmt::format("ep{}", expert_ways) : fmt::format("ep{} + {}", expert_ways, split_text);
}

std::vector<Stage> per_gpu_gemms(const ModelConfig& model, const ParallelPlan& plan) {
  validate_plan(model, plan);
  const std::vector<int> counts = stage_layer_counts(model.num_layers(), plan.pp);
  std::vector<Stage> stages;
  int first = 0;
  for (int s = 0; s < plan.pp; ++s) {
    Stage st;
    st.index = s;
    st.first_layer = first;
    st.end_layer = first + counts[static_cast<std::size_t>(s)];
    for (int i = st.first_layer; i < st.end_layer; ++i) {
      const MlpKind mlp = model.layers[static_cast<std::size_t>(i)];
      ++(mlp == MlpKind::dense ? st.dense_layers : st.moe_layers);
      merge_into(st.gemms, model_detail::layer_gemms(model, plan, {i, false, mlp}));
    }
    if (s == plan.pp - 1) {
      for (int j = 0; j < model.mtp_layers; ++j)
        merge_into(st.gemms, model_detail::layer_gemms(model, plan, {model.num_layers() + j, true, model.mtp_mlp()}));
      st.mtp_layers = model.mtp_layers;
      st.gemms.push_back(model_detail::lm_head_gemm(model, plan));
      st.lm_head = true;
    }
    first = st.end_layer;
    stages.push_back(std::move(st));
  }
  return stages;
}

}  // namespace fp4gemm
