// E2M1 (the FP4 element): decode of all 16 codes, encode of every value, every midpoint tie,
// saturation, signed zero, and a sweep against the RNE oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "format/rne_oracle.hpp"
#include "fp4gemm/codecs.hpp"

namespace fp4gemm {
namespace {

constexpr float kMagnitudes[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

TEST(E2m1Codec, DecodesAllSixteenCodes) {
  for (int code = 0; code < 16; ++code) {
    const float v = e2m1_to_float(std::uint8_t(code));
    EXPECT_EQ(std::fabs(v), kMagnitudes[code & 7]) << "code " << code;
    EXPECT_EQ(std::signbit(v), code >= 8) << "code " << code;  // code 8 is -0
  }
}

TEST(E2m1Codec, EncodesEveryRepresentableValueToItsCode) {
  for (int code = 0; code < 16; ++code)
    EXPECT_EQ(e2m1_from_float(e2m1_to_float(std::uint8_t(code))), code) << "code " << code;
}

TEST(E2m1Codec, EveryMidpointTieGoesToTheEvenCode) {
  for (int lower = 0; lower < 7; ++lower) {
    const float mid = (kMagnitudes[lower] + kMagnitudes[lower + 1]) / 2;  // exact
    const int even = lower % 2 == 0 ? lower : lower + 1;
    for (const int sign : {0, 8}) {
      const float s = sign ? -1.0f : 1.0f;
      EXPECT_EQ(e2m1_from_float(s * mid), sign | even) << "tie " << s * mid;
      EXPECT_EQ(e2m1_from_float(s * std::nextafter(mid, 0.0f)), sign | lower) << s * mid;
      EXPECT_EQ(e2m1_from_float(s * std::nextafter(mid, 7.0f)), sign | (lower + 1)) << s * mid;
    }
  }
}

TEST(E2m1Codec, SaturatesAtSix) {
  for (const float big : {6.0f, 6.5f, 7.0f, 8.0f, 1e30f, std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::infinity()}) {
    EXPECT_EQ(e2m1_from_float(big), 7) << big;
    EXPECT_EQ(e2m1_from_float(-big), 15) << -big;
  }
}

TEST(E2m1Codec, ZeroKeepsItsSignAndNanEncodesAsPositiveZero) {
  EXPECT_EQ(e2m1_from_float(0.0f), 0);
  EXPECT_EQ(e2m1_from_float(-0.0f), 8);
  EXPECT_EQ(e2m1_from_float(-0.1f), 8);    // rounds to zero, keeps the sign
  EXPECT_EQ(e2m1_from_float(-1e-45f), 8);  // fp32 subnormal
  EXPECT_EQ(e2m1_from_float(std::numeric_limits<float>::quiet_NaN()), 0);
}

// Expected code value: RNE on the E2M1 grid (1 mantissa bit, min exponent 0), saturated at 6.
float e2m1_oracle(float x) {
  const double r = test::rne_on_grid(x, 1, 0);
  return float(std::fabs(r) > 6.0 ? std::copysign(6.0, r) : r);
}

void expect_matches_oracle(float x) {
  const float got = e2m1_to_float(e2m1_from_float(x));
  const float want = e2m1_oracle(x);
  EXPECT_EQ(float_bits(got), float_bits(want)) << "x = " << x << " got " << got << " want " << want;
}

TEST(E2m1Codec, AgreesWithRneOracleOnADenseGridAndRandomFloats) {
  for (int i = -640; i <= 640; ++i) {  // every multiple of 1/64 in [-10, 10] and its neighbours
    const float x = float(i) / 64.0f;
    expect_matches_oracle(x);
    expect_matches_oracle(std::nextafter(x, -20.0f));
    expect_matches_oracle(std::nextafter(x, 20.0f));
  }
  std::mt19937 bits(7);
  for (int i = 0; i < 200000; ++i) {
    const float x = float_from_bits(std::uint32_t(bits()));
    if (!std::isnan(x)) expect_matches_oracle(x);
  }
}

}  // namespace
}  // namespace fp4gemm
