// BF16 and FP16: every code decoded against the format's definition, every RNE tie between
// neighbouring values (subnormals and the overflow to infinity included), overflow, NaN, and big
// samples against the RNE oracle; FP16 also against the compiler's _Float16 where it exists.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "format/rne_oracle.hpp"
#include "fp4gemm/codecs.hpp"

namespace fp4gemm {
namespace {

// One IEEE-style 16-bit format: its field widths and its codec.
struct HalfFormat {
  const char* name;
  int mantissa_bits;
  int exponent_bits;
  float (*decode)(std::uint16_t);
  std::uint16_t (*encode)(float);
  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
  std::uint16_t infinity_code() const {
    return std::uint16_t(((1 << exponent_bits) - 1) << mantissa_bits);
  }
};

void PrintTo(const HalfFormat& f, std::ostream* os) { *os << f.name; }

const HalfFormat kBf16{"bf16", 7, 8, bf16_to_float, bf16_from_float};
const HalfFormat kFp16{"fp16", 10, 5, fp16_to_float, fp16_from_float};

// The definition of a code's value, in double.
double definition(const HalfFormat& f, std::uint16_t code) {
  const int sign = code >> 15;
  const int exponent = (code >> f.mantissa_bits) & ((1 << f.exponent_bits) - 1);
  const int mantissa = code & ((1 << f.mantissa_bits) - 1);
  double magnitude;
  if (exponent == (1 << f.exponent_bits) - 1)
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
  else if (exponent == 0)
    magnitude = std::ldexp(mantissa, 1 - f.bias() - f.mantissa_bits);
  else
    magnitude =
        std::ldexp((1 << f.mantissa_bits) + mantissa, exponent - f.bias() - f.mantissa_bits);
  return sign ? -magnitude : magnitude;
}

// RNE of x to the format, overflowing to infinity: the oracle's value once it reaches
// 2^(max exponent + 1), the first value past the largest finite one.
float oracle(const HalfFormat& f, float x) {
  const double r = test::rne_on_grid(x, f.mantissa_bits, 1 - f.bias());
  const double overflow = std::ldexp(1.0, f.bias() + 1);
  return float(std::fabs(r) >= overflow ? std::copysign(HUGE_VAL, r) : r);
}

class HalfCodec : public ::testing::TestWithParam<HalfFormat> {};

TEST_P(HalfCodec, EveryCodeDecodesByTheDefinitionAndRoundTrips) {
  const HalfFormat& f = GetParam();
  for (int c = 0; c < 65536; ++c) {
    const std::uint16_t code = std::uint16_t(c);
    const float v = f.decode(code);
    const double want = definition(f, code);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(v)) << f.name << " code " << c;
      ASSERT_TRUE(std::isnan(f.decode(f.encode(v)))) << f.name << " code " << c;
      continue;
    }
    ASSERT_EQ(double(v), want) << f.name << " code " << c;
    ASSERT_EQ(std::signbit(v), c >= 0x8000) << f.name << " code " << c;
    ASSERT_EQ(f.encode(v), code) << f.name << " code " << c;
  }
}

TEST_P(HalfCodec, EveryTieBetweenNeighboursGoesToTheEvenCode) {
  const HalfFormat& f = GetParam();
  // Magnitude codes c and c + 1 are neighbours, up to the largest finite value and infinity;
  // the midpoint has one bit more than the format, exact in fp32.
  for (int lower = 0; lower < f.infinity_code(); ++lower) {
    const double lo = f.decode(std::uint16_t(lower));
    const double hi = lower + 1 == f.infinity_code() ? std::ldexp(1.0, f.bias() + 1)
                                                     : f.decode(std::uint16_t(lower + 1));
    const float mid = float((lo + hi) / 2);
    const int even = lower % 2 == 0 ? lower : lower + 1;
    for (const int sign : {0, 0x8000}) {
      const float s = sign ? -1.0f : 1.0f;
      ASSERT_EQ(f.encode(s * mid), sign | even) << f.name << " tie " << s * mid;
      ASSERT_EQ(f.encode(s * std::nextafter(mid, 0.0f)), sign | lower) << f.name << " " << s * mid;
      ASSERT_EQ(f.encode(s * std::nextafter(mid, HUGE_VALF)), sign | (lower + 1))
          << f.name << " " << s * mid;
    }
  }
}

TEST_P(HalfCodec, OverflowGoesToInfinityAndNanStaysNan) {
  const HalfFormat& f = GetParam();
  const float inf = std::numeric_limits<float>::infinity();
  // FLT_MAX too: bf16 shares fp32's exponent range, and 0x7F7FFFFF rounds up past bf16's largest.
  for (const float big : {inf, std::numeric_limits<float>::max()}) {
    EXPECT_EQ(f.encode(big), f.infinity_code()) << f.name << " " << big;
    EXPECT_EQ(f.encode(-big), 0x8000 | f.infinity_code()) << f.name << " " << -big;
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(f.decode(f.encode(nan)))) << f.name;
  EXPECT_TRUE(std::isnan(f.decode(f.encode(-nan)))) << f.name;
  // A signalling NaN whose payload sits in the bits the encoder drops must not become infinity.
  EXPECT_TRUE(std::isnan(f.decode(f.encode(float_from_bits(0x7F800001u))))) << f.name;
}

TEST_P(HalfCodec, AgreesWithRneOracleOnRandomFloats) {
  const HalfFormat& f = GetParam();
  std::mt19937 gen(5);
  // Log-uniform magnitudes from below the smallest subnormal to past overflow, and arbitrary bits.
  std::uniform_real_distribution<float> exponent(float(-f.bias() - f.mantissa_bits - 2),
                                                 float(f.bias() + 2));
  for (int i = 0; i < 1000000; ++i) {
    const float x = i % 2 ? std::exp2(exponent(gen)) * (gen() & 1 ? -1.0f : 1.0f)
                          : float_from_bits(std::uint32_t(gen()));
    if (std::isnan(x)) continue;
    ASSERT_EQ(float_bits(f.decode(f.encode(x))), float_bits(oracle(f, x)))
        << f.name << " x = " << x;
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, HalfCodec, ::testing::Values(kBf16, kFp16),
                         [](const auto& info) { return std::string(info.param.name); });

#if defined(__FLT16_MAX__)
// The compiler's _Float16 conversions (libgcc / F16C, IEEE RNE) as a second, independent oracle.
float via_float16(float x) { return float(static_cast<_Float16>(x)); }

float float16_code_value(std::uint16_t code) {
  _Float16 h;
  std::memcpy(&h, &code, sizeof h);
  return float(h);
}

TEST(Fp16Codec, MatchesCompilerFloat16OnEveryCode) {
  for (int c = 0; c < 65536; ++c) {
    const float want = float16_code_value(std::uint16_t(c));
    const float got = fp16_to_float(std::uint16_t(c));
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << c;
    } else {
      ASSERT_EQ(float_bits(got), float_bits(want)) << "code " << c;
    }
  }
}

TEST(Fp16Codec, MatchesCompilerFloat16OnABigSampleOfFloats) {
  std::mt19937 gen(9);
  std::uniform_real_distribution<float> exponent(-27.0f, 17.0f);
  for (int i = 0; i < 2000000; ++i) {
    const float x = i % 2 ? std::exp2(exponent(gen)) * (gen() & 1 ? -1.0f : 1.0f)
                          : float_from_bits(std::uint32_t(gen()));
    if (std::isnan(x)) continue;
    ASSERT_EQ(float_bits(fp16_to_float(fp16_from_float(x))), float_bits(via_float16(x)))
        << "x = " << x;
  }
}
#endif

}  // namespace
}  // namespace fp4gemm
