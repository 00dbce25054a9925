// The cuda-mma Backend: availability on this machine, problem admission, and prepare(), which
// uploads the operands, plans the launch (mma_gemm.cu) and allocates the split-K workspace, so
// that run() only enqueues the kernel.
#include "cuda/mma_backend.hpp"

#include <fmt/format.h>

#include "cuda/kernel_operands.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/mma_gemm.hpp"

namespace fp4gemm::cuda {
namespace {

class MmaBackend final : public Backend {
 public:
  std::string_view name() const override { return "cuda-mma"; }
  std::string_view summary() const override {
    return "CUDA mma.sync bf16 tensor cores, FP4 dequantized in registers (exact), fp32 "
           "accumulation, split-K for small M; w4a4: the bf16 activations quantized on the GPU in "
           "every call; sm_80+";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  Accuracy accuracy() const override { return bf16_mma_accuracy(); }
  Verdict availability() const override {
    if (const Verdict sm = require_sm(80, "needs sm_80+ (bf16 mma.sync)"); !sm) return sm;
    return mma_kernel_image_present();
  }
  Verdict can_implement(const GemmProblem& problem) const override {
    return mma_can_implement(problem);
  }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    operands.validate();
    const Verdict available = availability();
    if (!available) throw Error(fmt::format("cuda-mma is not available: {}", available.reason));
    return std::make_unique<KernelGemmRun<MmaPlan, launch_mma_gemm>>(
        operands, plan_mma_gemm(operands.problem));
  }
};

}  // namespace

Accuracy bf16_mma_accuracy() {
  // Products of the (exact) bf16 block values are exact in fp32; the tensor cores add them in
  // fp32 but are not documented to round to nearest (they may truncate when aligning addends),
  // so one step may err by a full fp32 ulp: 2^-23 rather than 2^-24. The bound allows K steps
  // per output; the kernels take K/16 MMA steps plus at most K/64 split-K partial additions.
  // (cuda-mma, cuda-decode and cuda-grouped convert in registers for mma.sync, cuda-wgmma into
  // shared memory for wgmma: the same exact bf16 values and the same fp32 accumulation.)
  return {true, 0.0, 0x1p-23, "exact: E2M1 x scale -> bf16 (exact), tensor-core MMA with fp32 accumulation"};
}

std::unique_ptr<Backend> make_mma_backend() { return std::make_unique<MmaBackend>(); }

}  // namespace fp4gemm::cuda
