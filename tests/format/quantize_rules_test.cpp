// The shared quantization rules (src/format/quantize_rules.hpp): hand-computed values, the
// special cases (zero, underflow, fp32 subnormals, clamping), and witnesses that the normative
// fp32 operation order is the one implemented: each witness is an input where the other order
// gives a different bit pattern.
#include "format/quantize_rules.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace fp4gemm {
namespace {

TEST(QuantizeRules, Nvfp4Scale2IsAmaxOver2688) {
  EXPECT_EQ(nvfp4_scale_2_from_amax(2688.0f), 1.0f);
  EXPECT_EQ(nvfp4_scale_2_from_amax(10.5f), 0x1p-8f);  // 10.5 = 2688 / 256
  EXPECT_EQ(nvfp4_scale_2_from_amax(5376.0f), 2.0f);
  // A division, not a multiply by the rounded reciprocal: amax * fl(1/2688) ends in ...7e.
  EXPECT_EQ(nvfp4_scale_2_from_amax(0x1.2f618ap+3f), 0x1.ce4b7cp-9f);
}

TEST(QuantizeRules, Nvfp4Scale2OfZeroOrUnderflowingAmaxIsOne) {
  EXPECT_EQ(nvfp4_scale_2_from_amax(0.0f), 1.0f);
  EXPECT_EQ(nvfp4_scale_2_from_amax(0x1p-149f), 1.0f);  // 2^-149 / 2688 underflows to 0
  EXPECT_EQ(nvfp4_scale_2_from_amax(0x1p-120f), 0x1p-120f / 2688.0f);  // small but representable
}

TEST(QuantizeRules, Nvfp4BlockScaleCodeIsE4m3OfBlockAmaxOverSixScale2) {
  EXPECT_EQ(nvfp4_block_scale_code(10.5f, 0x1p-8f), 0x7E);       // 10.5 / (6/256) = 448
  EXPECT_EQ(nvfp4_block_scale_code(1.0f, 0x1p-8f), 0x63);        // 42.67 -> 44 = 1.375 * 2^5
  EXPECT_EQ(nvfp4_block_scale_code(3.0f, 0.5f), 0x38);           // exactly 1
  EXPECT_EQ(nvfp4_block_scale_code(1e6f, 0x1p-8f), 0x7E);        // saturates at 448
  EXPECT_EQ(nvfp4_block_scale_code(0x1.8p-15f, 0x1p-8f), 0x01);  // 6 * 2^-17 -> 2^-9, a subnormal
}

TEST(QuantizeRules, Nvfp4ZeroBlockScaleBecomesOne) {
  EXPECT_EQ(nvfp4_block_scale_code(0.0f, 0x1p-8f), kE4M3One);
  EXPECT_EQ(nvfp4_block_scale_code(-0.0f, 0x1p-8f), kE4M3One);
  // 2^-20 / (6 * 2^-8) = 2^-12 / 6, below half the smallest E4M3 subnormal (2^-10): code 0.
  EXPECT_EQ(nvfp4_block_scale_code(0x1p-20f, 0x1p-8f), kE4M3One);
}

TEST(QuantizeRules, Nvfp4BlockScaleMultipliesSixByScale2First) {
  // (amax / 6) / scale_2 would give 0x38, 0x30, 0x55 for these three.
  EXPECT_EQ(nvfp4_block_scale_code(0x1.675e74p-7f, 0x1.c2f908p-10f), 0x39);
  EXPECT_EQ(nvfp4_block_scale_code(0x1.df1b02p-9f, 0x1.2c9d7ep-10f), 0x31);
  EXPECT_EQ(nvfp4_block_scale_code(0x1.d6daccp-4f, 0x1.740888p-10f), 0x56);
}

TEST(QuantizeRules, Mxfp4BlockScaleIsFloorLog2MinusTwo) {
  EXPECT_EQ(mxfp4_block_scale_code(0.0f), kUe8m0One);
  EXPECT_EQ(mxfp4_block_scale_code(1.0f), 125);  // 2^(0 - 2)
  EXPECT_EQ(mxfp4_block_scale_code(4.0f), 127);  // 2^(2 - 2)
  EXPECT_EQ(mxfp4_block_scale_code(5.0f), 127);
  EXPECT_EQ(mxfp4_block_scale_code(std::nextafter(8.0f, 0.0f)), 127);
  EXPECT_EQ(mxfp4_block_scale_code(8.0f), 128);
  EXPECT_EQ(mxfp4_block_scale_code(0.1f), 121);  // floor(log2 0.1) = -4
  EXPECT_EQ(mxfp4_block_scale_code(std::numeric_limits<float>::max()), 252);  // 2^(127 - 2)
  EXPECT_EQ(mxfp4_block_scale_code(0x1p-124f), 1);                            // 2^-126
  EXPECT_EQ(mxfp4_block_scale_code(0x1p-125f), 0);  // 2^-127, the smallest UE8M0
}

TEST(QuantizeRules, Mxfp4BlockScaleClampsTinyAndSubnormalAmax) {
  EXPECT_EQ(mxfp4_block_scale_code(0x1p-126f), 0);  // 2^-128 clamps to 2^-127
  EXPECT_EQ(mxfp4_block_scale_code(std::numeric_limits<float>::denorm_min()), 0);
  EXPECT_EQ(mxfp4_block_scale_code(0x1.fffffcp-127f), 0);  // largest fp32 subnormal
}

TEST(QuantizeRules, BlockDivisor) {
  EXPECT_EQ(block_divisor(Fp4Format::nvfp4, 0x63, 0x1p-8f), 0.171875f);  // 44 / 256
  EXPECT_EQ(block_divisor(Fp4Format::nvfp4, 0x7E, 0.5f), 224.0f);
  EXPECT_EQ(block_divisor(Fp4Format::mxfp4, 121, 1.0f), 0x1p-6f);
  EXPECT_EQ(block_divisor(Fp4Format::mxfp4, 0, 1.0f), 0x1p-127f);
}

TEST(QuantizeRules, Fp4CodeDividesThenRoundsToE2m1) {
  EXPECT_EQ(fp4_code(5.25f, 1.75f), 5);    // 3
  EXPECT_EQ(fp4_code(-10.5f, 1.75f), 15);  // -6
  EXPECT_EQ(fp4_code(100.0f, 1.75f), 7);   // saturates
  EXPECT_EQ(fp4_code(-0.0f, 1.75f), 8);
  // x / (s * scale_2) as one division by the rounded divisor; x / s / scale_2 would give 2, 6, 1.
  const auto divisor = [](int code, float scale_2) {
    return block_divisor(Fp4Format::nvfp4, std::uint8_t(code), scale_2);
  };
  EXPECT_EQ(fp4_code(0x1.9e28dap-8f, divisor(0x44, 0x1.b9c52cp-10f)), 3);
  EXPECT_EQ(fp4_code(0x1.25fc0ep-5f, divisor(0x47, 0x1.f5bbd2p-10f)), 7);
  EXPECT_EQ(fp4_code(0x1.8e4bbep-6f, divisor(0x59, 0x1.d80decp-10f)), 2);
  // A division, not a multiply by the rounded reciprocal, which would give 6 and 6.
  EXPECT_EQ(fp4_code(0x1.9eef92p-4f, divisor(0x59, 0x1.2710c2p-10f)), 7);
  EXPECT_EQ(fp4_code(0x1.0c588ep-2f, divisor(0x67, 0x1.47206p-10f)), 5);
}

}  // namespace
}  // namespace fp4gemm
