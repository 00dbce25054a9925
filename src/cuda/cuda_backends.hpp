#pragma once
// Factories of fp4gemm's own CUDA kernel backends, called by the backend registry.
#include <memory>
#include <vector>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/grouped.hpp"

namespace fp4gemm {
void add_cuda_backends(std::vector<std::unique_ptr<Backend>>& list);
void add_cuda_grouped_backends(std::vector<std::unique_ptr<GroupedBackend>>& list);
}
