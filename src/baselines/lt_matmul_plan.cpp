#include "baselines/lt_matmul_plan.hpp"

#include <fmt/format.h>

#include "baselines/cublas_conventions.hpp"

namespace fp4gemm::baselines {

Verdict lt_alignment(const GemmProblem& problem, int operand_bits, std::string_view kind) {
  const std::int64_t k_bytes = problem.shape.k * operand_bits / 8;
  if (k_bytes % 16 != 0) {
    return Verdict::no(fmt::format(
        "K = {} gives {}-byte operand rows; cuBLASLt {} kernels need leading dimensions that are "
        "multiples of 16 bytes (K a multiple of {})",
        problem.shape.k, k_bytes, kind, 128 / operand_bits));
  }
  const int out_bytes = dtype_bytes(problem.out_dtype);
  if (problem.shape.n * out_bytes % 16 != 0) {
    return Verdict::no(fmt::format(
        "N = {} gives {}-byte rows of {} output; cuBLASLt {} kernels need leading dimensions that "
        "are multiples of 16 bytes (N a multiple of {})",
        problem.shape.n, problem.shape.n * out_bytes, to_string(problem.out_dtype), kind,
        16 / out_bytes));
  }
  return Verdict::yes();
}

LtMatmulPlan::LtMatmulPlan(const LtMatmulSpec& spec)
    : desc_(make_matmul_desc(CUBLAS_COMPUTE_32F, CUDA_R_32F)) {
  const ColumnMajorGemm g = column_major(spec.shape);
  set_attribute(desc_.get(), CUBLASLT_MATMUL_DESC_TRANSA, CUBLAS_OP_T);
  set_attribute(desc_.get(), CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  const std::int32_t scale_mode = spec.scale_mode;
  set_attribute(desc_.get(), CUBLASLT_MATMUL_DESC_A_SCALE_MODE, scale_mode);
  set_attribute(desc_.get(), CUBLASLT_MATMUL_DESC_B_SCALE_MODE, scale_mode);
  // FP8: keep cuBLASLt's periodic promotion of partial sums to fp32 (0 is the default; it is
  // set here because the FP8 backend's accuracy bound assumes it).
  const std::int8_t fast_accumulation = 0;
  set_attribute(desc_.get(), CUBLASLT_MATMUL_DESC_FAST_ACCUM, fast_accumulation);

  weights_ = make_layout(spec.operand_type, g.k, g.m, g.lda);            // A': K x N
  activations_ = make_layout(spec.operand_type, g.k, g.n, g.ldb);        // B': K x M
  out_ = make_layout(cuda_data_type(spec.out_dtype), g.m, g.n, g.ldd);  // D': N x M (C too)

  preference_ = make_preference();
  const std::uint64_t workspace = kWorkspaceBytes;
  set_attribute(preference_.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, workspace);
  if (spec.out_dtype != DType::f32) {
    // Split-K partial sums reduced in the 16-bit output type (the in-place and output-type
    // schemes) would round every split, which no accuracy bound here covers: allow only no
    // split or a reduction in fp32, as PyTorch does when reduced-precision reduction is off.
    const std::uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_NONE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    set_attribute(preference_.get(), CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, schemes);
  }
}

void LtMatmulPlan::set_scale_pointers(const void* weight_scales, const void* activation_scales) {
  set_attribute(desc_.get(), CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, weight_scales);
  set_attribute(desc_.get(), CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, activation_scales);
}

std::optional<cublasLtMatmulHeuristicResult_t> LtMatmulPlan::best_algorithm(
    cublasLtHandle_t handle) const {
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      handle, desc(), weight_layout(), activation_layout(), out_layout(), out_layout(),
      preference_.get(), 1, &result, &found);
  // NOT_SUPPORTED: cuBLASLt has no heuristic, hence no kernel, for this configuration here.
  if (status == CUBLAS_STATUS_NOT_SUPPORTED) return std::nullopt;
  cuda::check_cublas(status, "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__);
  if (found == 0 || result.state != CUBLAS_STATUS_SUCCESS) return std::nullopt;
  return result;
}

}  // namespace fp4gemm::baselines
