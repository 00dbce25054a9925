// The 128x4 swizzled scale layout: offsets of the DESIGN.md formula checked by hand, the layout a
// bijection of the padded grid onto [0, scale_bytes), and with_scale_layout moving every scale
// (linear <-> swizzled, padding zero) without touching the data.
#include "fp4gemm/layout.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include "format/fp4_tensor_builder.hpp"
#include "fp4gemm/quantize.hpp"

namespace fp4gemm {
namespace {

// offset(r, kb) = (r/128)*num_k_tiles*512 + (kb/4)*512 + (r%32)*16 + ((r%128)/32)*4 + kb%4,
// worked by hand for scale_cols = 8 (num_k_tiles = 2) and 5 (also 2 tiles: 5 pads to 8).
TEST(ScaleLayout, SwizzledOffsetsByHand) {
  EXPECT_EQ(swizzled_offset(0, 0, 8), 0);
  EXPECT_EQ(swizzled_offset(0, 1, 8), 1);
  EXPECT_EQ(swizzled_offset(0, 3, 8), 3);
  EXPECT_EQ(swizzled_offset(1, 0, 8), 16);
  EXPECT_EQ(swizzled_offset(31, 0, 8), 496);
  EXPECT_EQ(swizzled_offset(32, 0, 8), 4);  // rows 32 apart share a 16-byte line
  EXPECT_EQ(swizzled_offset(96, 3, 8), 15);
  EXPECT_EQ(swizzled_offset(0, 4, 8), 512);  // next K tile
  EXPECT_EQ(swizzled_offset(33, 5, 8), 512 + 16 + 4 + 1);
  EXPECT_EQ(swizzled_offset(127, 7, 8), 1023);  // last byte of the first row tile
  EXPECT_EQ(swizzled_offset(128, 0, 8), 1024);  // next row tile: 2 K tiles later
  EXPECT_EQ(swizzled_offset(200, 7, 8), 1024 + 512 + 8 * 16 + 2 * 4 + 3);
  EXPECT_EQ(swizzled_offset(128, 4, 5), 1536);
  EXPECT_EQ(scale_bytes(ScaleLayout::swizzled, 1, 1), 512);
  EXPECT_EQ(scale_bytes(ScaleLayout::swizzled, 129, 5), 256 * 8);
  EXPECT_EQ(scale_bytes(ScaleLayout::linear, 129, 5), 129 * 5);
  EXPECT_EQ(scale_offset(ScaleLayout::linear, 3, 2, 5), 17);
}

TEST(ScaleLayout, SwizzledIsABijectionOfThePaddedGrid) {
  for (const auto& [rows, scale_cols] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {1, 1}, {1, 4}, {3, 5}, {128, 4}, {129, 9}, {300, 2}, {257, 12}}) {
    const std::int64_t bytes = scale_bytes(ScaleLayout::swizzled, rows, scale_cols);
    std::set<std::int64_t> seen;
    for (std::int64_t r = 0; r < round_up(rows, 128); ++r) {
      for (std::int64_t kb = 0; kb < round_up(scale_cols, 4); ++kb) {
        const std::int64_t offset = swizzled_offset(r, kb, scale_cols);
        ASSERT_GE(offset, 0);
        ASSERT_LT(offset, bytes) << rows << "x" << scale_cols << " (" << r << "," << kb << ")";
        ASSERT_TRUE(seen.insert(offset).second) << "offset " << offset << " taken twice";
      }
    }
    EXPECT_EQ(std::int64_t(seen.size()), bytes) << rows << "x" << scale_cols;
  }
}

Fp4Tensor random_tensor(Fp4Format format, std::int64_t rows, std::int64_t cols, std::uint32_t seed,
                        ScaleLayout layout = ScaleLayout::linear) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(std::size_t(rows * cols));
  for (float& x : v) x = std::ldexp(normal(gen), int(gen() % 9) - 4);  // scales vary by block
  return quantize(HostMatrix::from_f32(rows, cols, std::move(v)),
                  test::measured_scale(format, layout));
}

TEST(ScaleLayout, WithScaleLayoutRoundTripsAndZeroesPadding) {
  for (const Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4}) {
    for (const std::int64_t rows : {1, 130, 300}) {
      const Fp4Tensor linear = random_tensor(format, rows, 160, std::uint32_t(rows));
      const Fp4Tensor swizzled = with_scale_layout(linear, ScaleLayout::swizzled);
      ASSERT_EQ(swizzled.scale_layout, ScaleLayout::swizzled);
      swizzled.validate();
      EXPECT_EQ(swizzled.data, linear.data);
      EXPECT_EQ(swizzled.scale_2, linear.scale_2);
      std::vector<bool> used(swizzled.scales.size(), false);
      for (std::int64_t r = 0; r < rows; ++r) {
        for (std::int64_t kb = 0; kb < linear.scale_cols(); ++kb) {
          ASSERT_EQ(swizzled.scale_code(r, kb), linear.scale_code(r, kb)) << r << "," << kb;
          used[std::size_t(swizzled_offset(r, kb, linear.scale_cols()))] = true;
        }
      }
      for (std::size_t i = 0; i < used.size(); ++i) {
        if (!used[i]) {
          ASSERT_EQ(swizzled.scales[i], 0) << "padding byte " << i;
        }
      }

      const Fp4Tensor back = with_scale_layout(swizzled, ScaleLayout::linear);
      EXPECT_EQ(back.scale_layout, ScaleLayout::linear);
      EXPECT_EQ(back.scales, linear.scales);
      EXPECT_EQ(back.data, linear.data);
      EXPECT_EQ(with_scale_layout(linear, ScaleLayout::linear).scales, linear.scales);
      EXPECT_EQ(dequantize(swizzled), dequantize(linear));
    }
  }
}

TEST(ScaleLayout, QuantizerWritesSwizzledScalesDirectly) {
  for (const Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4}) {
    const Fp4Tensor direct = random_tensor(format, 150, 96, 8, ScaleLayout::swizzled);
    const Fp4Tensor converted =
        with_scale_layout(random_tensor(format, 150, 96, 8), ScaleLayout::swizzled);
    EXPECT_EQ(direct.scales, converted.scales);
    EXPECT_EQ(direct.data, converted.data);
  }
}

}  // namespace
}  // namespace fp4gemm
