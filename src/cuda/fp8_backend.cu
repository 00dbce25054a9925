// The cuda-fp8-lossy Backend: availability (an sm_90 GPU and the sm_90a image), admission, and
// prepare(), which converts the weights once to FP8 blocks (host, format/fp8_blocks.hpp),
// uploads them, allocates the activation workspaces, plans the launch and encodes the TMA maps,
// so that run() only enqueues kernels:
//   w4a16: activations bf16 -> FP8 1 x 128 blocks (fp8_quantize.cu), then the GEMM;
//   w4a4:  (with a bf16 source: bf16 -> FP4 on the GPU, as every FP4 kernel's w4a4 run does,)
//          FP4 -> bf16 (exact, fp4_dequantize.cu), bf16 -> FP8 1 x 128 blocks, then the GEMM.
#include "cuda/fp8_backend.hpp"

#include <fmt/format.h>

#include "cuda/device_gemm_run.hpp"
#include "cuda/fp4_dequantize.hpp"
#include "cuda/fp8_gemm.hpp"
#include "cuda/fp8_quantize.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/kernel_operands.hpp"
#include "format/fp8_blocks.hpp"

namespace fp4gemm::cuda {
namespace {

class Fp8GemmRun final : public DeviceGemmRun {
 public:
  Fp8GemmRun(const GemmOperands& operands, const Fp8Plan& plan, const Fp8BlockTensor& weights)
      : DeviceGemmRun(operands.problem),
        plan_(plan),
        operands_(operands, 0, 0, output_ptr(), stream()),
        weight_codes_(weights.codes),
        weight_scales_(weights.scales),
        a_dequantized_(operands.problem.mode == Mode::w4a4
                           ? std::size_t(operands.problem.shape.m * operands.problem.shape.k)
                           : 0),
        act_codes_(std::size_t(operands.problem.shape.m * plan.padded_k)),
        act_scales_(std::size_t(plan.k_blocks * plan.scale_stride)) {
    ops_.act_codes = act_codes_.get();
    ops_.act_scales = act_scales_.get();
    ops_.weight_codes = weight_codes_.get();
    ops_.weight_scales = weight_scales_.get();
    ops_.alpha = operands_.pointers().alpha;
    ops_.out = output_ptr();
    maps_ = encode_fp8_maps(operands.problem, plan, ops_);
  }

  void run() override {
    const GemmProblem& p = problem();
    const KernelPointers& in = operands_.pointers();
    operands_.quantize_activations(stream());
    const std::uint16_t* activations = in.a_bf16;
    if (p.mode == Mode::w4a4) {
      dequantize_fp4_to_bf16(in.a_data, in.a_scales, p.format, p.scale_layout, p.shape.m, p.shape.k,
                             a_dequantized_.get(), stream());
      activations = a_dequantized_.get();
    }
    quantize_bf16_to_fp8_blocks(activations, p.shape.m, p.shape.k, act_codes_.get(), plan_.padded_k,
                                act_scales_.get(), plan_.scale_stride, stream());
    launch_fp8_gemm(p, plan_, maps_, ops_, stream());
  }
  std::string plan() const override { return plan_.describe(); }
  std::vector<float> output() override {
    operands_.check_activations(stream());
    return DeviceGemmRun::output();
  }

 private:
  Fp8Plan plan_;
  KernelOperands operands_;
  DeviceBuffer<std::uint8_t> weight_codes_;   // N x Kp
  DeviceBuffer<float> weight_scales_;         // [ceil(N/128)][Kp/128]
  DeviceBuffer<std::uint16_t> a_dequantized_;  // w4a4: M x K bf16
  DeviceBuffer<std::uint8_t> act_codes_;      // M x Kp, rewritten by every run
  DeviceBuffer<float> act_scales_;            // [Kp/128][scale_stride], rewritten by every run
  Fp8Operands ops_;
  Fp8TensorMaps maps_;
};

class Fp8LossyBackend final : public Backend {
 public:
  std::string_view name() const override { return "cuda-fp8-lossy"; }
  std::string_view summary() const override {
    return "LOSSY FP8 path, off by default (never chosen by auto): the FP4 weights re-expressed "
           "once in prepare() as FP8 E4M3 with a power-of-two fp32 scale per 128x128 block; the "
           "activations quantized on the GPU in every timed call to E4M3 with a scale per token "
           "per 128 k (w4a4: FP4 activations dequantized to bf16 and requantized, on the GPU); "
           "CUDA FP8 wgmma m64n128k32 from TMA-fed shared memory, fp32 promotion every 128 k; sm_90a";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  OperandEncoding encoding() const override { return OperandEncoding::fp8; }
  bool only_when_named() const override { return true; }
  Accuracy accuracy() const override {
    // Input: E4M3 round-to-nearest of each operand, 2^-4 relative (format/fp8_blocks.hpp: the
    // power-of-two block scales make the division exact; a value below 2^-6 of its scale, i.e.
    // 2^-14.8 times the block's amax or less, has an absolute error of at most 2^-10 s instead,
    // negligible against S as in cublaslt-fp8's argument).
    // Accumulation: inside each 128-k block the FP8 tensor cores' sum keeps about 14 bits
    // (DeepSeek-V3 technical report, sec. 3.3.2): unit 2^-13 per addition, at most 128 of them;
    // then the block sum times the exact scale product is added into fp32 (2^-24 per block).
    return {false, 0x1p-4, 0x1p-13,
            "lossy: operands re-expressed as E4M3 with power-of-two scales per 128x128 weight "
            "block and per token x 128 k; FP8 tensor-core sums promoted to fp32 every 128 k",
            kFp8Block};
  }
  Verdict availability() const override {
    if (const Verdict sm = require_sm_exactly(90, "needs sm_90a (FP8 wgmma and TMA of Hopper)"); !sm)
      return sm;
    return fp8_kernel_image_present();
  }
  Verdict can_implement(const GemmProblem& problem) const override { return fp8_can_implement(problem); }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    operands.validate();
    const Verdict available = availability();
    if (!available) throw Error(fmt::format("cuda-fp8-lossy is not available: {}", available.reason));
    const Fp8Plan plan = plan_fp8_gemm(operands.problem);
    return std::make_unique<Fp8GemmRun>(operands, plan, fp8_blocks_of(operands.b));
  }
};

}  // namespace

std::unique_ptr<Backend> make_fp8_lossy_backend() { return std::make_unique<Fp8LossyBackend>(); }

}  // namespace fp4gemm::cuda
