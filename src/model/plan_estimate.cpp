// Plan arithmetic (plan_estimate.hpp, whose numbered model this follows).
#include "fp4gemm/plan_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "model/forward_breakdown.hpp"
#include "model/layer_gemms.hpp"

namespace fp4gemm {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

double timed(const GemmTimer& timer, const GemmCall& call) {
  const double t = timer(call);
  require(std::isfinite(t) && t >= 0, "GEMM timer: {} {}x{}x{} took {} s; a time must be finite and >= 0",
          call.fp4 ? "fp4" : "bf16", call.shape.m, call.shape.n, call.shape.k, t);
  return t;
}

// 2. The stage's GEMM time for one micro-batch: token GEMMs plus the slowest GPU's experts
// (forward_breakdown.hpp's stage totals, with every timer answer checked).
double stage_gemm_seconds(const Stage& stage, const ParallelPlan& plan, const MicroBatch& mb, const Workload& work,
                          const GemmTimer& timer) {
  return stage_breakdown(stage, plan, mb.gpu_tokens, mb.routed, work.mtp_passes,
                         [&](const GemmCall& call) { return timed(timer, call); })
      .forward_s;
}

double stage_comm_seconds(const ModelConfig& model, const ParallelPlan& plan, const Stage& stage, const MicroBatch& mb,
                          const Workload& work, const Link& link) {
  double s = stage.dense_layers * layer_comm_seconds(model, plan, MlpKind::dense, mb, work, link) +
             stage.moe_layers * layer_comm_seconds(model, plan, MlpKind::moe, mb, work, link) +
             double(stage.mtp_layers) * work.mtp_passes * layer_comm_seconds(model, plan, model.mtp_mlp(), mb, work, link);
  if (stage.index < plan.pp - 1)  // hidden_states and residual to the next stage
    s += send_seconds(link, stage_send_bytes(model, mb, work));
  return s;
}

std::string format_seconds(double s) {
  if (s < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.2f} s", s);
}

double seconds_per_token_per_gpu(const PlanEstimate& e) { return e.forward_s * e.plan.gpus(); }

void validate_workload(const Workload& work) {
  require(work.tokens >= 1, "tokens = {} must be at least 1", work.tokens);
  require(work.microbatches >= 0 && work.microbatches <= work.tokens,
          "microbatches = {} must be between 0 (one per pipeline stage) and the {} tokens", work.microbatches,
          work.tokens);
  require(work.mtp_passes >= 0, "mtp_passes = {} must be >= 0", work.mtp_passes);
  require(work.activation_bytes >= 1, "activation_bytes = {} must be >= 1", work.activation_bytes);
}

}  // namespace

MicroBatch micro_batch(const ModelConfig& model, const ParallelPlan& plan, const Workload& work) {
  validate_workload(work);
  MicroBatch mb;
  mb.count = work.microbatches > 0 ? work.microbatches : int(std::min<std::int64_t>(plan.pp, work.tokens));
  mb.tokens = ceil_div(work.tokens, mb.count);
  mb.gpu_tokens = ceil_div(mb.tokens, plan.dp());
  if (model.moe) mb.routed = route_tokens(mb.tokens, model.moe->top_k, model.moe->experts, work.routing);
  return mb;
}

// 3. Communication of one layer whose MLP is `mlp`.
double layer_comm_seconds(const ModelConfig& model, const ParallelPlan& plan, MlpKind mlp, const MicroBatch& mb,
                          const Workload& work, const Link& link) {
  const double token_bytes = double(model.hidden_size) * work.activation_bytes;
  const double replica_bytes = double(mb.gpu_tokens) * token_bytes;
  const double attention = all_reduce_seconds(link, plan.tp, replica_bytes);
  if (mlp == MlpKind::dense || plan.dp() == 1) return attention + all_reduce_seconds(link, plan.tp, replica_bytes);
  std::int64_t busiest = 0;  // routed tokens the busiest GPU receives
  for (int g = 0; g < plan.ep; ++g) {
    const auto slice = expert_slice(mb.routed, plan.ep, g);
    busiest = std::max(busiest, std::accumulate(slice.begin(), slice.end(), std::int64_t{0}));
  }
  const double moved = double(busiest) * token_bytes * (plan.ep - 1) / plan.ep;
  const double over_tp = moe_layer_reduces_over_tp(model) ? all_reduce_seconds(link, plan.tp, replica_bytes)
                                                          : all_gather_seconds(link, plan.tp, replica_bytes);
  return attention + 2 * all_to_all_seconds(link, plan.ep, moved) + over_tp;
}

bool moe_layer_reduces_over_tp(const ModelConfig& model) { return model.moe && model.moe->shared_experts > 0; }

double stage_send_bytes(const ModelConfig& model, const MicroBatch& mb, const Workload& work) {
  return 2.0 * double(mb.gpu_tokens) * double(model.hidden_size) * work.activation_bytes;
}

LayerSample sample_layer(const ModelConfig& model, const ParallelPlan& plan, int stage) {
  const std::vector<Stage> stages = per_gpu_gemms(model, plan);  // validates the plan
  require(stage >= 0 && stage < int(stages.size()), "stage {} of plan {} does not exist (it has {})", stage,
          to_string(plan), stages.size());
  const Stage& st = stages[std::size_t(stage)];
  LayerSample sample;
  sample.stage = stage;
  sample.layer = st.first_layer;
  for (int i = st.first_layer; i < st.end_layer; ++i)
    if (model.layers[std::size_t(i)] == MlpKind::moe) {
      sample.layer = i;
      break;
    }
  sample.mlp = model.layers[std::size_t(sample.layer)];
  sample.gemms.index = stage;
  sample.gemms.first_layer = sample.layer;
  sample.gemms.end_layer = sample.layer + 1;
  ++(sample.mlp == MlpKind::dense ? sample.gemms.dense_layers : sample.gemms.moe_layers);
  sample.gemms.gemms = model_detail::layer_gemms(model, plan, {sample.layer, false, sample.mlp});
  return sample;
}

LayerEstimate estimate_layer(const ModelConfig& model, const ParallelPlan& plan, const Workload& work,
                             const Link& link, const GemmTimer& timer, int stage) {
  const LayerSample sample = sample_layer(model, plan, stage);
  const MicroBatch mb = micro_batch(model, plan, work);
  LayerEstimate e;
  e.stage = stage;
  e.gemm_s = stage_gemm_seconds(sample.gemms, plan, mb, work, timer);
  e.comm_s = layer_comm_seconds(model, plan, sample.mlp, mb, work, link);
  if (stage < plan.pp - 1) e.send_s = send_seconds(link, stage_send_bytes(model, mb, work));
  return e;
}

void GemmTimeTable::set(const GemmCall& call, double seconds) {
  require(std::isfinite(seconds) && seconds >= 0, "GEMM time of {}x{}x{} = {} s must be finite and >= 0",
          call.shape.m, call.shape.n, call.shape.k, seconds);
  seconds_[{call.shape.m, call.shape.n, call.shape.k, call.fp4}] = seconds;
}

double GemmTimeTable::operator()(const GemmCall& call) const {
  const auto it = seconds_.find({call.shape.m, call.shape.n, call.shape.k, call.fp4});
  require(it != seconds_.end(), "no measured time for the {} GEMM M x N x K = {}x{}x{}", call.fp4 ? "fp4" : "bf16",
          call.shape.m, call.shape.n, call.shape.k);
  return it->second;
}

PlanEstimate estimate_plan(const ModelConfig& model, const ParallelPlan& plan, const Workload& work, const Link& link,
                           const GemmTimer& timer) {
  const std::vector<Stage> stages = per_gpu_gemms(model, plan);  // validates the plan
  PlanEstimate est;
  est.plan = plan;
  // 1. Micro-batches.
  const MicroBatch mb = micro_batch(model, plan, work);
  est.microbatches = mb.count;
  est.microbatch_tokens = mb.tokens;
  // 2-4. Stages, forward, bubble.
  double sum = 0, slowest = 0;
  for (const Stage& st : stages) {
    StageEstimate s{stage_gemm_seconds(st, plan, mb, work, timer), stage_comm_seconds(model, plan, st, mb, work, link)};
    if (s.total_s() > slowest) {
      slowest = s.total_s();
      est.bottleneck_stage = st.index;
    }
    sum += s.total_s();
    est.stages.push_back(s);
  }
  est.forward_s = sum + (est.microbatches - 1) * slowest;
  est.bubble_s = est.forward_s - est.microbatches * slowest;
  est.gemm_s = est.microbatches * est.stages[std::size_t(est.bottleneck_stage)].gemm_s;
  est.comm_s = est.microbatches * est.stages[std::size_t(est.bottleneck_stage)].comm_s;
  return est;
}

std::vector<GemmCall> distinct_gemm_calls(const std::function<void(const GemmTimer&)>& run) {
  std::set<std::tuple<bool, std::int64_t, std::int64_t, std::int64_t>> seen;  // fp4, n, k, m
  run([&](const GemmCall& c) {
    seen.insert({c.fp4, c.shape.n, c.shape.k, c.shape.m});
    return 0.0;
  });
  std::vector<GemmCall> calls;
  for (const auto& [fp4, n, k, m] : seen) calls.push_back({{m, n, k}, fp4});
  return calls;
}

std::vector<GemmCall> required_gemm_calls(const ModelConfig& model, const ParallelPlan& plan, const Workload& work) {
  return distinct_gemm_calls(
      [&](const GemmTimer& timer) { estimate_plan(model, plan, work, links().front(), timer); });
}

PlanComparison compare_plans(const ModelConfig& model, std::span<const ParallelPlan> plans, const Workload& work,
                             const Link& link, const GemmTimer& timer) {
  require(!plans.empty(), "compare_plans needs at least one plan");
  PlanComparison c;
  for (const ParallelPlan& p : plans) c.ranked.push_back(estimate_plan(model, p, work, link, timer));
  std::stable_sort(c.ranked.begin(), c.ranked.end(), [](const PlanEstimate& a, const PlanEstimate& b) {
    return seconds_per_token_per_gpu(a) < seconds_per_token_per_gpu(b);
  });
  const PlanEstimate& best = c.ranked.front();
  c.verdict = c.ranked.size() == 1
                  ? fmt::format("{} is the only plan\n", to_string(best.plan))
                  : fmt::format("{} wins: {:.2f}x the throughput per GPU of {}\n", to_string(best.plan),
                                seconds_per_token_per_gpu(c.ranked[1]) / seconds_per_token_per_gpu(best),
                                to_string(c.ranked[1].plan));
  for (const PlanEstimate& e : c.ranked)
    c.verdict += fmt::format("{}: {} GPUs, forward {} (slowest stage: GEMM {}, communication {}; bubble {}): {}-bound\n",
                             to_string(e.plan), e.plan.gpus(), format_seconds(e.forward_s), format_seconds(e.gemm_s),
                             format_seconds(e.comm_s), format_seconds(e.bubble_s),
                             e.compute_bound() ? "compute" : "communication");
  return c;
}

}  // namespace fp4gemm
