#pragma once
// The per-tensor, per-block and per-element rules of NVFP4 and MXFP4 quantization, as host+device
// functions: the CPU quantizer (quantize.cpp) and the GPU quantizer both call exactly these, so
// they are bit-identical by construction.
//
// The order of the fp32 operations is normative (ModelOpt semantics; DESIGN.md: "do every step
// in fp32, in this order"); each line below is one IEEE fp32 operation, rounded to nearest even:
//   NVFP4  scale_2 = amax / 2688                       (2688 = 6 * 448)
//          t       = 6 * scale_2                       then  block_amax / t  -> e4m3_rne
//          d       = e4m3_to_float(s) * scale_2        then  x / d           -> e2m1_rne
//   MXFP4  d       = 2^(floor(log2(block_amax)) - 2)   (exact, from the float's bits)
//          x / d                                       -> e2m1_rne
// No operation may be contracted or replaced: no fused multiply-add (there is no add to fuse),
// no reciprocal-multiply for a division, no flush of subnormals. On the GPU that means the
// nvcc defaults (-prec-div=true -ftz=false) and no --use_fast_math in the files that include this.
//
// Preconditions: amax, block_amax and x are finite (the quantizers reject NaN/inf first) and the
// amaxes are >= 0; scale_2 is positive and finite.
#include <cstdint>

#include "fp4gemm/codecs.hpp"
#include "fp4gemm/host_device.hpp"
#include "fp4gemm/quantize.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm {

inline constexpr std::uint8_t kE4M3One = 0x38;  // E4M3 code of 1.0
inline constexpr std::uint8_t kUe8m0One = 127;  // UE8M0 code of 1.0 (2^0)
inline constexpr int kE2M1MaxExponent = 2;      // 6 = 1.5 * 2^2: OCP MX emax of E2M1

// NVFP4 tensor scale measured from the tensor's amax: amax / 2688. A tensor whose quotient is 0
// (amax == 0, or amax < 2688 * 2^-150 where the division underflows) gets 1: a zero scale_2
// would make every divisor below 0.
FP4GEMM_HD float nvfp4_scale_2_from_amax(float amax) {
  const float scale_2 = amax / kNvfp4ScaleDivisor;
  return scale_2 == 0.0f ? 1.0f : scale_2;
}

// NVFP4 block scale code: e4m3_rne(block_amax / (6 * scale_2)). A block whose scale rounds to
// zero (+0 or -0: the block is zero, or below 2^-10 of what scale_2 can express) gets the code
// of 1.0, so that its divisor stays positive.
FP4GEMM_HD std::uint8_t nvfp4_block_scale_code(float block_amax, float scale_2) {
  const float six_scale_2 = 6.0f * scale_2;
  const std::uint8_t code = e4m3_from_float(block_amax / six_scale_2);
  return (code & 0x7F) == 0 ? kE4M3One : code;
}

// MXFP4 block scale code (OCP MX v1.0): the UE8M0 code of 2^(floor(log2(block_amax)) - 2), the
// exponent clamped to UE8M0's -127..127. floor(log2) of a normal float is its unbiased exponent
// field, exactly; every fp32 subnormal is below 2^-126, so its exponent is <= -127 and the scale
// clamps to 2^-127 (code 0). An all-zero block gets the code of 1.0.
FP4GEMM_HD std::uint8_t mxfp4_block_scale_code(float block_amax) {
  if (block_amax == 0.0f) return kUe8m0One;
  const int biased_exponent = int((float_bits(block_amax) >> 23) & 0xFF);
  if (biased_exponent == 0) return ue8m0_from_exponent(-127);  // fp32 subnormal
  return ue8m0_from_exponent(biased_exponent - 127 - kE2M1MaxExponent);
}

// The value an element is divided by: NVFP4 e4m3(code) * scale_2 (one fp32 multiply), MXFP4
// the power of two 2^(code - 127) (exact).
FP4GEMM_HD float block_divisor(Fp4Format format, std::uint8_t scale_code, float scale_2) {
  if (format == Fp4Format::nvfp4) return e4m3_to_float(scale_code) * scale_2;
  return ue8m0_to_float(scale_code);
}

// E2M1 code (0..15) of one element: e2m1_rne(x / divisor), an IEEE fp32 division, saturating at 6.
FP4GEMM_HD std::uint8_t fp4_code(float x, float divisor) { return e2m1_from_float(x / divisor); }

}  // namespace fp4gemm
