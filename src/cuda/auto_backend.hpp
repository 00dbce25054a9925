#pragma once
// auto: each problem runs on one of our exact CUDA backends (cuda-decode, cuda-dequant-cublas,
// cuda-wgmma, cuda-mma), the one the per-architecture table (dispatch_table.hpp) names for the GPU
// and the shape, or, when that one refuses, the first of the others in the fallback order that
// takes it. dispatch() says which and why (`bench --explain`).
#include <memory>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

std::unique_ptr<Backend> make_auto_backend();

}  // namespace fp4gemm::cuda
