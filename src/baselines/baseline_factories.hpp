#pragma once
// One factory per baseline backend (each defined in its own file), listed by baseline_backends.cpp.
#include <memory>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/grouped.hpp"

namespace fp4gemm::baselines {

std::unique_ptr<Backend> make_cublas_bf16_backend();   // cublas_bf16.cpp
std::unique_ptr<Backend> make_cublaslt_fp8_backend();  // cublaslt_fp8.cpp
std::unique_ptr<Backend> make_cublaslt_fp4_backend();  // cublaslt_fp4.cpp
std::unique_ptr<GroupedBackend> make_cublas_bf16_loop_backend();  // cublas_bf16_loop.cpp

}  // namespace fp4gemm::baselines
