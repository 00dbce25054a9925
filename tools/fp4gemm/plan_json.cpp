#include "plan_json.hpp"

#include "commands.hpp"
#include "fp4gemm/parallel.hpp"

namespace fp4gemm::cli {

double comm_seconds_per_layer(const ModelConfig& model, const PlanEstimate& e) {
  const Stage& bottleneck = per_gpu_gemms(model, e.plan)[std::size_t(e.bottleneck_stage)];
  return e.comm_s / e.microbatches / (bottleneck.dense_layers + bottleneck.moe_layers);
}

nlohmann::json plan_batch_json(const ModelConfig& model, const PlanComparison& c, std::int64_t tokens) {
  nlohmann::json plans = nlohmann::json::array();
  for (const PlanEstimate& e : c.ranked) {
    nlohmann::json stages = nlohmann::json::array();
    for (const StageEstimate& s : e.stages) stages.push_back({{"gemm_us", s.gemm_s * 1e6}, {"comm_us", s.comm_s * 1e6}});
    plans.push_back({{"plan", to_string(e.plan)},
                     {"gpus", e.plan.gpus()},
                     {"microbatches", e.microbatches},
                     {"microbatch_tokens", e.microbatch_tokens},
                     {"gemm_us", e.gemm_s * 1e6},
                     {"comm_us", e.comm_s * 1e6},
                     {"comm_us_per_layer", comm_seconds_per_layer(model, e) * 1e6},
                     {"bubble_us", e.bubble_s * 1e6},
                     {"forward_us", e.forward_s * 1e6},
                     {"tokens_per_s_per_gpu", e.tokens_per_second(tokens) / e.plan.gpus()},
                     {"bound", e.compute_bound() ? "compute" : "communication"},
                     {"bottleneck_stage", e.bottleneck_stage},
                     {"stages", std::move(stages)}});
  }
  return {{"tokens", tokens}, {"winner", to_string(c.ranked.front().plan)}, {"verdict", c.verdict},
          {"plans", std::move(plans)}};
}

nlohmann::json plan_json(const PlanRunInfo& info, nlohmann::json batches) {
  return {{"schema", "fp4gemm.plan/1"},
          {"fp4gemm_version", FP4GEMM_VERSION},
          {"command", command_line()},
          {"model", info.model},
          {"gpus", info.gpus},
          {"link", info.link},
          {"backend", info.backend},
          {"mode", info.mode},
          {"gemm_times", info.times_source},
          {"batches", std::move(batches)}};
}

}  // namespace fp4gemm::cli
