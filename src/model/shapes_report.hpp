#pragma once
// The report of `fp4gemm shapes`: a model's per-GPU GEMMs under a plan, as a text table a user
// can check against their serving engine, or as JSON (shape in shapes_report.cpp).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fp4gemm/parallel.hpp"

namespace fp4gemm {

// `stages` is per_gpu_gemms(model, plan).
std::string shapes_table(const ModelConfig& model, const ParallelPlan& plan, const std::vector<Stage>& stages);
nlohmann::json shapes_json(const ModelConfig& model, const ParallelPlan& plan, const std::vector<Stage>& stages);

}  // namespace fp4gemm
