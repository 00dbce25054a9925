// `fp4gemm shapes` output. JSON:
//   {"model": {"name", "origin", "model_type", "hidden_size", "vocab_size", "num_attention_heads",
//              "decoder_layers", "dense_layer_indices", "moe_layer_indices" ("0-2", "3-77"),
//              "mtp_layers",
//              "routed_experts", "top_k"  (MoE models only)},
//    "plan": {"name", "tp", "pp", "ep", "gpus", "stage_gpus", "attention_replicas", "expert_split"},
//    "fp4": {"format", "source"},
//    "stages": [{"stage", "first_layer", "end_layer", "dense_layers", "moe_layers", "mtp_layers",
//                "lm_head", "gemms": [{"name", "kind", "n", "k", "per_layer_count", "layers", "mtp",
//                                      "fp4", "m_source", "sharding", "modules"}]}]}
#include "model/shapes_report.hpp"

#include <fmt/format.h>

#include "report/text_table.hpp"

namespace fp4gemm {
namespace {

std::string describe_plan(const ModelConfig& m, const ParallelPlan& p) {
  std::string text = fmt::format("{}: {} GPUs", to_string(p), p.gpus());
  if (p.pp > 1) text += fmt::format(" = {} pipeline stages of {}", p.pp, p.stage_gpus());
  text += fmt::format("; attention tp{}", p.tp);
  if (p.dp() > 1) text += fmt::format(" in {} data-parallel replicas", p.dp());
  if (m.moe)
    text += fmt::format("; routed experts: {} of {} per GPU (ep{}), {}", m.moe->experts / p.ep, m.moe->experts, p.ep,
                        p.expert_tp() == 1 ? "whole" : fmt::format("each split {} ways", p.expert_tp()));
  return text;
}

// The decoder layers whose MLP is `kind`, as ranges: "0-2", "3-77", "0,2,4-9"; "none".
std::string layer_ranges(const std::vector<MlpKind>& layers, MlpKind kind) {
  std::string out;
  const int n = static_cast<int>(layers.size());
  for (int i = 0; i < n; ++i) {
    if (layers[std::size_t(i)] != kind) continue;
    int j = i;
    while (j + 1 < n && layers[std::size_t(j + 1)] == kind) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ",", i == j ? std::to_string(i) : fmt::format("{}-{}", i, j));
    i = j;
  }
  return out.empty() ? "none" : out;
}

std::string describe_stage(const Stage& s) {
  std::string text = fmt::format("stage {}: decoder layers {}-{} ({} dense, {} MoE)", s.index, s.first_layer,
                                 s.end_layer - 1, s.dense_layers, s.moe_layers);
  if (s.mtp_layers == 1) text += fmt::format(", MTP layer {}", s.end_layer);
  if (s.mtp_layers > 1) text += fmt::format(", MTP layers {}-{}", s.end_layer, s.end_layer + s.mtp_layers - 1);
  if (s.lm_head) text += ", lm_head";
  return text;
}

}  // namespace

std::string shapes_table(const ModelConfig& model, const ParallelPlan& plan, const std::vector<Stage>& stages) {
  std::string out = fmt::format("model  {} ({}, {})\nplan   {}\nfp4    {}: {}\n", model.name, model.origin,
                                to_string(model.arch), describe_plan(model, plan), to_string(model.fp4.format),
                                model.fp4.source);
  out += fmt::format("layers {} decoder layers: dense {}, MoE {}\n", model.num_layers(),
                     layer_ranges(model.layers, MlpKind::dense), layer_ranges(model.layers, MlpKind::moe));
  out += fmt::format("M      tokens: the batch's tokens{}; routed_tokens: the tokens routed to one expert\n",
                     plan.dp() > 1 ? fmt::format(" / {} (each attention replica's share)", plan.dp()) : "");
  if (model.mtp_layers > 0) out += "MTP    layer rows marked MTP run once per speculative draft pass\n";
  using Align = TextTable::Align;
  for (const Stage& s : stages) {
    TextTable table({{"name"}, {"kind"}, {"N", Align::right}, {"K", Align::right}, {"per layer", Align::right},
                     {"layers", Align::right}, {"fp4"}, {"sharding"}, {"M"}, {"modules"}});
    for (const GemmEntry& e : s.gemms)
      table.add_row({e.name, std::string(to_string(e.kind)), std::to_string(e.n), std::to_string(e.k),
                     std::to_string(e.per_layer_count), fmt::format("{}{}", e.layers, e.mtp ? " MTP" : ""),
                     e.fp4 ? "yes" : "no", e.sharding(), std::string(to_string(e.m_source)), e.modules});
    out += fmt::format("\n{}\n{}", describe_stage(s), table.render());
  }
  return out;
}

nlohmann::json shapes_json(const ModelConfig& model, const ParallelPlan& plan, const std::vector<Stage>& stages) {
  nlohmann::json m = {{"name", model.name},
                      {"origin", model.origin},
                      {"model_type", to_string(model.arch)},
                      {"hidden_size", model.hidden_size},
                      {"vocab_size", model.vocab_size},
                      {"num_attention_heads", model.num_heads},
                      {"decoder_layers", model.num_layers()},
                      {"dense_layer_indices", layer_ranges(model.layers, MlpKind::dense)},
                      {"moe_layer_indices", layer_ranges(model.layers, MlpKind::moe)},
                      {"mtp_layers", model.mtp_layers}};
  if (model.moe) {
    m["routed_experts"] = model.moe->experts;
    m["top_k"] = model.moe->top_k;
  }
  nlohmann::json j = {{"model", m},
                      {"plan",
                       {{"name", to_string(plan)},
                        {"tp", plan.tp},
                        {"pp", plan.pp},
                        {"ep", plan.ep},
                        {"gpus", plan.gpus()},
                        {"stage_gpus", plan.stage_gpus()},
                        {"attention_replicas", plan.dp()},
                        {"expert_split", plan.expert_tp()}}},
                      {"fp4", {{"format", to_string(model.fp4.format)}, {"source", model.fp4.source}}},
                      {"stages", nlohmann::json::array()}};
  for (const Stage& s : stages) {
    nlohmann::json gemms = nlohmann::json::array();
    for (const GemmEntry& e : s.gemms)
      gemms.push_back({{"name", e.name},
                       {"kind", to_string(e.kind)},
                       {"n", e.n},
                       {"k", e.k},
                       {"per_layer_count", e.per_layer_count},
                       {"layers", e.layers},
                       {"mtp", e.mtp},
                       {"fp4", e.fp4},
                       {"m_source", to_string(e.m_source)},
                       {"sharding", e.sharding()},
                       {"modules", e.modules}});
    j["stages"].push_back({{"stage", s.index},
                           {"first_layer", s.first_layer},
                           {"end_layer", s.end_layer},
                           {"dense_layers", s.dense_layers},
                           {"moe_layers", s.moe_layers},
                           {"mtp_layers", s.mtp_layers},
                           {"lm_head", s.lm_head},
                           {"gemms", std::move(gemms)}});
  }
  return j;
}

}  // namespace fp4gemm
