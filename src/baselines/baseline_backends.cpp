// PLACEHOLDER (being replaced by the cuBLAS baseline work).
#include "baselines/baseline_backends.hpp"
namespace fp4gemm {
void add_baseline_backends(std::vector<std::unique_ptr<Backend>>&) {}
}
