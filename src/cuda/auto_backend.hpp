#pragma once
// auto: each problem runs on one of our CUDA kernels (cuda-decode, cuda-wgmma, cuda-mma), the one
// the per-architecture table (dispatch_table.hpp) names for the GPU and the shape, or the next in
// the fallback order when that one refuses. dispatch() says which and why (`bench --explain`).
#include <memory>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

std::unique_ptr<Backend> make_auto_backend();

}  // namespace fp4gemm::cuda
