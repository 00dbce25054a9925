// The cuda-decode Backend: availability, admission (M <= 32), and prepare(), which uploads the
// operands, plans the launch and allocates the split-K workspace, so run() only enqueues.
#include "cuda/decode_backend.hpp"

#include <fmt/format.h>

#include "cuda/decode_gemm.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/kernel_operands.hpp"
#include "cuda/mma_backend.hpp"

namespace fp4gemm::cuda {
namespace {

class DecodeBackend final : public Backend {
 public:
  std::string_view name() const override { return "cuda-decode"; }
  std::string_view summary() const override {
    return "CUDA decode kernels (M <= 32): weights streamed once through a cp.async ring, "
           "dequantized in registers by bit placement (exact), mma.sync with the tokens as the MMA's "
           "N, split-K (summed in thread-block clusters on sm_90 where a tile has many K-slices), "
           "programmatic dependent launch on sm_90; w4a4: the bf16 activations quantized on the GPU in "
           "every call (at M = 1 with N <= 4096 by the GEMM kernel itself), staged as their block "
           "values; sm_80+";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  Accuracy accuracy() const override { return bf16_mma_accuracy(); }
  Verdict availability() const override {
    if (const Verdict sm = require_sm(80, "needs sm_80+ (bf16 mma.sync)"); !sm) return sm;
    try {
      decode_choices_from_environment();
    } catch (const InvalidArgument& e) {
      return Verdict::no(e.what());
    }
    return decode_kernel_image_present();
  }
  Verdict can_implement(const GemmProblem& problem) const override {
    return decode_can_implement(problem);
  }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    operands.validate();
    const Verdict available = availability();
    if (!available) throw Error(fmt::format("cuda-decode is not available: {}", available.reason));
    DecodeChoices choices = decode_choices_from_environment();
    // A kernel can quantize w4a4's activations only from their bf16 source: operands without one
    // (FP4 activations only, as `fp4gemm gemm --mode w4a4` reads them) take the plan that reads
    // their block values, and no quantization runs.
    if (operands.problem.mode == Mode::w4a4 && !operands.has_a_source())
      choices.a_quantize = AQuantize::separate;
    return std::make_unique<KernelGemmRun<DecodePlan, launch_decode_gemm>>(
        operands, plan_decode_gemm(operands.problem, 1, choices));
  }
};

}  // namespace

std::unique_ptr<Backend> make_decode_backend() { return std::make_unique<DecodeBackend>(); }

}  // namespace fp4gemm::cuda
