#pragma once
// The operands of one GEMM as fp4gemm's own kernels take them (cuda-mma, cuda-decode):
//   KernelPointers  the device pointers a launch needs (FP4 operands keep their layout);
//   KernelOperands  owns the uploaded operands and the split-K workspace and counters, and
//                   hands out the pointers; built once in prepare(), so run() allocates nothing;
//   KernelGemmRun   the GemmRun of a kernel family: its plan, its operands, and run() = (w4a4:
//                   quantize the bf16 activations on the GPU, then) launch.
// A w4a4 family reads A as FP4 (codes and scales) or, if its plan says a_block_values, as bf16
// block values (code x block scale: exact in bf16, format/tensor.hpp), written by the same
// quantization pass; or, if its plan says a_quantized_in_kernel and the operands carry A's bf16
// source, the kernel quantizes that source itself (KernelPointers::a_source) and no quantization
// pass runs.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include <optional>

#include "cuda/device_buffer.hpp"
#include "cuda/device_gemm_run.hpp"
#include "cuda/gpu_quantize.hpp"
#include "format/fragment_order.hpp"
#include "format/placed_codes.hpp"
#include "format/tiles.hpp"
#include "fp4gemm/gemm.hpp"
#include "fp4gemm/matrix.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm::cuda {

struct KernelPointers {
  const std::uint8_t* b_data = nullptr;          // B's codes in the kernel's form (BForm)
  const std::uint8_t* b_scales = nullptr;
  std::int64_t b_scale_bytes = 0;
  const std::uint8_t* b_scale_tiles = nullptr;  // B's scales re-laid for the kernel, if it asks
  const std::uint8_t* a_data = nullptr;      // w4a4
  const std::uint8_t* a_scales = nullptr;    // w4a4
  std::int64_t a_scale_bytes = 0;            // w4a4
  const std::uint16_t* a_bf16 = nullptr;     // w4a16; w4a4 with a_block_values: A's block values
  // w4a4 quantized in the kernel: A's bf16 source, its scale_2, the NaN/inf report; else null.
  const std::uint16_t* a_source = nullptr;
  float a_scale_2 = 1.0f;
  QuantizeStatusWords* a_status = nullptr;
  float alpha = 1.0f;                        // alpha_total
  void* out = nullptr;                       // M x N of out_dtype
  float* workspace = nullptr;                // split-K partials
  int* counters = nullptr;                   // split-K tile counters, all zero between launches
};

// How a kernel family wants B on the device, besides its own layout: its scales also re-laid
// in a tile order (format/tiles.hpp), its codes re-ordered within 32-code groups for register A
// fragments (format/fragment_order.hpp), re-packed as placed codes (format/placed_codes.hpp),
// then (code_tile_order) re-laid in a tile order in place of B's rows, in that order.
struct BForm {
  std::optional<TileOrder> scale_tile_order;
  bool fragment_order = false;
  bool placed_codes = false;
  std::optional<TileOrder> code_tile_order;
};

// B's codes in the form `form` asks for (what KernelPointers::b_data points to).
inline std::vector<std::uint8_t> codes_in_form(const Fp4Tensor& b, const BForm& form) {
  std::vector<std::uint8_t> codes = form.fragment_order ? fragment_ordered_codes(b.data, b.cols) : b.data;
  if (form.placed_codes) codes = placed_codes(codes);
  if (form.code_tile_order) codes = tile_codes(codes, b.rows, b.cols, *form.code_tile_order);
  return codes;
}

class KernelOperands {
 public:
  // Uploads B and A (FP4 for w4a4, bf16 for w4a16), allocates `workspace_floats` floats and
  // `counters` zeroed ints (the kernels return every counter to zero themselves), with B's codes
  // and scales in the forms `b_form` asks for; with `a_block_values`, w4a4's A also as bf16 block
  // values (from the host tensor here, then from each requantization).
  // w4a4 operands that carry the bf16 source of A (GemmOperands::a_bf16) keep it on the device:
  // then quantize_activations() requantizes A on the GPU, as a serving engine does each call, or,
  // with `a_quantized_in_kernel`, the pointers hand the source to the kernel, which quantizes it.
  KernelOperands(const GemmOperands& operands, std::size_t workspace_floats, std::size_t counters,
                 void* out, cudaStream_t stream, const BForm& b_form = BForm{},
                 bool a_block_values = false, bool a_quantized_in_kernel = false)
      : b_(operands.b, codes_in_form(operands.b, b_form)),
        workspace_(workspace_floats),
        counters_(counters) {
    if (b_form.scale_tile_order)
      b_scale_tiles_ = DeviceBuffer<std::uint8_t>(tile_scales(operands.b, *b_form.scale_tile_order));
    if (operands.problem.mode == Mode::w4a4) {
      const Fp4Tensor& a = operands.a_fp4;
      if (operands.has_a_source()) {
        a_source_ = DeviceBuffer<std::uint16_t>(operands.a_bf16.half);
        a_quantize_ = {operands.problem.format, operands.problem.scale_layout, a.scale_2, {}};
        quantize_status_.emplace(stream);
        a_quantized_in_kernel_ = a_quantized_in_kernel;
      }
      // The kernel that quantizes A itself gets no FP4 A and no block values (null pointers):
      // it cannot read them, so its results can only come from its own quantization.
      if (!a_quantized_in_kernel_) {
        a_fp4_ = DeviceFp4Tensor(a);
        if (a_block_values)  // exact values: the bf16 rounding changes none
          a_bf16_ = DeviceBuffer<std::uint16_t>(
              HostMatrix::from_f32(a.rows, a.cols, block_values(a)).converted(DType::bf16).half);
      }
    } else {
      a_bf16_ = DeviceBuffer<std::uint16_t>(operands.a_bf16.half);
    }
    counters_.fill_bytes(0, stream);
    pointers_.b_data = b_.data.get();
    pointers_.b_scales = b_.scales.get();
    pointers_.b_scale_bytes = b_.scale_bytes;
    pointers_.b_scale_tiles = b_scale_tiles_.get();
    pointers_.a_data = a_fp4_.data.get();
    pointers_.a_scales = a_fp4_.scales.get();
    pointers_.a_scale_bytes = a_fp4_.scale_bytes;
    pointers_.a_bf16 = a_bf16_.get();
    if (a_quantized_in_kernel_) {  // the checks quantize_activations() would make in every call
      require_quantizable(a_source_.get(), operands.a_fp4.rows, operands.a_fp4.cols,
                          a_quantize_.format, a_quantize_.scale_2.value_or(1.0f));
      pointers_.a_source = a_source_.get();
      pointers_.a_scale_2 = a_quantize_.scale_2.value_or(1.0f);
      pointers_.a_status = quantize_status_->device_words();
    }
    pointers_.alpha = operands.alpha_total();
    pointers_.out = out;
    pointers_.workspace = workspace_.get();
    pointers_.counters = counters_.get();
  }

  const KernelPointers& pointers() const { return pointers_; }

  // w4a4 with a bf16 source: quantizes it into A's FP4 buffers (and its block values, if the
  // family reads them) on `stream` (no allocation, no synchronization: part of the timed call
  // and capturable). The same bytes as the host quantizer (gpu_quantize.hpp), so results do not
  // change. A no-op otherwise, and where the kernel quantizes A itself.
  void quantize_activations(cudaStream_t stream) {
    if (!quantize_status_ || a_quantized_in_kernel_) return;
    quantize_on_device(a_source_.get(), DType::bf16, a_fp4_.rows, a_fp4_.cols, a_quantize_,
                       a_quantize_.scale_2.value_or(1.0f), a_fp4_, *quantize_status_, stream,
                       a_bf16_.get());
  }
  // Throws InvalidArgument if a quantization saw NaN/inf (waits for `stream`).
  void check_activations(cudaStream_t stream) const {
    if (quantize_status_) quantize_status_->throw_if_non_finite(stream);
  }

 private:
  DeviceFp4Tensor b_;
  DeviceBuffer<std::uint8_t> b_scale_tiles_;
  DeviceFp4Tensor a_fp4_;                 // w4a4 unless quantized in the kernel
  DeviceBuffer<std::uint16_t> a_bf16_;    // w4a16: A; w4a4 with a_block_values: A's block values
  DeviceBuffer<std::uint16_t> a_source_;  // w4a4: the bf16 activations quantized by each call
  QuantizeOptions a_quantize_;
  std::optional<QuantizeStatus> quantize_status_;
  bool a_quantized_in_kernel_ = false;  // the kernel quantizes a_source_ (pointers_.a_source)
  DeviceBuffer<float> workspace_;
  DeviceBuffer<int> counters_;
  KernelPointers pointers_;
};

// The form of B a family's plan asks for (a member b_form), or B as given.
template <class Plan>
BForm b_form_of(const Plan& plan) {
  if constexpr (requires { plan.b_form; })
    return plan.b_form;
  else
    return {};
}

// Whether a family's plan reads w4a4's A as bf16 block values (a member a_block_values).
template <class Plan>
bool a_block_values_of(const Plan& plan) {
  if constexpr (requires { plan.a_block_values; })
    return plan.a_block_values;
  else
    return false;
}

// Whether a family's plan has its kernel quantize w4a4's bf16 A itself (a member
// a_quantized_in_kernel).
template <class Plan>
bool a_quantized_in_kernel_of(const Plan& plan) {
  if constexpr (requires { plan.a_quantized_in_kernel; })
    return plan.a_quantized_in_kernel;
  else
    return false;
}

// Plan: the family's launch plan, with workspace_floats and counters (and, if the kernel reads
// B in another form, b_form). Launch: its launcher.
template <class Plan, void (*Launch)(const GemmProblem&, const Plan&, const KernelPointers&, cudaStream_t)>
class KernelGemmRun final : public DeviceGemmRun {
 public:
  KernelGemmRun(const GemmOperands& operands, const Plan& plan)
      : DeviceGemmRun(operands.problem),
        plan_(plan),
        operands_(operands, plan.workspace_floats, plan.counters, output_ptr(), stream(),
                  b_form_of(plan_), a_block_values_of(plan_), a_quantized_in_kernel_of(plan_)) {}

  void run() override {
    operands_.quantize_activations(stream());
    Launch(problem(), plan_, operands_.pointers(), stream());
  }
  std::string plan() const override { return plan_.describe(); }
  std::vector<float> output() override {
    operands_.check_activations(stream());
    return DeviceGemmRun::output();
  }

 private:
  Plan plan_;
  KernelOperands operands_;
};

}  // namespace fp4gemm::cuda
