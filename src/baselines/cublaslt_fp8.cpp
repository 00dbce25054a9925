// cublaslt-fp8: the FP8 path a Hopper user can take (vLLM converts NVFP4 checkpoints to FP8 on
// H100/H200). LOSSY: the block values are re-quantized on the host in prepare() to E4M3 with one
// fp32 scale per tensor,
//   s = amax(|x|) / 448  (1 for an all-zero tensor),   x8 = e4m3_rne(x / s)  (in fp32),
// and cublasLtMatmul multiplies them on the FP8 tensor cores with the scales as the A/B scale
// pointers and alpha_total as alpha. E4M3 has 3 mantissa bits where NVFP4 block values need up
// to 6, so the operands change.
//
// Rules of cuBLASLt's FP8 matmul (cuBLAS docs, cublasLtMatmul): compute type CUBLAS_COMPUTE_32F,
// scale type CUDA_R_32F, A transposed and B not ("TN", which our row-major K-major operands are:
// cublas_conventions.hpp), leading dimensions multiples of 16 bytes (lt_alignment), sm_89+.
// Output: with E4M3 A and B, (C, D) may be (f32, f32), (bf16, bf16), (f16, f16) or an FP8 D,
// so every fp4gemm output dtype is allowed.
#include <cmath>
#include <cstring>

#include "baselines/baseline_factories.hpp"
#include "cuda/gpu_requirement.hpp"
#include "baselines/lt_gemm_run.hpp"
#include "baselines/operand_values.hpp"
#include "fp4gemm/codecs.hpp"

namespace fp4gemm::baselines {
namespace {

// Per-tensor-scaled E4M3 codes of `values` and their scale, on the GPU.
LtOperand to_e4m3(const std::vector<float>& values) {
  float amax = 0.0f;
  for (const float v : values) amax = std::fmax(amax, std::fabs(v));
  const float scale = amax > 0.0f ? amax / kE4M3Max : 1.0f;
  std::vector<std::uint8_t> codes(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) codes[i] = e4m3_from_float(values[i] / scale);
  std::vector<std::uint8_t> scale_bytes(sizeof scale);
  std::memcpy(scale_bytes.data(), &scale, sizeof scale);
  return {cuda::DeviceBuffer<std::uint8_t>(codes), cuda::DeviceBuffer<std::uint8_t>(scale_bytes)};
}

class CublasLtFp8Backend final : public Backend {
 public:
  std::string_view name() const override { return "cublaslt-fp8"; }
  std::string_view summary() const override {
    return "cuBLASLt FP8 GEMM on operands re-quantized on the host in prepare() to per-tensor-"
           "scaled E4M3: lossy";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  OperandEncoding encoding() const override { return OperandEncoding::fp8; }
  Accuracy accuracy() const override {
    // Input: E4M3 round-to-nearest keeps 3 mantissa bits, a relative error of at most half an
    // ulp, 2^-4, for values in E4M3's normal range. The per-tensor scale maps amax to 448, so a
    // value leaves that range (below 2^-6) only when it is 2^-14.8 times smaller than amax; its
    // error is then at most 2^-10 * s in absolute terms, negligible against the bound's S.
    // (The product's second-order term 2^-8 is covered by K * 2^-13 for K >= 32.)
    // Accumulation: Hopper's FP8 tensor cores keep about 14 bits of the running sum (DeepSeek-V3
    // technical report, sec. 3.3.2, measured on H800). A 14-bit accumulator that truncates has a
    // unit of 2^(1-14) = 2^-13 per addition; cuBLASLt's periodic promotion of partial sums to
    // fp32 (FAST_ACCUM off, lt_matmul_plan.cpp) can only make the error smaller.
    return {false, 0x1p-4, 0x1p-13,
            "lossy: operands re-quantized to per-tensor E4M3; FP8 tensor-core accumulation"};
  }
  Verdict availability() const override { return cuda::require_sm(89, "needs sm_89+ (FP8 tensor cores)"); }
  Verdict can_implement(const GemmProblem& p) const override { return lt_alignment(p, 8, "FP8"); }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& ops) const override {
    ops.validate();
    const Verdict v = can_implement(ops.problem);
    require(v.ok, "cublaslt-fp8 cannot run {}: {}", ops.problem.describe(), v.reason);
    const LtMatmulSpec spec{ops.problem.shape, CUDA_R_8F_E4M3, CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F,
                            ops.problem.out_dtype};
    return std::make_unique<LtGemmRun>(ops.problem, spec, to_e4m3(weight_values(ops)),
                                       to_e4m3(activation_values(ops)), ops.alpha_total());
  }
};

}  // namespace

std::unique_ptr<Backend> make_cublaslt_fp8_backend() { return std::make_unique<CublasLtFp8Backend>(); }

}  // namespace fp4gemm::baselines
