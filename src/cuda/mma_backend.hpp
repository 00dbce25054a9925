#pragma once
// cuda-mma: FP4 GEMM on mma.sync bf16 tensor cores (any sm_80+ GPU), exact up to fp32
// accumulation order. Kernel: mma_gemm.cuh; launcher: mma_gemm.cu.
#include <memory>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

std::unique_ptr<Backend> make_mma_backend();

// The accuracy of every kernel that rebuilds FP4 x scale exactly in bf16 and accumulates on
// mma.sync in fp32 (cuda-mma, cuda-decode).
Accuracy bf16_mma_accuracy();

}  // namespace fp4gemm::cuda
