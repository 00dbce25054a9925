#pragma once
// cuda-dequant-cublas: the FP4 weights kept as FP4 on the device and dequantized on the GPU to an
// exact bf16 copy in every call (fp4_dequantize.cu, into a buffer allocated once in prepare()),
// then one cuBLAS bf16 GEMM with fp32 accumulation: exact, and for large M as fast as cuBLAS plus
// one pass over B (the dequantization writes N x K bf16 and the GEMM reads it back).
#include <memory>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

std::unique_ptr<Backend> make_dequant_cublas_backend();

}  // namespace fp4gemm::cuda
