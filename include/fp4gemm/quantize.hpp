#pragma once
// Quantization to NVFP4 / MXFP4 and back (CPU; the GPU quantizer in src/cuda is bit-identical).
//
// NVFP4, ModelOpt semantics, every step in fp32 and in this order:
//   scale_2 = amax(|x|) / 2688                  (2688 = 6 * 448; an all-zero tensor gets 1)
//   s       = e4m3_rne(block_amax / (6 * scale_2)); if s == 0: s = 1
//   q       = e2m1_rne(x / (s * scale_2))       (saturating at 6)
// The tensor scale can be given instead of measured, in either spelling:
//   scale_2 (ModelOpt `weight_scale_2`), or global_sf = 1 / scale_2 (FlashInfer's
//   `global_scale`, 2688 / amax); the GEMM's alpha is scale_2_a * scale_2_b either way.
//
// MXFP4, OCP MX v1.0: per block of 32, X = 2^(floor(log2(block_amax)) - 2) stored as UE8M0
// (an all-zero block gets X = 1), q = e2m1_rne(x / X) saturating at 6.
//
// NaN or infinity in the input is rejected with InvalidArgument naming the first position:
// a quantized tensor never silently carries garbage.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "fp4gemm/matrix.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm {

inline constexpr float kNvfp4ScaleDivisor = 2688.0f;  // 6 * 448

struct QuantizeOptions {
  Fp4Format format = Fp4Format::nvfp4;
  ScaleLayout scale_layout = ScaleLayout::linear;
  // NVFP4 only; at most one of the two; neither: measured from the data as above.
  std::optional<float> scale_2;
  std::optional<float> global_sf;
};

// The tensor scale the quantizer will use for `x` under `options` (NVFP4; 1 for MXFP4).
float resolve_scale_2(const HostMatrix& x, const QuantizeOptions& options);

// x: rows x cols in f32/bf16/f16 (bf16/f16 are widened to fp32 exactly first).
// Requires cols to be a positive multiple of block_size(format), rows > 0, finite values.
Fp4Tensor quantize(const HostMatrix& x, const QuantizeOptions& options = {});

// The error for a non-finite input element (kind: "NaN", "inf" or "-inf"), shared by the CPU
// and GPU quantizers: InvalidArgument "input has NaN at row 3, column 17".
[[noreturn]] void throw_non_finite_input(std::string_view kind, std::int64_t row, std::int64_t column);

// x ~= e2m1(q) * scale * scale_2, as rows x cols fp32.
std::vector<float> dequantize(const Fp4Tensor& t);

}  // namespace fp4gemm
