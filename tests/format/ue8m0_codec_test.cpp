// UE8M0 (the MXFP4 scale): every code decodes to its power of two, 0xFF is NaN, and the
// exponent encoder clamps to the representable range.
#include <gtest/gtest.h>

#include <cmath>

#include "fp4gemm/codecs.hpp"

namespace fp4gemm {
namespace {

TEST(Ue8m0Codec, EveryCodeDecodesToItsPowerOfTwo) {
  for (int code = 0; code < 255; ++code)  // code 0 is 2^-127, an fp32 subnormal
    EXPECT_EQ(double(ue8m0_to_float(std::uint8_t(code))), std::ldexp(1.0, code - 127)) << code;
  EXPECT_TRUE(std::isnan(ue8m0_to_float(0xFF)));
}

TEST(Ue8m0Codec, ExponentEncodesAndClamps) {
  for (int e = -127; e <= 127; ++e) EXPECT_EQ(ue8m0_from_exponent(e), e + 127) << e;
  EXPECT_EQ(ue8m0_from_exponent(-128), 0);
  EXPECT_EQ(ue8m0_from_exponent(-1000), 0);
  EXPECT_EQ(ue8m0_from_exponent(128), 254);  // never 0xFF, the NaN code
  EXPECT_EQ(ue8m0_from_exponent(1000), 254);
}

}  // namespace
}  // namespace fp4gemm
