#pragma once
// Scalar codecs of the formats fp4gemm reads and writes. Every encoder rounds to nearest, ties to
// even (RNE), and each is a host+device function so that CPU and GPU agree bit for bit.
//
//   E2M1   (FP4 element)  codes 0..7 = {0, 0.5, 1, 1.5, 2, 3, 4, 6}, bit 3 is the sign.
//                         Encode saturates at 6; NaN encodes as +0 (the quantizers reject NaN
//                         before they get here, so this only keeps the codec total).
//   E4M3fn (NVFP4 scale)  bias 7, subnormals down to 2^-9, max 448, no infinity, 0x7F/0xFF NaN.
//                         Encode saturates at 448 (infinity too); NaN encodes as 0x7F.
//   UE8M0  (MXFP4 scale)  unsigned power of two 2^(c-127), c = 0..254; 0xFF is NaN.
//   BF16, FP16            IEEE-style 16-bit floats, RNE with overflow to infinity.
#include <cmath>
#include <cstdint>

#include "fp4gemm/host_device.hpp"

namespace fp4gemm {

// ---------------------------------------------------------------- E2M1
FP4GEMM_HD float e2m1_to_float(std::uint8_t code) {
  // Magnitudes by the 3-bit code; bit 3 is the sign.
  const float magnitude[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float m = magnitude[code & 7];
  return (code & 8) ? -m : m;
}

FP4GEMM_HD std::uint8_t e2m1_from_float(float x) {
  const std::uint8_t sign = (float_bits(x) >> 31) ? 8 : 0;
  const float a = std::fabs(x);
  // The code is the number of midpoints between neighbouring codes that a lies above; a tie
  // goes to the even code (> at a midpoint whose lower code is even, >= where it is odd).
  // Branch-free, so random data costs no mispredictions (the quantizers' hot loop).
  if (!(a == a)) return 0;  // NaN: +0 whatever its sign bit
  const int code = (a > 0.25f) + (a >= 0.75f) + (a > 1.25f) + (a >= 1.75f) + (a > 2.5f) +
                   (a >= 3.5f) + (a > 5.0f);  // saturates at 6 (code 7)
  return std::uint8_t(sign | code);
}

// ---------------------------------------------------------------- E4M3fn
inline constexpr float kE4M3Max = 448.0f;

FP4GEMM_HD float e4m3_to_float(std::uint8_t code) {
  const std::uint32_t sign = std::uint32_t(code & 0x80) << 24;
  const std::uint32_t exponent = (code >> 3) & 0xF;
  const std::uint32_t mantissa = code & 7;
  if (exponent == 15 && mantissa == 7) return float_from_bits(0x7FC00000u | sign);
  if (exponent == 0) {  // subnormal: mantissa * 2^-9, exact in fp32
    const float m = float(mantissa) * 0.001953125f;
    return sign ? -m : m;
  }
  return float_from_bits(sign | ((exponent + 120u) << 23) | (mantissa << 20));
}

FP4GEMM_HD std::uint8_t e4m3_from_float(float x) {
  const std::uint32_t bits = float_bits(x);
  const std::uint8_t sign = std::uint8_t((bits >> 24) & 0x80);
  const std::uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return 0x7F;            // NaN
  if (abs_bits >= 0x43E00000u) return sign | 0x7E;    // >= 448 (and inf): saturate
  if (abs_bits < 0x3C800000u) {                       // < 2^-6: subnormal range, step 2^-9
    // a * 2^9 is exact; rintf rounds half to even. 8 (= 2^-6) is exactly the code of the
    // smallest normal, so the result is already the right bit pattern.
    const float q = rintf(float_from_bits(abs_bits) * 512.0f);
    return sign | std::uint8_t(q);
  }
  std::int32_t exponent = std::int32_t(abs_bits >> 23) - 127;  // -6..8
  std::uint32_t kept = (abs_bits >> 20) & 7;                   // top 3 mantissa bits
  const std::uint32_t rest = abs_bits & 0xFFFFFu;              // the 20 bits rounded away
  if (rest > 0x80000u || (rest == 0x80000u && (kept & 1))) ++kept;
  if (kept == 8) { kept = 0; ++exponent; }
  const std::uint32_t code = (std::uint32_t(exponent + 7) << 3) | kept;
  return sign | std::uint8_t(code > 0x7E ? 0x7E : code);
}

// ---------------------------------------------------------------- UE8M0
FP4GEMM_HD float ue8m0_to_float(std::uint8_t code) {
  if (code == 0xFF) return float_from_bits(0x7FC00000u);
  if (code == 0) return float_from_bits(0x00400000u);  // 2^-127, an fp32 subnormal
  return float_from_bits(std::uint32_t(code) << 23);
}

// The code of 2^exponent, the exponent clamped to the representable -127..127.
FP4GEMM_HD std::uint8_t ue8m0_from_exponent(int exponent) {
  if (exponent < -127) exponent = -127;
  if (exponent > 127) exponent = 127;
  return std::uint8_t(exponent + 127);
}

// ---------------------------------------------------------------- BF16 / FP16
FP4GEMM_HD float bf16_to_float(std::uint16_t h) { return float_from_bits(std::uint32_t(h) << 16); }

FP4GEMM_HD std::uint16_t bf16_from_float(float f) {
  const std::uint32_t bits = float_bits(f);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return std::uint16_t((bits >> 16) | 0x40);  // quiet NaN
  const std::uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1);
  return std::uint16_t((bits + rounding) >> 16);
}

FP4GEMM_HD float fp16_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1F;
  const std::uint32_t mantissa = h & 0x3FF;
  if (exponent == 0) {  // subnormal: mantissa * 2^-24, exact in fp32
    const float m = float(mantissa) * 5.9604644775390625e-8f;
    return sign ? -m : m;
  }
  if (exponent == 31) return float_from_bits(sign | 0x7F800000u | (mantissa << 13));
  return float_from_bits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

FP4GEMM_HD std::uint16_t fp16_from_float(float f) {
  const std::uint32_t bits = float_bits(f);
  const std::uint16_t sign = std::uint16_t((bits >> 16) & 0x8000);
  const std::uint32_t abs_bits = bits & 0x7FFFFFFFu;
  if (abs_bits > 0x7F800000u) return sign | 0x7E00;   // NaN
  if (abs_bits >= 0x477FF000u) return sign | 0x7C00;  // >= 65520 rounds to infinity
  if (abs_bits < 0x38800000u) {                       // < 2^-14: subnormal, step 2^-24
    const float q = rintf(float_from_bits(abs_bits) * 16777216.0f);
    return sign | std::uint16_t(q);                   // 1024 is the smallest normal's code
  }
  const std::uint32_t rebased = abs_bits - 0x38000000u;  // exponent bias 127 -> 15
  const std::uint32_t rounding = 0xFFFu + ((rebased >> 13) & 1);
  return sign | std::uint16_t((rebased + rounding) >> 13);
}

}  // namespace fp4gemm
