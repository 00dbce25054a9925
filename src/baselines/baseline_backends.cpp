// The vendor-library baselines, in the order reports list them: exact bf16, lossy FP8, and
// cuBLASLt's own FP4 (Blackwell).
#include "baselines/baseline_backends.hpp"

#include "baselines/baseline_factories.hpp"

namespace fp4gemm {

void add_baseline_backends(std::vector<std::unique_ptr<Backend>>& list) {
  list.push_back(baselines::make_cublas_bf16_backend());
  list.push_back(baselines::make_cublaslt_fp8_backend());
  list.push_back(baselines::make_cublaslt_fp4_backend());
}

void add_baseline_grouped_backends(std::vector<std::unique_ptr<GroupedBackend>>& list) {
  list.push_back(baselines::make_cublas_bf16_loop_backend());
}

}  // namespace fp4gemm
