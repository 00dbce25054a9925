// cuda-fp8-lossy against the CPU reference (exact FP4 operands, double accumulation): every
// mode x format x scale layout x output dtype on awkward shapes (M = 1, 2, 3, 17, 129, 300;
// odd N and N past the 128 tile; K = one format block (16 for NVFP4), K not a multiple of the
// 128-wide K-tile) with fresh random operands (seed in every failure), within the bound that
// Backend::accuracy() derives from the arithmetic (E4M3 rounding of both operands, FP8 tensor-core
// sums promoted every 128 k) through verify_output: poisoned output must be overwritten, NaN
// and all-zero output fail, a second run must repeat the bits. The GPU activation quantizer is
// checked bit for bit against the host rule. Without a GPU (or on one that is not sm_90) these
// skip with the reason; admission, plan, tensor maps and the declared accuracy are checked
// everywhere.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cuda/device_buffer.hpp"
#include "cuda/fp8_gemm.hpp"
#include "cuda/fp8_quantize.hpp"
#include "cuda/kernel_checks.hpp"
#include "cuda/tensor_map.hpp"
#include "format/fp8_blocks.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/gemm.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm {
namespace {

using test::check_random;
using test::Combo;
using test::problem_of;

const Backend& fp8() { return find_backend("cuda-fp8-lossy"); }

// Skips without a CUDA device or on a GPU other than sm_90 (the reason is printed).
void skip_unless_hopper() {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const Verdict available = fp8().availability();
  if (!available) GTEST_SKIP() << available.reason;
}

class Fp8Gemm : public testing::TestWithParam<Combo> {
 protected:
  void SetUp() override { skip_unless_hopper(); }
};

TEST_P(Fp8Gemm, RandomOperandsWithinTheDerivedBound) {
  const Combo c = GetParam();
  const std::int64_t kmin = block_size(c.format);  // 16 (NVFP4) or 32 (MXFP4): one K-tile, mostly padding
  const struct { std::int64_t m, n, k; } shapes[] = {
      {1, 768, 1056}, {1, 1, kmin},     {2, 3, 96},       {3, 127, 160},   {17, 8, 1056},
      {17, 3, kmin},  {129, 127, 1056}, {129, 300, 96},   {300, 129, 160}, {2, 129, 6144},
      {256, 256, 128}, {3, 5, 2 * kmin},
  };
  for (const auto& s : shapes) check_random(fp8(), problem_of(c, s.m, s.n, s.k), 1.0f);
  check_random(fp8(), problem_of(c, 5, 33, 224), -0.375f);  // a user alpha on top of the tensor scales
}

INSTANTIATE_TEST_SUITE_P(AllCombos, Fp8Gemm, testing::ValuesIn(test::all_combos()), test::combo_name);

class Fp8GemmLarge : public testing::Test {
 protected:
  void SetUp() override { skip_unless_hopper(); }
};

// 8 x 16 = 128 tiles (on 132 SMs one per CTA) over 32 K-blocks each.
TEST_F(Fp8GemmLarge, M1024N2048K4096) {
  check_random(fp8(), {{1024, 2048, 4096}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::bf16});
}
TEST_F(Fp8GemmLarge, W4a4M600N2000K2048) {
  check_random(fp8(), {{600, 2000, 2048}, Mode::w4a4, Fp4Format::mxfp4, ScaleLayout::linear, DType::f32});
}
// 24 x 12 = 288 tiles on at most 132 CTAs (two or three each): K = 1.5 blocks (2 K-blocks), one
// K-block (every K-block a tile's first and last) and 3 K-blocks (an odd count).
TEST_F(Fp8GemmLarge, ManyTilesPerCta) {
  check_random(fp8(), {{3000, 1500, 192}, Mode::w4a16, Fp4Format::mxfp4, ScaleLayout::swizzled, DType::f16});
  check_random(fp8(), {{3000, 1500, 64}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16});
  check_random(fp8(), {{3000, 1500, 384}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::f32});
}

// The GPU quantizer gives the host rule's codes and scales bit for bit (the hardware's
// cvt.rn.satfinite.e4m3x2 against e4m3_from_float), on bf16 values spanning many binades, with an
// all-zero block and K past the last whole block.
TEST_F(Fp8GemmLarge, ActivationQuantizerMatchesTheHostRule) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  const std::int64_t rows = 37, cols = 400, padded = fp8_padded_k(cols), k_blocks = padded / kFp8Block;
  const std::int64_t stride = 40;
  std::vector<std::uint16_t> in(std::size_t(rows * cols));
  std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (auto& x : in) x = bf16_from_float(std::ldexp(mantissa(rng), exponent(rng)));
  for (std::int64_t k = 0; k < kFp8Block; ++k) in[std::size_t(5 * cols + k)] = 0;  // row 5, block 0
  cuda::DeviceBuffer<std::uint16_t> d_in(in);
  cuda::DeviceBuffer<std::uint8_t> d_codes(std::size_t(rows * padded));
  cuda::DeviceBuffer<float> d_scales(std::size_t(k_blocks * stride));
  d_codes.fill_bytes(0xAB);
  cuda::quantize_bf16_to_fp8_blocks(d_in.get(), rows, cols, d_codes.get(), padded, d_scales.get(), stride, nullptr);
  const std::vector<std::uint8_t> codes = d_codes.download();
  const std::vector<float> scales = d_scales.download();
  std::int64_t mismatches = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t kb = 0; kb < k_blocks; ++kb) {
      float amax = 0.0f;
      for (std::int64_t k = kb * kFp8Block; k < std::min(cols, (kb + 1) * kFp8Block); ++k)
        amax = std::fmax(amax, std::fabs(bf16_to_float(in[std::size_t(r * cols + k)])));
      const int e = fp8_scale_exponent(amax);
      ASSERT_EQ(scales[std::size_t(kb * stride + r)], fp8_power_of_two(e)) << "row " << r << " block " << kb;
      for (std::int64_t k = kb * kFp8Block; k < (kb + 1) * kFp8Block; ++k) {
        const std::uint8_t want =
            k < cols ? e4m3_from_float(bf16_to_float(in[std::size_t(r * cols + k)]) * fp8_power_of_two(-e)) : 0;
        if (codes[std::size_t(r * padded + k)] != want && mismatches++ < 5)
          ADD_FAILURE() << fmt::format("code ({}, {}) = {:#x}, host rule {:#x}", r, k,
                                       codes[std::size_t(r * padded + k)], want);
      }
    }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(scales[std::size_t(5)], 1.0f);  // the all-zero block
}

TEST_F(Fp8GemmLarge, AutoNeverPicksIt) {
  for (std::int64_t m : {1, 64, 1024, 8192}) {
    const GemmProblem p{{m, 6144, 6144}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
    const std::optional<Dispatch> d = find_backend("auto").dispatch(p);
    ASSERT_TRUE(d.has_value());
    EXPECT_NE(d->chosen, "cuda-fp8-lossy") << d->rule;
  }
}

// ------------------------------------------------------------------ host rules (no GPU needed)
GemmProblem w4a16(std::int64_t m, std::int64_t n, std::int64_t k, Fp4Format f) {
  return {{m, n, k}, Mode::w4a16, f, ScaleLayout::linear, DType::f32};
}

TEST(Fp8GemmRules, TakesAnyKTheFormatAllowsAndRefusesTheRest) {
  for (std::int64_t k : {16, 48, 1040, 6144}) EXPECT_TRUE(fp8().can_implement(w4a16(1, 1, k, Fp4Format::nvfp4)));
  const Verdict mx24 = fp8().can_implement(w4a16(4, 4, 24, Fp4Format::mxfp4));
  EXPECT_FALSE(mx24);
  EXPECT_NE(mx24.reason.find("K = 24 is not a multiple of 32"), std::string::npos) << mx24.reason;
  const Verdict nv8 = fp8().can_implement(w4a16(4, 4, 8, Fp4Format::nvfp4));
  EXPECT_FALSE(nv8);
  EXPECT_NE(nv8.reason.find("K = 8 is not a multiple of 16"), std::string::npos) << nv8.reason;
  const Verdict m0 = fp8().can_implement(w4a16(0, 4, 32, Fp4Format::nvfp4));
  EXPECT_FALSE(m0);
  EXPECT_NE(m0.reason.find("M = 0 must be at least 1"), std::string::npos) << m0.reason;
  EXPECT_FALSE(fp8().can_implement(w4a16(4, 0, 32, Fp4Format::nvfp4)));
  const Verdict huge = fp8().can_implement(w4a16(std::int64_t(1) << 31, 4, 32, Fp4Format::mxfp4));
  EXPECT_FALSE(huge);
  EXPECT_NE(huge.reason.find("signed 32-bit"), std::string::npos) << huge.reason;
}

TEST(Fp8GemmRules, PlanPadsKAndTilesAPersistentGrid) {
  const cuda::Fp8Plan p = cuda::fp8_plan_for(w4a16(1000, 300, 1056, Fp4Format::nvfp4), 132);
  EXPECT_EQ(p.block_m, 128);
  EXPECT_EQ(p.block_n, 128);
  EXPECT_EQ(p.block_k, 128);
  EXPECT_EQ(p.tiles_m, 8);
  EXPECT_EQ(p.tiles_n, 3);
  EXPECT_EQ(p.tiles, 24);
  EXPECT_EQ(p.padded_k, 1152);
  EXPECT_EQ(p.k_blocks, 9);
  EXPECT_EQ(p.scale_stride, 1000);
  EXPECT_EQ(p.grid, 24);
  EXPECT_EQ(p.threads, 288);
  EXPECT_LE(p.smem_bytes, 232448);
  const cuda::Fp8Plan small = cuda::fp8_plan_for(w4a16(3, 5, 16, Fp4Format::nvfp4), 132);
  EXPECT_EQ(small.padded_k, 128);
  EXPECT_EQ(small.scale_stride, 4);  // 16-byte rows of fp32 for TMA
  EXPECT_EQ(small.grid, 1);
  const cuda::Fp8Plan wide = cuda::fp8_plan_for(w4a16(4096, 6144, 6144, Fp4Format::mxfp4), 132);
  EXPECT_EQ(wide.tiles, 32 * 48);
  EXPECT_EQ(wide.grid, 132);
  EXPECT_THROW(cuda::fp8_plan_for(w4a16(4, 4, 24, Fp4Format::mxfp4), 132), InvalidArgument);
}

TEST(Fp8GemmRules, TensorMapsMatchTheKernelsBoxes) {
  const GemmProblem p = w4a16(301, 129, 160, Fp4Format::nvfp4);
  const cuda::Fp8Plan plan = cuda::fp8_plan_for(p, 132);
  const cuda::TensorMap2d act = cuda::fp8_activation_map(p, plan);
  EXPECT_EQ(act.cols, 256u);
  EXPECT_EQ(act.rows, 301u);
  EXPECT_EQ(act.row_stride_bytes, 256u);
  EXPECT_EQ(act.box_cols, 128u);  // 128 bytes: one swizzle span
  EXPECT_EQ(act.box_rows, 128u);
  EXPECT_EQ(act.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  const cuda::TensorMap2d w = cuda::fp8_weight_map(p, plan);
  EXPECT_EQ(w.cols, 256u);
  EXPECT_EQ(w.rows, 129u);
  EXPECT_EQ(w.box_rows, 128u);
  EXPECT_EQ(w.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  const cuda::TensorMap2d s = cuda::fp8_scale_map(p, plan);
  EXPECT_EQ(s.dtype, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
  EXPECT_EQ(s.cols, 301u);
  EXPECT_EQ(s.rows, 2u);
  EXPECT_EQ(s.row_stride_bytes, 304u * 4);
  EXPECT_EQ(s.box_cols, 128u);
  EXPECT_EQ(s.box_rows, 1u);
  alignas(16) static const std::uint8_t base[16] = {};
  for (const cuda::TensorMap2d& m : {act, w, s}) EXPECT_EQ(cuda::tensor_map_problem(m, base), "");
}

TEST(Fp8GemmRules, AvailabilitySaysWhy) {
  test::check_availability(
      fp8(), [](const GpuInfo& gpu) { return gpu.sm_major == 9 && gpu.sm_minor == 0; }, "needs sm_90a");
}

TEST(Fp8GemmRules, IsLossyOnlyWhenNamedAndDeclaresItsArithmetic) {
  const Accuracy a = fp8().accuracy();
  EXPECT_FALSE(a.exact);
  EXPECT_EQ(a.input_relative_error, 0x1p-4);  // E4M3 round-to-nearest, 3 mantissa bits
  EXPECT_EQ(a.accumulation_unit, 0x1p-13);    // FP8 tensor-core sums (about 14 bits)
  EXPECT_EQ(a.accumulation_block, 128);       // promoted to fp32 every 128 k
  EXPECT_NE(a.note.find("lossy"), std::string::npos);
  EXPECT_NE(fp8().summary().find("LOSSY"), std::string::npos);
  EXPECT_TRUE(fp8().only_when_named());
  EXPECT_EQ(fp8().encoding(), OperandEncoding::fp8);
  EXPECT_EQ(fp8().compute_path(), ComputePath::fp8_tensor);
}

}  // namespace
}  // namespace fp4gemm
