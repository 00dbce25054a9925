#pragma once
// Parallelism plans and the GEMMs one GPU runs per forward under them.
//
// A plan is tp (tensor parallel), pp (pipeline stages) and ep (expert parallel). A stage has
// G = max(tp, ep) GPUs (one of tp and ep must divide the other) and the plan G * pp.
//   Attention, dense MLP, shared experts and lm_head: tp-way tensor parallel; when ep > tp the
//     stage runs dp = ep / tp data-parallel replicas of them, each on its share of the tokens
//     (DeepSeek's layout: "ep8" = attention data-parallel over 8 GPUs).
//   Routed experts: spread whole over ep GPUs (E / ep per GPU, contiguous ids), and each split
//     expert_tp = G / ep ways ("tp8" = every GPU holds 1/8 of all 256 experts; "tp8ep8" =
//     attention tp8 and 32 whole experts per GPU, vLLM's --enable-expert-parallel).
//   Pipeline: decoder layers split into pp contiguous stages as vLLM's get_pp_indices does
//     (vllm/distributed/utils.py): L / pp each, the remainder one extra layer to each stage
//     before the last, counting back from it; the MTP layers and lm_head go to the last stage.
//
// Sharding (vLLM's, which the HF tp_plan of these models matches):
//   column-parallel (q_b_proj, kv_b_proj, qkv_proj, gate_up_proj, lm_head): N / tp
//     (GQA: each GPU holds heads/tp query heads and max(1, kv_heads/tp) K/V heads; vocab rows
//     ceil(V / tp), as engines pad the vocabulary);
//   row-parallel (o_proj, down_proj): K / tp;
//   replicated, every GPU runs it whole: q_a_proj, kv_a_proj_with_mqa (MLA's shared low-rank
//     projections), the DSA indexer's wq_b, wk, weights_proj, and the MTP's eh_proj.
// Router GEMMs (N = experts, never FP4, negligible) are not listed.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fp4gemm/model.hpp"

namespace fp4gemm {

struct ParallelPlan {
  int tp = 1, pp = 1, ep = 1;
  int stage_gpus() const { return tp > ep ? tp : ep; }
  int gpus() const { return stage_gpus() * pp; }
  int dp() const { return stage_gpus() / tp; }         // attention replicas in a stage
  int expert_tp() const { return stage_gpus() / ep; }  // ways each routed expert is split
};

// "tp4pp2", "tp8ep8", "ep8", "tp2": each of tp, pp, ep at most once, any order, a positive
// count after each; an absent one is 1. InvalidArgument names `argument` and the bad part.
ParallelPlan parse_plan(std::string_view text, std::string_view argument = "--plan");
// Canonical spelling: tp (unless tp = 1 < ep), then pp and ep when > 1: "tp1", "tp4pp2", "ep8".
std::string to_string(const ParallelPlan& plan);

// Checks that `model` splits under `plan`: counts >= 1; tp | ep or ep | tp; attention heads
// divisible by tp (and GQA K/V heads divisible by tp, or tp by them); dense and shared
// intermediate sizes by tp; routed experts by ep and their intermediate size by expert_tp;
// ep > 1 only for MoE models; pp <= decoder layers. InvalidArgument naming the field and plan.
void validate_plan(const ModelConfig& model, const ParallelPlan& plan);

enum class GemmKind { attention, indexer, dense_mlp, shared_expert, routed_expert, mtp_proj, lm_head };
std::string_view to_string(GemmKind k);

// Where a GEMM's M comes from: `tokens` = the tokens this GPU's attention replica processes
// (ceil(T / dp) for a batch of T; in decode every token is a sequence's last, so lm_head sees
// them all); `routed_tokens` = the tokens routed to one expert (routing.hpp).
enum class MSource { tokens, routed_tokens };
std::string_view to_string(MSource s);

enum class Split { replicated, column, row };

// One GEMM shape as a GPU runs it: D (M x n) = A (M x k) * W^T with W the n x k weight slice.
struct GemmEntry {
  std::string name;  // as the model names it: "q_b_proj", "experts.gate_up_proj", "lm_head"
  GemmKind kind = GemmKind::attention;
  std::int64_t n = 0, k = 0;
  int per_layer_count = 1;  // GEMMs of this shape per layer (routed: the experts on this GPU)
  int layers = 0;           // layers of the stage (or of its MTP block) that run it
  bool mtp = false;         // part of an MTP layer (runs once per speculative draft pass)
  bool fp4 = false;         // quantized in the FP4 checkpoint (model.fp4)
  MSource m_source = MSource::tokens;
  Split split = Split::replicated;
  int split_ways = 1;   // tp (or expert_tp) for column / row
  int expert_ways = 1;  // ep for routed experts
  // HF module names, '*' for the layer and expert index, '+' joining the parts of a fused GEMM:
  // "model.layers.*.self_attn.q_proj+k_proj+v_proj".
  std::string modules;
  std::string sharding() const;  // "replicated", "column/8", "row/8", "ep8", "ep2 + column/4"
};

struct Stage {
  int index = 0;
  int first_layer = 0, end_layer = 0;  // decoder layers [first_layer, end_layer)
  int dense_layers = 0, moe_layers = 0;
  int mtp_layers = 0;  // on the last stage
  bool lm_head = false;
  std::vector<GemmEntry> gemms;  // in forward order; one entry per distinct shape and module
};

// validate_plan, then each stage's GEMMs for one of its GPUs (the GPUs of a stage run the same
// shapes; under ep they differ only in which experts, hence routed tokens, they hold).
std::vector<Stage> per_gpu_gemms(const ModelConfig& model, const ParallelPlan& plan);

}  // namespace fp4gemm
