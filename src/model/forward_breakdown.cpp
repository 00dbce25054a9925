// Per-forward GEMM totals (forward_breakdown.hpp).
#include "model/forward_breakdown.hpp"

#include <algorithm>

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

double rank_routed_seconds(const GemmEntry& e, std::span<const std::int64_t> counts, const GemmTimer& timer,
                           std::vector<std::int64_t>* m) {
  double s = 0;
  for (std::int64_t count : counts)
    if (count > 0) {
      s += timer({{count, e.n, e.k}, e.fp4});
      if (m) m->push_back(count);
    }
  return s;
}

}  // namespace

StageBreakdown stage_breakdown(const Stage& stage, const ParallelPlan& plan, std::int64_t gpu_tokens,
                               const std::vector<std::int64_t>& routed, int mtp_passes, const GemmTimer& timer) {
  StageBreakdown out;
  out.stage = stage.index;
  // The slowest EP rank in routed-expert time.
  std::vector<double> rank_s(static_cast<std::size_t>(plan.ep), 0.0);
  for (const GemmEntry& e : stage.gemms)
    if (e.m_source == MSource::routed_tokens)
      for (int g = 0; g < plan.ep; ++g)
        rank_s[std::size_t(g)] += (e.mtp ? mtp_passes : 1) * e.layers *
                                  rank_routed_seconds(e, expert_slice(routed, plan.ep, g), timer, nullptr);
  out.expert_rank = int(std::max_element(rank_s.begin(), rank_s.end()) - rank_s.begin());
  for (const GemmEntry& e : stage.gemms) {
    GemmTotal row{e, {}, 0, 0, 0};
    if (e.m_source == MSource::tokens) {
      row.m = {gpu_tokens};
      row.per_layer_s = timer({{gpu_tokens, e.n, e.k}, e.fp4}) * e.per_layer_count;
    } else {
      row.per_layer_s = rank_routed_seconds(e, expert_slice(routed, plan.ep, out.expert_rank), timer, &row.m);
    }
    row.forward_s = row.per_layer_s * e.layers * (e.mtp ? mtp_passes : 1);
    out.forward_s += row.forward_s;
    out.gemms.push_back(std::move(row));
  }
  for (GemmTotal& row : out.gemms) row.share = out.forward_s > 0 ? row.forward_s / out.forward_s : 0;
  return out;
}

std::vector<StageBreakdown> forward_breakdown(const ModelConfig& model, const ParallelPlan& plan,
                                              const ForwardWorkload& work, const GemmTimer& timer) {
  const std::vector<Stage> stages = per_gpu_gemms(model, plan);  // validates the plan
  require(work.tokens >= 1, "batch = {} tokens must be at least 1", work.tokens);
  require(work.mtp_passes >= 0, "--mtp-passes = {} must be >= 0", work.mtp_passes);
  const std::int64_t gpu_tokens = (work.tokens + plan.dp() - 1) / plan.dp();
  std::vector<std::int64_t> routed;
  if (model.moe) routed = route_tokens(work.tokens, model.moe->top_k, model.moe->experts, work.routing);
  std::vector<StageBreakdown> out;
  for (const Stage& st : stages) out.push_back(stage_breakdown(st, plan, gpu_tokens, routed, work.mtp_passes, timer));
  return out;
}

std::vector<GemmCall> forward_gemm_calls(const ModelConfig& model, const ParallelPlan& plan,
                                         const ForwardWorkload& work) {
  return distinct_gemm_calls([&](const GemmTimer& timer) { forward_breakdown(model, plan, work, timer); });
}

}  // namespace fp4gemm
