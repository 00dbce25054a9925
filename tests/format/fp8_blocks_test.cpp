// The host side of cuda-fp8-lossy (format/fp8_blocks.hpp), no GPU needed: the power-of-two block
// scale rule, and the FP4 -> FP8-block conversion of weights on fresh random tensors (quantized
// from random data, and built from random codes and scale codes over the whole scale range) with
// rows and K that are not multiples of the 128 block: every scale a power of two that maps the
// block's amax into (224, 448], every element within the stated error bound
// (2^-4 |x| for E4M3 normals, 2^-10 s below), and K padded with zero codes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "expect_error.hpp"
#include "format/fp4_tensor_builder.hpp"
#include "format/fp8_blocks.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/gemm.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm {
namespace {

std::uint64_t fresh_seed() { return std::random_device{}() * 0x100000001ull + std::random_device{}(); }

TEST(Fp8BlockScale, IsTheSmallestPowerOfTwoThatFitsAmaxUnder448) {
  EXPECT_EQ(fp8_scale_exponent(0.0f), 0);
  EXPECT_EQ(fp8_scale_exponent(448.0f), 0);
  EXPECT_EQ(fp8_scale_exponent(449.0f), 1);
  EXPECT_EQ(fp8_scale_exponent(1.0f), -8);   // 1 / 2^-8 = 256
  EXPECT_EQ(fp8_scale_exponent(224.0f), -1);  // exactly 448
  EXPECT_EQ(fp8_scale_exponent(-6.0f), -6);   // the sign is ignored: 6 / 2^-6 = 384
  EXPECT_EQ(fp8_scale_exponent(1e-40f), -126);  // fp32 subnormal: the smallest normal scale
  EXPECT_EQ(fp8_power_of_two(-126), std::ldexp(1.0f, -126));
  EXPECT_EQ(fp8_power_of_two(126), std::ldexp(1.0f, 126));
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-100, 100);
  for (int i = 0; i < 100000; ++i) {
    const float amax = std::ldexp(mantissa(rng), exponent(rng));
    const int e = fp8_scale_exponent(amax);
    ASSERT_LE(amax / std::ldexp(1.0, e), 448.0) << amax;
    ASSERT_GT(amax / std::ldexp(1.0, e - 1), 448.0) << amax;  // the smallest such exponent
  }
}

// Checks every rule of fp8_blocks.hpp on the conversion of `t`.
void expect_valid_conversion(const Fp4Tensor& t, int block_rows) {
  const Fp8BlockTensor f = fp8_blocks_of(t, block_rows);
  ASSERT_EQ(f.rows, t.rows);
  ASSERT_EQ(f.cols, t.cols);
  ASSERT_EQ(f.padded_cols % kFp8Block, 0);
  ASSERT_GE(f.padded_cols, t.cols);
  ASSERT_LT(f.padded_cols - t.cols, kFp8Block);
  ASSERT_EQ(f.k_blocks, f.padded_cols / kFp8Block);
  const std::int64_t row_blocks = (t.rows + block_rows - 1) / block_rows;
  ASSERT_EQ(std::int64_t(f.scales.size()), row_blocks * f.k_blocks);
  ASSERT_EQ(std::int64_t(f.codes.size()), t.rows * f.padded_cols);
  std::vector<float> amax(f.scales.size(), 0.0f);
  for (std::int64_t r = 0; r < t.rows; ++r)
    for (std::int64_t k = 0; k < t.cols; ++k) {
      float& a = amax[std::size_t((r / block_rows) * f.k_blocks + k / kFp8Block)];
      a = std::fmax(a, std::fabs(t.block_value(r, k)));
    }
  for (std::size_t b = 0; b < f.scales.size(); ++b) {
    const float s = f.scales[b];
    int e = 0;
    ASSERT_EQ(std::frexp(s, &e), 0.5f) << "scale " << s << " of block " << b << " is not a power of two";
    if (amax[b] == 0.0f) {
      EXPECT_EQ(s, 1.0f);
    } else {
      EXPECT_LE(amax[b] / s, 448.0f) << "block " << b;
      if (s > 0x1p-126f) {  // else the exponent was clamped
        EXPECT_GT(amax[b] / s, 224.0f) << "block " << b;
      }
    }
  }
  std::int64_t normal = 0, below = 0;
  for (std::int64_t r = 0; r < t.rows; ++r) {
    for (std::int64_t k = 0; k < t.cols; ++k) {
      const double x = t.block_value(r, k), q = f.value(r, k), s = f.scale(r, k);
      const bool is_normal = std::fabs(x) >= 0x1p-6 * s;
      (is_normal ? normal : below)++;
      const double bound = is_normal ? 0x1p-4 * std::fabs(x) : 0x1p-10 * s;
      ASSERT_LE(std::fabs(q - x), bound) << fmt::format("element ({}, {}) = {} became {} (scale {})", r, k, x, q, s);
    }
    for (std::int64_t k = t.cols; k < f.padded_cols; ++k)
      ASSERT_EQ(f.codes[std::size_t(r * f.padded_cols + k)], 0) << "padding of row " << r;
  }
  EXPECT_GT(normal, 0);
  testing::Test::RecordProperty("below_normal", std::to_string(below));
}

TEST(Fp8Blocks, QuantizedRandomWeightsStayWithinTheBound) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4})
    for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled}) {
      const GemmProblem p{{1, 300, 416}, Mode::w4a16, format, layout, DType::f32};  // 3 x 4 blocks, both ragged
      const GemmOperands ops = random_operands(p, seed);
      SCOPED_TRACE(p.describe());
      expect_valid_conversion(ops.b, kFp8Block);
      expect_valid_conversion(ops.b, 1);  // per-row blocks, the activations' shape
    }
}

// Random codes and scale codes over the scale formats' whole range (NVFP4 E4M3 subnormals up to
// 448; MXFP4 2^-126 .. 2^125), so blocks span many binades and some elements fall below E4M3's
// normal range of their block (MXFP4 stops at 2^125: 6 x 2^126 would overflow fp32).
TEST(Fp8Blocks, WideRangeBlocksStayWithinTheBound) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4}) {
    const std::int64_t rows = 131, cols = 160;
    const int block = block_size(format);
    std::vector<std::uint8_t> codes(std::size_t(rows * cols)), scales(std::size_t(rows * cols / block));
    for (auto& c : codes) c = std::uint8_t(rng() & 15);
    for (auto& s : scales)
      s = format == Fp4Format::nvfp4 ? std::uint8_t(rng() % 0x7F)          // E4M3 0 .. 0x7E (448)
                                     : std::uint8_t(1 + rng() % 252);      // UE8M0 2^-126 .. 2^125
    SCOPED_TRACE(to_string(format));
    expect_valid_conversion(test::make_fp4_tensor(format, rows, cols, codes, scales, 1.0f), kFp8Block);
  }
}

TEST(Fp8Blocks, AllZeroBlocksGetScaleOneAndZeroCodes) {
  const std::vector<std::uint8_t> codes(std::size_t(4 * 32), 0), scales(std::size_t(4 * 2), 0x38);
  const Fp8BlockTensor f = fp8_blocks_of(test::make_fp4_tensor(Fp4Format::nvfp4, 4, 32, codes, scales, 1.0f));
  EXPECT_EQ(f.padded_cols, 128);
  EXPECT_EQ(f.scales, std::vector<float>{1.0f});
  for (std::uint8_t c : f.codes) EXPECT_EQ(c, 0);
}

TEST(Fp8Blocks, RefusesABadBlockHeight) {
  const std::vector<std::uint8_t> codes(std::size_t(32), 1), scales(std::size_t(2), 0x38);
  const Fp4Tensor t = test::make_fp4_tensor(Fp4Format::nvfp4, 1, 32, codes, scales, 1.0f);
  test::expect_error<InvalidArgument>([&] { fp8_blocks_of(t, 0); }, "block_rows = 0 must be at least 1");
}

}  // namespace
}  // namespace fp4gemm
