#pragma once
// Factories of the CPU backends (cpu-reference, cpu-fast), called by the backend registry.
#include <memory>
#include <vector>

#include "fp4gemm/backend.hpp"

namespace fp4gemm {
void add_cpu_backends(std::vector<std::unique_ptr<Backend>>& list);
}
