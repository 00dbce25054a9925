// cublas-bf16: what a Hopper user does today with an FP4 checkpoint. The operands are
// dequantized on the host in prepare() to their block values A_hat, B_hat (scale_2 goes into
// alpha) in BF16, which holds them exactly, and multiplied by cublasGemmEx with fp32 accumulation
// on the tensor cores. So the result is the exact product up to fp32 accumulation order.
//
// The 16-bit rules (f16 output only for NVFP4 w4a4) and the call: cublas_16bit.hpp.
#include <fmt/format.h>

#include "baselines/baseline_factories.hpp"
#include "baselines/cublas_16bit.hpp"
#include "baselines/cublas_conventions.hpp"  // kWorkspaceBytes
#include "cuda/gpu_requirement.hpp"
#include "baselines/operand_values.hpp"
#include "cuda/device_gemm_run.hpp"

namespace fp4gemm::baselines {
namespace {

class CublasGemmRun final : public cuda::DeviceGemmRun {
 public:
  CublasGemmRun(const GemmProblem& problem, DType operand_dtype, const std::vector<float>& a_hat,
                const std::vector<float>& b_hat, float alpha)
      : cuda::DeviceGemmRun(problem),
        operand_dtype_(operand_dtype),
        a_(exact_16bit(a_hat, operand_dtype, "A_hat")),
        b_(exact_16bit(b_hat, operand_dtype, "B_hat")),
        alpha_(alpha),
        workspace_(kWorkspaceBytes),
        handle_(make_exact_cublas_handle(stream(), workspace_)) {}

  // The handle enqueues on stream() with the run's own workspace, so that run() allocates
  // nothing (and can be captured into a CUDA graph).
  void stream_changed() override { bind_cublas_stream(handle_.get(), stream(), workspace_); }

  void run() override {
    cublas_gemm_16bit(handle_.get(), problem().shape, operand_dtype_, a_.get(), b_.get(), alpha_,
                      output_ptr(), problem().out_dtype);
  }

 private:
  DType operand_dtype_;
  cuda::DeviceBuffer<std::uint16_t> a_, b_;  // A_hat (M x K), B_hat (N x K), row-major
  float alpha_;
  cuda::DeviceBuffer<std::uint8_t> workspace_;  // before handle_, which uses it
  CublasHandle handle_;
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
  Accuracy accuracy() const override { return cublas_16bit_accuracy(); }
  Verdict availability() const override {
    return cuda::require_sm(80, "needs sm_80+ (bf16 tensor cores)");
  }
  Verdict can_implement(const GemmProblem& p) const override { return cublas_16bit_can_implement(p); }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& ops) const override {
    ops.validate();
    const Verdict v = can_implement(ops.problem);
    require(v.ok, "cublas-bf16 cannot run {}: {}", ops.problem.describe(), v.reason);
    return std::make_unique<CublasGemmRun>(ops.problem, cublas_operand_dtype(ops.problem),
                                           activation_values(ops), weight_values(ops), ops.alpha_total());
  }
};

}  // namespace

std::unique_ptr<Backend> make_cublas_bf16_backend() { return std::make_unique<CublasBf16Backend>(); }

}  // namespace fp4gemm::baselines
