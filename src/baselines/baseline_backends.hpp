#pragma once
// Factories of the vendor-library baselines (cuBLAS, cuBLASLt), called by the backend registry.
#include <memory>
#include <vector>

#include "fp4gemm/backend.hpp"

namespace fp4gemm {
void add_baseline_backends(std::vector<std::unique_ptr<Backend>>& list);
}
