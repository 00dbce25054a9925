#pragma once
// A cuBLASLt matmul of fp4gemm's GEMM with narrow operands (FP8 E4M3 or FP4 E2M1), described but
// not bound to data: the descriptor, the three layouts (cublas_conventions.hpp: A' = our B,
// B' = our A, D' = our D, "TN"), the preference, and the heuristic's choice of algorithm. Used
// by LtGemmRun to run it and by the FP4 backend's availability probe to ask whether it exists.
#include <cublasLt.h>

#include <optional>
#include <string_view>

#include "baselines/cublas_objects.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm::baselines {

struct LtMatmulSpec {
  GemmShape shape;
  cudaDataType_t operand_type;             // of both operands: CUDA_R_8F_E4M3 or CUDA_R_4F_E2M1
  cublasLtMatmulMatrixScale_t scale_mode;  // of both operands: SCALAR_32F, VEC16_UE4M3, VEC32_UE8M0
  DType out_dtype;
};

// cuBLAS's alignment rule for tensor-core kernels, which cuBLASLt's FP8 and FP4 kernels must
// use: the leading dimension of every matrix a multiple of 16 bytes. With the TN mapping the
// operands' is K (`operand_bits` each, so K * bits / 8 bytes) and D's is N (N * dtype bytes).
// `kind` names the kernels in the reason ("FP8").
// Not a rule: cuBLASLt 13.1 logs "Unsupported M dimension for FP8 matrix multiplication. M must
// be divisible by 16" for cuBLAS's m = our N = 8 and 24 on the H200, yet its heuristic still
// offers an FP8 kernel and the results verify (tests/cuda/baselines_test.cpp): only some kernel
// families need N % 16 == 0, which matters for speed, not for can_implement.
Verdict lt_alignment(const GemmProblem& problem, int operand_bits, std::string_view kind);

class LtMatmulPlan {
 public:
  explicit LtMatmulPlan(const LtMatmulSpec& spec);

  // Device pointers to the scales of the weights (our B, cuBLAS's A) and of the activations.
  void set_scale_pointers(const void* weight_scales, const void* activation_scales);
  // The heuristic's first choice within kWorkspaceBytes, or nothing if cuBLASLt has none for
  // this problem on the current device.
  std::optional<cublasLtMatmulHeuristicResult_t> best_algorithm(cublasLtHandle_t handle) const;

  cublasLtMatmulDesc_t desc() const { return desc_.get(); }
  cublasLtMatrixLayout_t weight_layout() const { return weights_.get(); }
  cublasLtMatrixLayout_t activation_layout() const { return activations_.get(); }
  cublasLtMatrixLayout_t out_layout() const { return out_.get(); }

 private:
  LtMatmulDesc desc_;
  LtMatrixLayout weights_, activations_, out_;
  LtPreference preference_;
};

}  // namespace fp4gemm::baselines
