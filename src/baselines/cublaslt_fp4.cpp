// cublaslt-nvfp4: cuBLASLt's block-scaled FP4 GEMM (CUDA_R_4F_E2M1 operands; NVFP4 with
// VEC16_UE4M3 scales, MXFP4 with VEC32_UE8M0), which runs on Blackwell only. The FP4 codes go to
// the GPU unchanged; prepare() rewrites the block scales into the 128x4 layout cuBLASLt reads
// (layout.hpp) and alpha_total is the alpha. w4a4 only: both operands must be FP4.
//
// UNTESTED on this project's hardware (H200, sm_90): there it reports itself unavailable.
// Availability is asked, never assumed: a Blackwell device and a cublasLtMatmulAlgoGetHeuristic
// probe that finds an algorithm for a small NVFP4 problem.
#include <fmt/format.h>

#include "baselines/baseline_factories.hpp"
#include "cuda/gpu_requirement.hpp"
#include "baselines/lt_gemm_run.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::baselines {
namespace {

cublasLtMatmulMatrixScale_t scale_mode(Fp4Format f) {
  return f == Fp4Format::nvfp4 ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3
                               : CUBLASLT_MATMUL_MATRIX_SCALE_VEC32_UE8M0;
}

LtOperand to_device(const Fp4Tensor& t) {
  const Fp4Tensor swizzled = with_scale_layout(t, ScaleLayout::swizzled);
  return {cuda::DeviceBuffer<std::uint8_t>(swizzled.data),
          cuda::DeviceBuffer<std::uint8_t>(swizzled.scales)};
}

// Whether cuBLASLt offers an NVFP4 algorithm for 128x128x128 -> bf16 on the current device.
Verdict probe_nvfp4() {
  try {
    const LtHandle handle = make_lt_handle();
    const LtMatmulPlan plan({{128, 128, 128}, CUDA_R_4F_E2M1, scale_mode(Fp4Format::nvfp4), DType::bf16});
    if (plan.best_algorithm(handle.get())) return Verdict::yes();
    return Verdict::no("cuBLASLt offers no NVFP4 algorithm on this GPU "
                       "(cublasLtMatmulAlgoGetHeuristic found none for 128x128x128)");
  } catch (const Error& e) {
    return Verdict::no(fmt::format("the cuBLASLt NVFP4 probe failed: {}", e.what()));
  }
}

class CublasLtFp4Backend final : public Backend {
 public:
  std::string_view name() const override { return "cublaslt-nvfp4"; }
  std::string_view summary() const override {
    return "cuBLASLt block-scaled FP4 GEMM (NVFP4 and MXFP4, Blackwell only); untested on this "
           "project's hardware (H200)";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  ComputePath compute_path() const override { return ComputePath::fp4_tensor; }
  Accuracy accuracy() const override {
    // The operands are the FP4 codes and scales themselves: exact. How many bits Blackwell's
    // block-scaled MMA keeps while accumulating is not public and not measured here; until it is,
    // assume no better than Hopper's FP8 tensor cores (14 bits, unit 2^-13: cublaslt_fp8.cpp).
    return {true, 0.0, 0x1p-13, "exact operands; accumulation width unmeasured (2^-13 assumed)"};
  }
  Verdict availability() const override {
    const Verdict sm = cuda::require_sm(100, "needs sm_100/sm_120 (Blackwell)");
    if (!sm) return sm;
    // Probed once per process: the device a process computes on does not change.
    static const Verdict probed = probe_nvfp4();
    return probed;
  }
  Verdict can_implement(const GemmProblem& p) const override {
    if (p.mode != Mode::w4a4)
      return Verdict::no(fmt::format(
          "{}: cuBLASLt's FP4 GEMM multiplies two block-scaled FP4 operands; bf16 activations "
          "have no FP4 x bf16 kernel (use w4a4)", to_string(p.mode)));
    return lt_alignment(p, 4, "FP4");
  }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& ops) const override {
    ops.validate();
    const Verdict v = can_implement(ops.problem);
    require(v.ok, "cublaslt-nvfp4 cannot run {}: {}", ops.problem.describe(), v.reason);
    const LtMatmulSpec spec{ops.problem.shape, CUDA_R_4F_E2M1, scale_mode(ops.problem.format),
                            ops.problem.out_dtype};
    return std::make_unique<LtGemmRun>(ops.problem, spec, to_device(ops.b), to_device(ops.a_fp4),
                                       ops.alpha_total());
  }
};

}  // namespace

std::unique_ptr<Backend> make_cublaslt_fp4_backend() { return std::make_unique<CublasLtFp4Backend>(); }

}  // namespace fp4gemm::baselines
