#pragma once
// LtGemmRun: the GemmRun of the cuBLASLt baselines. Owns the converted operands on the GPU, the
// LtMatmulPlan with its scale pointers set, the chosen algorithm and its workspace, all made in
// the constructor (that is, in prepare()); run() is the one cublasLtMatmul call.
#include <cstdint>

#include "baselines/lt_matmul_plan.hpp"
#include "cuda/device_gemm_run.hpp"

namespace fp4gemm::baselines {

// One operand on the GPU: rows x K elements, K-major (two per byte for FP4), and its scales as
// the plan's scale mode says (one fp32, or block scales in the 128x4 layout).
struct LtOperand {
  cuda::DeviceBuffer<std::uint8_t> data;
  cuda::DeviceBuffer<std::uint8_t> scales;
};

class LtGemmRun final : public cuda::DeviceGemmRun {
 public:
  // D = alpha * weights-times-activations as `spec` describes; throws Error when cuBLASLt has
  // no algorithm for it on this GPU.
  LtGemmRun(const GemmProblem& problem, const LtMatmulSpec& spec, LtOperand weights,
            LtOperand activations, float alpha);
  void run() override;

 private:
  LtOperand weights_, activations_;
  float alpha_, beta_ = 0.0f;
  LtHandle handle_;
  LtMatmulPlan plan_;
  cublasLtMatmulAlgo_t algo_{};
  cuda::DeviceBuffer<std::uint8_t> workspace_;
};

}  // namespace fp4gemm::baselines
