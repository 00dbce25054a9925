#pragma once
// An independent oracle for round-to-nearest-even onto a binary floating-point grid, computed in
// double from the definition (not from any codec's bit tricks), for the codec tests.
//
// The grid has `mantissa_bits` stored mantissa bits and normal exponents >= min_exponent; below
// 2^min_exponent it continues with the subnormal step 2^(min_exponent - mantissa_bits). The
// result is not bounded above: callers apply their format's overflow rule (infinity for
// bf16/fp16, saturation for E4M3 and E2M1).
#include <algorithm>
#include <cmath>

namespace fp4gemm::test {

inline double rne_on_grid(double x, int mantissa_bits, int min_exponent) {
  if (x == 0.0 || !std::isfinite(x)) return x;  // zeros keep their sign, inf stays inf
  const double magnitude = std::fabs(x);
  const int exponent = std::max(std::ilogb(magnitude), min_exponent);  // floor(log2), clamped
  const double step = std::ldexp(1.0, exponent - mantissa_bits);
  // magnitude / step is exact (a division by a power of two); nearbyint rounds half to even
  // (the default rounding mode), and an even multiple of the step is an even mantissa.
  return std::copysign(std::nearbyint(magnitude / step) * step, x);
}

}  // namespace fp4gemm::test
