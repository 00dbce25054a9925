// cublas-bf16: what a Hopper user does today with an FP4 checkpoint. The operands are
// dequantized on the host in prepare() to their block values A_hat, B_hat (scale_2 goes into
// alpha) in BF16, which holds them exactly, and multiplied by cublasGemmEx with fp32 accumulation
// on the tensor cores. So the result is the exact product up to fp32 accumulation order.
//
// cublasGemmEx with CUBLAS_COMPUTE_32F writes bf16 or f32 from bf16 inputs, never f16. For an
// f16 output the operands are FP16 instead: NVFP4 block values (q * e4m3, at most 6 significant
// bits, magnitudes 2^-10 .. 2688) are FP16 numbers, but MXFP4's (q * 2^e) and bf16 activations
// can lie outside FP16's range, so f16 output is offered for NVFP4 w4a4 only.
#include <climits>

#include <fmt/format.h>

#include "baselines/baseline_factories.hpp"
#include "baselines/cublas_conventions.hpp"
#include "baselines/cublas_objects.hpp"
#include "cuda/gpu_requirement.hpp"
#include "baselines/operand_values.hpp"
#include "cuda/device_gemm_run.hpp"

namespace fp4gemm::baselines {
namespace {

// Values in the 16-bit type `t` (bf16 or f16); InvalidArgument naming the first value the type
// does not hold exactly, so that the backend never silently changes an operand.
std::vector<std::uint16_t> exact_16bit(const std::vector<float>& values, DType t, const char* operand) {
  std::vector<std::uint16_t> codes(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float v = values[i];
    codes[i] = t == DType::bf16 ? bf16_from_float(v) : fp16_from_float(v);
    const float back = t == DType::bf16 ? bf16_to_float(codes[i]) : fp16_to_float(codes[i]);
    require(back == v, "{}[{}] = {} is not exact in {}: cublas-bf16 would change the operand",
            operand, i, v, to_string(t));
  }
  return codes;
}

class CublasGemmRun final : public cuda::DeviceGemmRun {
 public:
  CublasGemmRun(const GemmProblem& problem, DType operand_dtype, const std::vector<float>& a_hat,
                const std::vector<float>& b_hat, float alpha)
      : cuda::DeviceGemmRun(problem),
        operand_type_(cuda_data_type(operand_dtype)),
        a_(exact_16bit(a_hat, operand_dtype, "A_hat")),
        b_(exact_16bit(b_hat, operand_dtype, "B_hat")),
        alpha_(alpha),
        handle_(make_cublas_handle()),
        workspace_(kWorkspaceBytes) {
    stream_changed();
    // Split-K partial sums reduced in a 16-bit output type would round once per split, which the
    // exactness claim does not allow: reductions stay in fp32.
    FP4GEMM_CUBLAS_CHECK(cublasSetMathMode(
        handle_.get(), cublasMath_t(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  }

  // The handle enqueues on stream() with the run's own workspace, so that run() allocates
  // nothing (and can be captured into a CUDA graph). The stream first: cublasSetStream resets
  // the workspace to cuBLAS's own pool.
  void stream_changed() override {
    FP4GEMM_CUBLAS_CHECK(cublasSetStream(handle_.get(), stream()));
    FP4GEMM_CUBLAS_CHECK(cublasSetWorkspace(handle_.get(), workspace_.get(), workspace_.bytes()));
  }

  void run() override {
    // Row-major D = A B^T as column-major D' = op(A') op(B'): see cublas_conventions.hpp.
    const ColumnMajorGemm g = column_major(problem().shape);
    FP4GEMM_CUBLAS_CHECK(cublasGemmEx(handle_.get(), CUBLAS_OP_T, CUBLAS_OP_N, int(g.m), int(g.n),
                                      int(g.k), &alpha_, b_.get(), operand_type_, int(g.lda), a_.get(),
                                      operand_type_, int(g.ldb), &beta_, output_ptr(),
                                      cuda_data_type(problem().out_dtype), int(g.ldd),
                                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }

 private:
  cudaDataType_t operand_type_;
  cuda::DeviceBuffer<std::uint16_t> a_, b_;  // A_hat (M x K), B_hat (N x K), row-major
  float alpha_, beta_ = 0.0f;                // host pointer mode
  CublasHandle handle_;
  cuda::DeviceBuffer<std::uint8_t> workspace_;
};

class CublasBf16Backend final : public Backend {
 public:
  std::string_view name() const override { return "cublas-bf16"; }
  std::string_view summary() const override {
    return "cuBLAS GEMM on operands dequantized to bf16 on the host in prepare() (fp16 for f16 "
           "output), fp32 accumulation: exact, what a Hopper user does today";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  OperandEncoding encoding() const override { return OperandEncoding::bf16; }  // 2 bytes (fp16 too)
  Accuracy accuracy() const override {
    return {true, 0.0, 0x1p-23, "exact: bf16 block values, tensor cores, fp32 accumulate"};
  }
  Verdict availability() const override {
    return cuda::require_sm(80, "needs sm_80+ (bf16 tensor cores)");
  }
  Verdict can_implement(const GemmProblem& p) const override {
    const GemmShape& s = p.shape;
    if (s.m > INT_MAX || s.n > INT_MAX || s.k > INT_MAX)
      return Verdict::no(fmt::format("{}x{}x{}: cublasGemmEx takes int dimensions (at most {})",
                                     s.m, s.n, s.k, INT_MAX));
    if (p.out_dtype == DType::f16 && !(p.format == Fp4Format::nvfp4 && p.mode == Mode::w4a4))
      return Verdict::no(fmt::format(
          "f16 output of {} {}: cuBLAS has no bf16 x bf16 -> f16 GEMM, and these operands are not "
          "all exact in fp16 (only NVFP4 block values are); ask for bf16 or f32",
          to_string(p.format), to_string(p.mode)));
    return Verdict::yes();
  }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& ops) const override {
    ops.validate();
    const Verdict v = can_implement(ops.problem);
    require(v.ok, "cublas-bf16 cannot run {}: {}", ops.problem.describe(), v.reason);
    const DType operand_dtype = ops.problem.out_dtype == DType::f16 ? DType::f16 : DType::bf16;
    return std::make_unique<CublasGemmRun>(ops.problem, operand_dtype, activation_values(ops),
                                           weight_values(ops), ops.alpha_total());
  }
};

}  // namespace

std::unique_ptr<Backend> make_cublas_bf16_backend() { return std::make_unique<CublasBf16Backend>(); }

}  // namespace fp4gemm::baselines
