#pragma once
// The GEMMs of one layer on one GPU, for per_gpu_gemms (which merges layers into rows).
#include <vector>

#include "fp4gemm/parallel.hpp"

namespace fp4gemm::model_detail {

// A decoder layer, or MTP layer j (index num_layers + j).
struct LayerSite {
  int index = 0;
  bool mtp = false;
  MlpKind mlp = MlpKind::dense;
};

// In forward order, each with layers = 1, fp4 from model.fp4 at this layer's module names.
// An MTP layer adds its eh_proj before the decoder block and its shared_head.head after.
// Assumes validate_plan(model, plan) passed.
std::vector<GemmEntry> layer_gemms(const ModelConfig& model, const ParallelPlan& plan, const LayerSite& site);

// The model's lm_head (once per forward, on the last stage).
GemmEntry lm_head_gemm(const ModelConfig& model, const ParallelPlan& plan);

}  // namespace fp4gemm::model_detail
