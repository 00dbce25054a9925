#pragma once
// Plan arithmetic: from the time of each per-GPU GEMM, estimate one forward of a batch under
// each parallelism plan, and say which plan wins and whether it is compute- or
// communication-bound.
//
// The model (numbered as in plan_estimate.cpp):
//  1. The batch of T tokens is split into m micro-batches (default min(pp, T): vLLM keeps one
//     batch in flight per pipeline stage) of t = ceil(T / m) tokens.
//  2. GEMM time of a stage per micro-batch: sum over its GEMMs (parallel.hpp) of
//     timer(M, N, K) * per_layer_count * layers, with M = ceil(t / dp) for token GEMMs. Routed
//     experts use one routing draw over the t tokens (the same draw for every MoE layer); each
//     expert's GEMM is timed on its own (a grouped kernel may do better) and experts with no
//     token are skipped; the stage takes its slowest GPU (they meet at every layer's
//     collective). MTP layers count mtp_passes times (0: no speculative decoding).
//  3. Communication per layer, alpha-beta model on `link`, b = activation_bytes per element:
//     attention: all-reduce over tp of ceil(t/dp) * hidden * b. Dense MLP layer, and MoE layer
//     when dp = 1: the same all-reduce (tokens are replicated over the tp group and each GPU's
//     partial sums are reduced). MoE layer when dp > 1 (ep > tp): all-to-all dispatch and
//     combine over ep, each moving the bytes the busiest GPU receives, its experts' routed
//     tokens * hidden * b * (ep-1)/ep, then, if tp > 1, an all-gather over tp of
//     ceil(t/dp) * hidden * b to replicate the tokens again, or an all-reduce of those bytes
//     where the model has shared experts (their row-parallel down_proj leaves each GPU of the
//     tp group a partial sum: moe_layer_reduces_over_tp). Pipeline: each stage but the last
//     sends 2 * ceil(t/dp) * hidden * b to the next (vLLM's IntermediateTensors carry
//     hidden_states and residual).
//     Collectives on n GPUs (0 when n = 1): ring all-reduce base + 2(n-1) step + 2(n-1)/n
//     bytes/B; all-gather base + (n-1) step + (n-1)/n bytes/B; all-to-all and point-to-point
//     send base + step + bytes/B. Communication does not overlap compute.
//  4. Stage time S_s = GEMM + communication. The forward (m micro-batches through pp stages,
//     synchronous): sum_s S_s + (m-1) max_s S_s; bubble = forward - m max_s S_s.
//  5. Not counted: attention's score/softmax kernels, norms, activations, routers, the logits
//     gather, launch gaps. The estimate compares plans by their GEMMs and communication.
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "fp4gemm/gemm.hpp"
#include "fp4gemm/model.hpp"
#include "fp4gemm/parallel.hpp"
#include "fp4gemm/routing.hpp"

namespace fp4gemm {

// A GPU-to-GPU link: per-direction bandwidth B of one GPU, and the alpha terms of NCCL's tuning
// model (a fixed base per collective plus one step latency per ring step). The built-in ones are
// datasheet numbers (links()); `plan --measure` fits one from measured collectives
// (cluster/link_fit.hpp), which `plan --link-from FILE` reads back.
struct Link {
  std::string name;
  std::string description;
  double bytes_per_second = 0;
  double step_latency_s = 0;
  double base_latency_s = 0;
  std::string source;
};
// nvlink4 (H100/H200 SXM), nvlink5 (B200), pcie5 (e.g. RTX PRO 6000, which has no NVLink).
const std::vector<Link>& links();
const Link& find_link(std::string_view name);  // InvalidArgument listing the names

double all_reduce_seconds(const Link& link, int n, double bytes);
double all_gather_seconds(const Link& link, int n, double bytes);  // bytes: the gathered tensor
double all_to_all_seconds(const Link& link, int n, double bytes_received);
double send_seconds(const Link& link, double bytes);

// One GEMM a timer is asked about: its shape and whether the checkpoint runs it in FP4 (else
// in bf16).
struct GemmCall {
  GemmShape shape;
  bool fp4 = false;
};
using GemmTimer = std::function<double(const GemmCall&)>;  // seconds

// A timer backed by measurements: (M, N, K, fp4) -> seconds.
class GemmTimeTable {
 public:
  // InvalidArgument unless seconds is finite and >= 0.
  void set(const GemmCall& call, double seconds);
  // InvalidArgument naming the shape when it was never set.
  double operator()(const GemmCall& call) const;

 private:
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>, double> seconds_;
};

struct Workload {
  std::int64_t tokens = 1;   // T: tokens of one forward (decode: the concurrent sequences)
  int microbatches = 0;      // m; 0: min(pp, T)
  Routing routing;
  int mtp_passes = 0;        // MTP layer runs per forward
  int activation_bytes = 2;  // bf16 activations on the wire
};

struct StageEstimate {
  double gemm_s = 0, comm_s = 0;  // one micro-batch
  double total_s() const { return gemm_s + comm_s; }
};

struct PlanEstimate {
  ParallelPlan plan;
  int microbatches = 1;
  std::int64_t microbatch_tokens = 0;
  std::vector<StageEstimate> stages;
  int bottleneck_stage = 0;  // the stage with the longest micro-batch time
  double gemm_s = 0, comm_s = 0;  // on the bottleneck stage, over the m micro-batches
  double bubble_s = 0;
  double forward_s = 0;
  double tokens_per_second(std::int64_t tokens) const { return double(tokens) / forward_s; }
  bool compute_bound() const { return gemm_s >= comm_s; }
};

// InvalidArgument for a plan the model does not split under (validate_plan), T < 1,
// m < 0 or m > T, mtp_passes < 0, activation_bytes < 1, or a timer answer that is negative or
// not finite.
PlanEstimate estimate_plan(const ModelConfig& model, const ParallelPlan& plan, const Workload& work,
                           const Link& link, const GemmTimer& timer);

// The distinct GEMMs `run` asks the timer it is given about, ordered by (fp4, N, K, M): the
// timer answers 0 and records.
std::vector<GemmCall> distinct_gemm_calls(const std::function<void(const GemmTimer&)>& run);

// The distinct GEMMs estimate_plan will ask a timer about (to measure before estimating).
std::vector<GemmCall> required_gemm_calls(const ModelConfig& model, const ParallelPlan& plan,
                                          const Workload& work);

// Step 1 of the model: the micro-batches of a batch, and what the first of them looks like on
// every stage. InvalidArgument for T < 1 or m outside 0..T.
struct MicroBatch {
  int count = 1;                     // m
  std::int64_t tokens = 0;           // t = ceil(T / m)
  std::int64_t gpu_tokens = 0;       // ceil(t / dp): M of the token GEMMs
  std::vector<std::int64_t> routed;  // tokens per expert over the t tokens (empty: no MoE)
};
MicroBatch micro_batch(const ModelConfig& model, const ParallelPlan& plan, const Workload& work);

// Step 3 for one decoder layer whose MLP is `mlp`: its collectives on `link` (without the
// pipeline send), for the micro-batch `mb`.
double layer_comm_seconds(const ModelConfig& model, const ParallelPlan& plan, MlpKind mlp, const MicroBatch& mb,
                          const Workload& work, const Link& link);
// The send of hidden states and residual from a stage to the next: 2 * gpu_tokens * hidden * b.
double stage_send_bytes(const ModelConfig& model, const MicroBatch& mb, const Workload& work);

// Whether a MoE layer with dp > 1 ends with an all-reduce over tp rather than an all-gather
// (step 3): where the model has shared experts, sharded row-parallel over tp.
bool moe_layer_reduces_over_tp(const ModelConfig& model);

// One decoder layer of one stage: the unit `plan --measure` runs on the GPUs. The stage's first
// MoE layer, or its first layer when it has no MoE layer; its GEMMs in forward order as
// per_gpu_gemms lists them (layers = 1).
struct LayerSample {
  int stage = 0;
  int layer = 0;  // decoder layer index
  MlpKind mlp = MlpKind::dense;
  Stage gemms;    // one layer's rows (index = stage, dense_layers or moe_layers = 1)
};
LayerSample sample_layer(const ModelConfig& model, const ParallelPlan& plan, int stage);

// The estimate of that layer for one micro-batch: GEMM time of the stage's slowest GPU (step 2),
// its collectives (step 3), and the send to the next stage (0 on the last stage).
struct LayerEstimate {
  int stage = 0;
  double gemm_s = 0, comm_s = 0, send_s = 0;
  double total_s() const { return gemm_s + comm_s + send_s; }
};
LayerEstimate estimate_layer(const ModelConfig& model, const ParallelPlan& plan, const Workload& work,
                             const Link& link, const GemmTimer& timer, int stage);

struct PlanComparison {
  std::vector<PlanEstimate> ranked;  // highest tokens per second per GPU first
  // "tp8 wins: 2.41x the throughput per GPU of tp4pp2", then one line per plan with its
  // forward time, GEMM / communication / bubble split and whether it is compute- or
  // communication-bound.
  std::string verdict;
};
// At least one plan; InvalidArgument otherwise.
PlanComparison compare_plans(const ModelConfig& model, std::span<const ParallelPlan> plans,
                             const Workload& work, const Link& link, const GemmTimer& timer);

}  // namespace fp4gemm
