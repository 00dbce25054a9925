// E4M3fn (the NVFP4 scale): all 256 codes decoded against the format's definition, encode
// round-trips, every RNE tie between neighbouring values (subnormals and the top included),
// saturation at 448, NaN, and a sample against the RNE oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "format/rne_oracle.hpp"
#include "fp4gemm/codecs.hpp"

namespace fp4gemm {
namespace {

// The definition: sign, 4 exponent bits (bias 7), 3 mantissa bits; exponent 0 is subnormal
// (m/8 * 2^-6); S.1111.111 is NaN; there is no infinity.
double e4m3_definition(int code) {
  const int sign = code >> 7, exponent = (code >> 3) & 15, mantissa = code & 7;
  if (exponent == 15 && mantissa == 7) return std::numeric_limits<double>::quiet_NaN();
  const double magnitude =
      exponent == 0 ? std::ldexp(mantissa, -9) : std::ldexp(8 + mantissa, exponent - 10);
  return sign ? -magnitude : magnitude;
}

TEST(E4m3Codec, DecodesAll256CodesByTheDefinition) {
  for (int code = 0; code < 256; ++code) {
    const float got = e4m3_to_float(std::uint8_t(code));
    const double want = e4m3_definition(code);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << "code " << code;
    } else {
      EXPECT_EQ(double(got), want) << "code " << code;
      EXPECT_EQ(std::signbit(got), code >= 128) << "code " << code;
    }
  }
  EXPECT_EQ(e4m3_to_float(0x7E), kE4M3Max);
  EXPECT_EQ(e4m3_to_float(0x01), 0x1p-9f);
  EXPECT_EQ(e4m3_to_float(0x08), 0x1p-6f);
}

TEST(E4m3Codec, EncodeRoundTripsEveryCode) {
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7F) == 0x7F) continue;  // NaN, tested below
    EXPECT_EQ(e4m3_from_float(e4m3_to_float(std::uint8_t(code))), code) << "code " << code;
  }
}

TEST(E4m3Codec, EveryTieBetweenNeighboursGoesToTheEvenCode) {
  // Neighbouring codes c, c+1 (0x00..0x7E, subnormals included) have neighbouring values; their
  // midpoint has 5 significant bits, exact in fp32.
  for (int lower = 0; lower < 0x7E; ++lower) {
    const float lo = e4m3_to_float(std::uint8_t(lower));
    const float hi = e4m3_to_float(std::uint8_t(lower + 1));
    const float mid = (lo + hi) / 2;
    const int even = lower % 2 == 0 ? lower : lower + 1;  // the code's last bit is the mantissa's
    for (const int sign : {0, 0x80}) {
      const float s = sign ? -1.0f : 1.0f;
      EXPECT_EQ(e4m3_from_float(s * mid), sign | even) << "tie " << s * mid;
      EXPECT_EQ(e4m3_from_float(s * std::nextafter(mid, 0.0f)), sign | lower) << s * mid;
      EXPECT_EQ(e4m3_from_float(s * std::nextafter(mid, 1e9f)), sign | (lower + 1)) << s * mid;
    }
  }
}

TEST(E4m3Codec, SaturatesAt448AndEncodesNanAs0x7F) {
  const float inf = std::numeric_limits<float>::infinity();
  // 464 is where RNE would round up to 480 (the NaN pattern): E4M3fn saturates instead.
  for (const float big : {448.0f, 450.0f, 464.0f, 480.0f, 1e30f, inf}) {
    EXPECT_EQ(e4m3_from_float(big), 0x7E) << big;
    EXPECT_EQ(e4m3_from_float(-big), 0xFE) << -big;
  }
  EXPECT_EQ(e4m3_from_float(std::numeric_limits<float>::quiet_NaN()), 0x7F);
  EXPECT_EQ(e4m3_from_float(-std::numeric_limits<float>::quiet_NaN()), 0x7F);
  EXPECT_EQ(e4m3_from_float(1e-45f), 0x00);   // fp32 subnormal
  EXPECT_EQ(e4m3_from_float(-1e-45f), 0x80);  // keeps the sign
}

TEST(E4m3Codec, AgreesWithRneOracleOnRandomFloats) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> exponent(-14.0f, 10.0f);
  for (int i = 0; i < 400000; ++i) {
    // Half log-uniform over the E4M3 range and beyond, half arbitrary bit patterns.
    const float x = i % 2 ? std::exp2(exponent(gen)) * (gen() & 1 ? -1.0f : 1.0f)
                          : float_from_bits(std::uint32_t(gen()));
    if (std::isnan(x)) continue;
    const double r = test::rne_on_grid(x, 3, -6);
    const float want = float(std::fabs(r) > kE4M3Max ? std::copysign(kE4M3Max, r) : r);
    const float got = e4m3_to_float(e4m3_from_float(x));
    ASSERT_EQ(float_bits(got), float_bits(want)) << "x = " << x;
  }
}

}  // namespace
}  // namespace fp4gemm
