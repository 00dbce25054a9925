#pragma once
// cuda-fp8-lossy: FP4 GEMM re-expressed in FP8 E4M3 with per-block scales on Hopper's FP8 tensor
// cores (sm_90a). LOSSY and off by default: only run when named (auto never picks it).
// Kernel: fp8_gemm.cuh; launcher: fp8_gemm.cu; conversion rule: format/fp8_blocks.hpp.
#include <memory>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

std::unique_ptr<Backend> make_fp8_lossy_backend();

}  // namespace fp4gemm::cuda
