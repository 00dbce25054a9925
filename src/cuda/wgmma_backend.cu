// The cuda-wgmma Backend: availability (an sm_90 GPU and the sm_90a image), admission, and
// prepare(), which uploads the operands with B's codes re-ordered for the consumers' register
// fragments (format/fragment_order.hpp) and re-packed for their bit placement
// (format/placed_codes.hpp) and its scales re-laid in the kernel's tile order (and, for w4a4, a
// buffer for the activations' bf16 block values), plans the launch and encodes the TMA tensor
// maps, so that run() only enqueues kernels.
#include "cuda/wgmma_backend.hpp"

#include <fmt/format.h>

#include "cuda/device_gemm_run.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/kernel_operands.hpp"
#include "cuda/mma_backend.hpp"
#include "cuda/wgmma_gemm.hpp"

namespace fp4gemm::cuda {
namespace {

// w4a16: one launch. w4a4: the bf16 activations are quantized on the GPU (KernelOperands), the
// same pass writing their block values (E2M1 x block scale, exact in bf16), which the GEMM reads
// through the activation tensor map as it reads w4a16's A (until stop 37 a separate kernel
// dequantized the FP4 activations into a buffer of their own).
class WgmmaGemmRun final : public DeviceGemmRun {
 public:
  WgmmaGemmRun(const GemmOperands& operands, const WgmmaPlan& plan)
      : DeviceGemmRun(operands.problem),
        plan_(plan),
        operands_(operands, plan.workspace_floats, plan.counters, output_ptr(), stream(),
                  BForm{.scale_tile_order = wgmma_scale_tile_order(operands.problem.format),
                        .fragment_order = true,
                        .placed_codes = true,
                        .code_tile_order = std::nullopt},
                  /*a_block_values=*/operands.problem.mode == Mode::w4a4),
        maps_(encode_wgmma_maps(operands.problem, plan_, operands_.pointers().a_bf16,
                                operands_.pointers().b_data, operands_.pointers().b_scale_tiles)) {}

  void run() override {
    operands_.quantize_activations(stream());
    launch_wgmma_gemm(problem(), plan_, maps_, operands_.pointers(), stream());
  }
  std::string plan() const override { return plan_.describe(); }
  std::vector<float> output() override {
    operands_.check_activations(stream());
    return DeviceGemmRun::output();
  }

 private:
  WgmmaPlan plan_;
  KernelOperands operands_;
  WgmmaTensorMaps maps_;
};

class WgmmaBackend final : public Backend {
 public:
  std::string_view name() const override { return "cuda-wgmma"; }
  std::string_view summary() const override {
    return "CUDA wgmma bf16 tensor cores (Hopper), TMA + mbarrier pipeline, persistent, warp "
           "specialized; FP4 weights dequantized to bf16 in registers (wgmma's register A "
           "operand) by the consumer warpgroups, overlapped with their MMAs (exact), fp32 "
           "accumulation; w4a4: the bf16 activations quantized on the GPU in every call, the "
           "same pass writing their exact bf16 block values, which the GEMM reads; NVFP4 needs "
           "K % 32 == 0; sm_90a";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  Accuracy accuracy() const override { return bf16_mma_accuracy(); }
  Verdict availability() const override {
    if (const Verdict sm = require_sm_exactly(90, "needs sm_90a (wgmma and TMA of Hopper)"); !sm)
      return sm;
    try {
      wgmma_choices_from_environment();
    } catch (const InvalidArgument& e) {
      return Verdict::no(e.what());
    }
    return wgmma_kernel_image_present();
  }
  Verdict can_implement(const GemmProblem& problem) const override {
    return wgmma_can_implement(problem);
  }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    operands.validate();
    const Verdict available = availability();
    if (!available) throw Error(fmt::format("cuda-wgmma is not available: {}", available.reason));
    return std::make_unique<WgmmaGemmRun>(operands,
                                          plan_wgmma_gemm(operands.problem, wgmma_choices_from_environment()));
  }
};

}  // namespace

std::unique_ptr<Backend> make_wgmma_backend() { return std::make_unique<WgmmaBackend>(); }

}  // namespace fp4gemm::cuda
