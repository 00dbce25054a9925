#pragma once
// `fp4gemm plan --json FILE`: the comparison of every batch as JSON, schema "fp4gemm.plan/1"
// (docs/plan-json.md).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fp4gemm/plan_estimate.hpp"

namespace fp4gemm::cli {

// The bottleneck stage's communication per layer and micro-batch (the table's "comm us/layer").
double comm_seconds_per_layer(const ModelConfig& model, const PlanEstimate& estimate);

// One batch's comparison: its tokens, the plans best first, the winner and the verdict text.
nlohmann::json plan_batch_json(const ModelConfig& model, const PlanComparison& comparison, std::int64_t tokens);

struct PlanRunInfo {
  std::string model, link, backend, mode, times_source;
  int gpus = 0;
};
// The file: schema, version, command, the run's settings and the batches.
nlohmann::json plan_json(const PlanRunInfo& info, nlohmann::json batches);

}  // namespace fp4gemm::cli
