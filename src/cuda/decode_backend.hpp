#pragma once
// cuda-decode: FP4 GEMM for decode sizes (M <= 32), built to stream the weights at the memory
// bandwidth; exact like cuda-mma. Kernel: decode_gemm.cuh; launcher: decode_gemm.cu.
#include <memory>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

std::unique_ptr<Backend> make_decode_backend();

}  // namespace fp4gemm::cuda
