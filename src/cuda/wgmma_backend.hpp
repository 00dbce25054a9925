#pragma once
// cuda-wgmma: FP4 GEMM on Hopper's wgmma bf16 tensor cores (sm_90a: H100, H200), TMA-fed,
// exact up to fp32 accumulation order. Kernel: wgmma_gemm.cuh; launcher: wgmma_gemm.cu.
#include <memory>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

std::unique_ptr<Backend> make_wgmma_backend();

}  // namespace fp4gemm::cuda
