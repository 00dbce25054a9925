// The cuda-wgmma Backend: availability (an sm_90 GPU and the sm_90a image), admission, and
// prepare(), which uploads the operands with B's codes re-packed for the consumers' bit
// placement (format/placed_codes.hpp) and its scales re-laid in the kernel's tile order, allocates
// the w4a4 bf16 activation workspace, plans the launch and encodes the TMA tensor maps, so that
// run() only enqueues kernels.
#include "cuda/wgmma_backend.hpp"

#include <fmt/format.h>

#include "cuda/device_gemm_run.hpp"
#include "cuda/fp4_dequantize.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/kernel_operands.hpp"
#include "cuda/mma_backend.hpp"
#include "cuda/wgmma_gemm.hpp"

namespace fp4gemm::cuda {
namespace {

// w4a16: one launch. w4a4: the bf16 activations are quantized on the GPU (KernelOperands), A is
// dequantized into a_dequantized_ (M x K bf16, exact), then the same GEMM reads it through the
// activation tensor map.
class WgmmaGemmRun final : public DeviceGemmRun {
 public:
  WgmmaGemmRun(const GemmOperands& operands, const WgmmaPlan& plan)
      : DeviceGemmRun(operands.problem),
        plan_(plan),
        operands_(operands, plan.workspace_floats, plan.counters, output_ptr(), stream(),
                  BForm{wgmma_scale_tile_order(operands.problem.format), true, std::nullopt}),
        a_dequantized_(operands.problem.mode == Mode::w4a4
                           ? std::size_t(operands.problem.shape.m * operands.problem.shape.k)
                           : 0),
        maps_(encode_wgmma_maps(operands.problem, plan_, activations(), operands_.pointers().b_data,
                                operands_.pointers().b_scale_tiles)) {}

  void run() override {
    const GemmProblem& p = problem();
    operands_.quantize_activations(stream());
    if (p.mode == Mode::w4a4) {
      const KernelPointers& ops = operands_.pointers();
      dequantize_fp4_to_bf16(ops.a_data, ops.a_scales, p.format, p.scale_layout, p.shape.m,
                             p.shape.k, a_dequantized_.get(), stream());
    }
    launch_wgmma_gemm(p, plan_, maps_, operands_.pointers(), stream());
  }
  std::vector<float> output() override {
    operands_.check_activations(stream());
    return DeviceGemmRun::output();
  }

 private:
  const std::uint16_t* activations() const {
    return problem().mode == Mode::w4a4 ? a_dequantized_.get() : operands_.pointers().a_bf16;
  }

  WgmmaPlan plan_;
  KernelOperands operands_;
  DeviceBuffer<std::uint16_t> a_dequantized_;
  WgmmaTensorMaps maps_;
};

class WgmmaBackend final : public Backend {
 public:
  std::string_view name() const override { return "cuda-wgmma"; }
  std::string_view summary() const override {
    return "CUDA wgmma bf16 tensor cores (Hopper), TMA + mbarrier pipeline, persistent, warp "
           "specialized; FP4 weights dequantized to bf16 in shared memory by the consumer "
           "warpgroups, overlapped with their MMAs (exact), fp32 accumulation; w4a4: the bf16 "
           "activations quantized on the GPU in every call, then A dequantized to bf16 by a "
           "separate GPU kernel; NVFP4 needs K % 32 == 0; sm_90a";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  Accuracy accuracy() const override { return bf16_mma_accuracy(); }
  Verdict availability() const override {
    if (const Verdict sm = require_sm_exactly(90, "needs sm_90a (wgmma and TMA of Hopper)"); !sm)
      return sm;
    return wgmma_kernel_image_present();
  }
  Verdict can_implement(const GemmProblem& problem) const override {
    return wgmma_can_implement(problem);
  }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    operands.validate();
    const Verdict available = availability();
    if (!available) throw Error(fmt::format("cuda-wgmma is not available: {}", available.reason));
    return std::make_unique<WgmmaGemmRun>(operands, plan_wgmma_gemm(operands.problem));
  }
};

}  // namespace

std::unique_ptr<Backend> make_wgmma_backend() { return std::make_unique<WgmmaBackend>(); }

}  // namespace fp4gemm::cuda
