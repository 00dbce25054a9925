#pragma once
// `fp4gemm plan --measure`: each plan's layer run on this host's GPUs, one process per GPU
// (cluster/layer_measure.hpp), compared with plan's prediction of the same layer, and the link
// model calibrated from the collectives measured in the same run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/layer_measure.hpp"
#include "fp4gemm/plan_estimate.hpp"
#include "model/bench_times.hpp"

namespace fp4gemm::cli {

struct PlanMeasureInput {
  ModelConfig model;
  std::vector<ParallelPlan> plans;
  std::vector<std::int64_t> batches;
  Workload work;  // routing, MTP passes; tokens set per batch
  Link link;      // the prediction's link (--link or --link-from)
  bool backend_named = false;  // --backend given: checked before the GPUs are counted
  // The prediction's GEMM times from --from (its backend), else the ranks' own isolated times.
  std::optional<BenchTimes> from_times;
  std::string from_backend, from_path;
  MeasureSettings settings;
  std::string json_path;
  bool force = false;
};

void run_plan_measure(const PlanMeasureInput& input);

}  // namespace fp4gemm::cli
