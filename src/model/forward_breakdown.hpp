#pragma once
// Per-forward GEMM totals of one GPU per pipeline stage: each GEMM of the per-GPU list
// (parallel.hpp) timed at the M a batch gives it, times its count per layer and its layers.
//
// The batch goes through the pipeline whole (one micro-batch): token GEMMs run at
// M = ceil(T / dp); routed experts get one routing draw over the T tokens (the same for every
// MoE layer, as in plan_estimate.hpp), experts with no token are skipped, and the GPU listed is
// the stage's slowest in routed-expert time (the others wait for it at every layer).
#include <cstdint>
#include <vector>

#include "fp4gemm/parallel.hpp"
#include "fp4gemm/plan_estimate.hpp"
#include "fp4gemm/routing.hpp"

namespace fp4gemm {

struct GemmTotal {
  GemmEntry entry;
  std::vector<std::int64_t> m;  // token GEMMs: the one M; routed: each expert's M on the listed GPU
  double per_layer_s = 0;       // time(M) * per_layer_count; routed: the sum over the listed GPU's experts
  double forward_s = 0;         // per_layer_s * layers (MTP rows: * mtp_passes)
  double share = 0;             // forward_s / the stage's forward_s (0 when that is 0)
};

struct StageBreakdown {
  int stage = 0;
  int expert_rank = 0;  // the EP rank whose experts the routed rows list
  std::vector<GemmTotal> gemms;
  double forward_s = 0;  // sum of the rows' forward_s
};

struct ForwardWorkload {
  std::int64_t tokens = 1;
  Routing routing;
  int mtp_passes = 0;
};

// InvalidArgument for a plan the model does not split under, tokens < 1 or mtp_passes < 0.
std::vector<StageBreakdown> forward_breakdown(const ModelConfig& model, const ParallelPlan& plan,
                                              const ForwardWorkload& work, const GemmTimer& timer);

// One stage's totals for a (micro-)batch whose token GEMMs run at M = gpu_tokens and whose
// experts got routed[e] tokens each (empty: no MoE); the routed rows are those of the stage's
// slowest EP rank. Its forward_s is also plan_estimate's GEMM time of the stage per micro-batch.
StageBreakdown stage_breakdown(const Stage& stage, const ParallelPlan& plan, std::int64_t gpu_tokens,
                               const std::vector<std::int64_t>& routed, int mtp_passes, const GemmTimer& timer);

// The distinct GEMMs forward_breakdown asks a timer about (distinct_gemm_calls' order).
std::vector<GemmCall> forward_gemm_calls(const ModelConfig& model, const ParallelPlan& plan,
                                         const ForwardWorkload& work);

}  // namespace fp4gemm
