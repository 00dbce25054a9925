#pragma once
// What one rank of `fp4gemm plan --measure` runs: one decoder layer of its pipeline stage
// (plan_estimate.hpp's sample_layer: the GEMMs per_gpu_gemms lists for it) at the M a batch gives
// each GEMM, with the collectives plan_estimate's communication model counts placed where an
// engine runs them, then the send to the next pipeline stage. Built on the CPU (tested there);
// run on a GPU by src/cuda/layer_rank.cpp.
//
// Ranks: rank r of a plan with G = stage_gpus() GPUs per stage is GPU r % G of stage r / G;
// within the stage, attention replica (r % G) / tp, tensor-parallel rank (r % G) % tp, and EP rank
// (r % G) / expert_tp (parallel.hpp's layout).
// Steps, in order, for a micro-batch of t tokens (M = ceil(t / dp) for token GEMMs):
//   the attention GEMMs (and the DSA indexer's), then, when tp > 1, an all-reduce over the tp
//   group of M x hidden activations;
//   MoE layer with dp > 1 (ep > tp): an all-to-all over the stage (dispatch), the routed-expert
//   GEMMs of this GPU's experts (one GEMM per expert with tokens, M = its routed tokens), the
//   all-to-all back (combine), the shared expert's GEMMs, and, when tp > 1, an all-gather over
//   tp of the M x hidden activations;
//   otherwise the MLP's GEMMs (routed experts: this GPU's slice of every expert with tokens),
//   then, when tp > 1, an all-reduce over tp of M x hidden;
//   when pp > 1: the send of 2 x M x hidden (hidden states and residual) to the same GPU of the
//   next stage, together with the receive from the previous one.
// Activations are bf16 (2 bytes) on the wire. Dispatch: GPU j's experts receive R_j routed
// tokens (one routing draw over t, as plan_estimate draws it); each of the G GPUs of the stage
// sends an equal share of them (R_j / G, the remainder to the first GPUs), and combine returns
// the same counts. A collective over one GPU is left out (nothing crosses a link), so a plan of
// world size 1 runs its GEMMs alone.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fp4gemm/plan_estimate.hpp"

namespace fp4gemm {

enum class LayerStepKind { gemm, all_reduce, all_gather, all_to_all, stage_send };
std::string_view to_string(LayerStepKind kind);

// Which GPUs a collective is among: the rank's tensor-parallel group or its whole stage.
enum class RankGroup { tp, stage };

struct LayerStep {
  LayerStepKind kind = LayerStepKind::gemm;
  std::string name;  // the GEMM's name ("q_b_proj", "experts.gate_up_proj") or the collective's
                     // ("attention all-reduce", "dispatch", "combine", "MLP all-reduce",
                     // "all-gather", "stage send")
  // gemm: N, K, whether the checkpoint quantizes it, and one M per GEMM call (routed experts:
  // each expert with tokens; an empty list when none of this GPU's experts got a token).
  std::int64_t n = 0, k = 0;
  bool fp4 = true;
  std::vector<std::int64_t> m{};
  // all_reduce: bytes of the tensor every rank reduces; all_gather: bytes of the gathered tensor.
  RankGroup group = RankGroup::tp;
  int group_size = 1;
  std::uint64_t bytes = 0;
  // all_to_all: bytes to and from each rank of the stage group, in its order.
  std::vector<std::uint64_t> send_bytes{}, receive_bytes{};
  // stage_send: `bytes` to global rank send_to and from global rank receive_from (-1: none).
  int send_to = -1, receive_from = -1;

  bool is_collective() const { return kind != LayerStepKind::gemm; }
};

struct RankJob {
  ParallelPlan plan;
  std::int64_t tokens = 0;             // the batch T
  std::int64_t microbatch_tokens = 0;  // t
  std::int64_t gpu_tokens = 0;         // M of the token GEMMs
  int rank = 0, stage = 0;
  int tp_color = 0;  // the tp group's index over the whole world (stage * dp + replica)
  int ep_rank = 0;
  int layer = 0;  // the decoder layer run
  MlpKind mlp = MlpKind::dense;
  std::vector<LayerStep> steps;
};

// Rank `rank`'s job for a batch of work.tokens under `plan` (validate_plan's errors; rank in
// 0 .. plan.gpus() - 1). work.activation_bytes is the bytes per element on the wire.
RankJob rank_job(const ModelConfig& model, const ParallelPlan& plan, const Workload& work, int rank);

// `plan --measure` on `world_size` GPUs of a host with `visible_gpus`: InvalidArgument unless
// the plan uses exactly world_size GPUs: "tp8 needs 8 GPUs, this host has 1" when it needs more
// than the host has, "tp1 uses 1 GPU, not the 8 of this run (--gpus)" otherwise.
void require_measurable(const ParallelPlan& plan, int world_size, int visible_gpus);

}  // namespace fp4gemm
