// The cuda-dequant-cublas Backend (dequant_cublas_backend.hpp). prepare() uploads the operands
// in their own layout (KernelOperands), allocates the bf16 copies of B (N x K) and, for w4a4, of A
// (M x K), and a cuBLAS handle on the run's stream and workspace, so run() only enqueues:
//   1. (w4a4) quantize the bf16 activations on the GPU (as every FP4 backend does), then
//      dequantize A to bf16;
//   2. dequantize B to bf16 (exact: E2M1 x block scale; scale_2 goes into alpha);
//   3. cublasGemmEx, bf16 x bf16 -> out_dtype, fp32 compute, no reduced-precision reductions.
#include "cuda/dequant_cublas_backend.hpp"

#include <fmt/format.h>

#include "baselines/cublas_16bit.hpp"
#include "baselines/cublas_conventions.hpp"  // kWorkspaceBytes
#include "cuda/device_gemm_run.hpp"
#include "cuda/fp4_dequantize.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/kernel_operands.hpp"
#include "cuda/mma_backend.hpp"

namespace fp4gemm::cuda {
namespace {

class DequantCublasRun final : public DeviceGemmRun {
 public:
  explicit DequantCublasRun(const GemmOperands& operands)
      : DeviceGemmRun(operands.problem),
        operands_(operands, 0, 0, output_ptr(), stream()),
        b_bf16_(std::size_t(operands.problem.shape.n * operands.problem.shape.k)),
        a_bf16_(operands.problem.mode == Mode::w4a4
                    ? std::size_t(operands.problem.shape.m * operands.problem.shape.k)
                    : 0),
        workspace_(baselines::kWorkspaceBytes),
        handle_(baselines::make_exact_cublas_handle(stream(), workspace_)) {}

  void stream_changed() override { baselines::bind_cublas_stream(handle_.get(), stream(), workspace_); }

  void run() override {
    const GemmProblem& p = problem();
    const KernelPointers& ops = operands_.pointers();
    const std::uint16_t* a = ops.a_bf16;
    operands_.quantize_activations(stream());
    if (p.mode == Mode::w4a4) {
      dequantize_fp4_to_bf16(ops.a_data, ops.a_scales, p.format, p.scale_layout, p.shape.m, p.shape.k,
                             a_bf16_.get(), stream());
      a = a_bf16_.get();
    }
    dequantize_fp4_to_bf16(ops.b_data, ops.b_scales, p.format, p.scale_layout, p.shape.n, p.shape.k,
                           b_bf16_.get(), stream());
    baselines::cublas_gemm_16bit(handle_.get(), p.shape, DType::bf16, a, b_bf16_.get(), ops.alpha,
                                 output_ptr(), p.out_dtype);
  }
  std::vector<float> output() override {
    operands_.check_activations(stream());
    return DeviceGemmRun::output();
  }

 private:
  KernelOperands operands_;
  DeviceBuffer<std::uint16_t> b_bf16_, a_bf16_;  // this call's exact bf16 B (N x K), A (w4a4)
  DeviceBuffer<std::uint8_t> workspace_;         // before handle_, which uses it
  baselines::CublasHandle handle_;
};

class DequantCublasBackend final : public Backend {
 public:
  std::string_view name() const override { return "cuda-dequant-cublas"; }
  std::string_view summary() const override {
    return "FP4 weights dequantized on the GPU to an exact bf16 copy in every call (a buffer "
           "allocated once in prepare()), then a cuBLAS bf16 GEMM with fp32 accumulation; w4a4: "
           "the bf16 activations quantized on the GPU, then dequantized to bf16; bf16 or f32 "
           "output; sm_80+";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  // bf16_mma_accuracy's bound (exact bf16 operands, a full fp32 ulp per tensor-core step; cuBLAS
  // reductions stay in fp32), with its own note.
  Accuracy accuracy() const override {
    Accuracy a = bf16_mma_accuracy();
    a.note = "exact: FP4 -> bf16 on the GPU in every call, cuBLAS bf16 GEMM with fp32 accumulation";
    return a;
  }
  Verdict availability() const override {
    if (const Verdict sm = require_sm(80, "needs sm_80+ (bf16 tensor cores)"); !sm) return sm;
    return dequantize_kernel_image_present("cuda-dequant-cublas");
  }
  Verdict can_implement(const GemmProblem& problem) const override {
    if (const Verdict shape = shape_verdict(problem.shape, problem.format); !shape) return shape;
    if (problem.out_dtype == DType::f16)
      return Verdict::no("f16 output: cuBLAS has no bf16 x bf16 -> f16 GEMM; ask for bf16 or f32");
    return baselines::cublas_16bit_can_implement(problem);
  }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    operands.validate();
    const Verdict available = availability();
    if (!available) throw Error(fmt::format("cuda-dequant-cublas is not available: {}", available.reason));
    const Verdict taken = can_implement(operands.problem);
    if (!taken)
      throw InvalidArgument(fmt::format("cuda-dequant-cublas cannot run {}: {}", operands.problem.describe(),
                                        taken.reason));
    return std::make_unique<DequantCublasRun>(operands);
  }
};

}  // namespace

std::unique_ptr<Backend> make_dequant_cublas_backend() { return std::make_unique<DequantCublasBackend>(); }

}  // namespace fp4gemm::cuda
