#pragma once
// Factories of fp4gemm's own CUDA kernel backends, called by the backend registry.
#include <memory>
#include <vector>

#include "fp4gemm/backend.hpp"

namespace fp4gemm {
void add_cuda_backends(std::vector<std::unique_ptr<Backend>>& list);
}
