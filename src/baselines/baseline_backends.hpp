#pragma once
// Factories of the vendor-library baselines (cuBLAS, cuBLASLt), called by the backend registry.
#include <memory>
#include <vector>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/grouped.hpp"

namespace fp4gemm {
void add_baseline_backends(std::vector<std::unique_ptr<Backend>>& list);
void add_baseline_grouped_backends(std::vector<std::unique_ptr<GroupedBackend>>& list);
}
