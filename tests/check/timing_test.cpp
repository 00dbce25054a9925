// The timing harness's statistics and stopping rule on synthetic samples, and the byte/FLOP
// counts of bench rows checked by hand on the seed's shapes.
#include <gtest/gtest.h>

#include <random>

#include "bench/bench_runner.hpp"
#include "bench/timing.hpp"

namespace fp4gemm {
namespace {

TEST(Timing, SummaryStatistics) {
  const SampleStats s = summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.p10, 1.4);  // 0.1 * 4 = 0.4 of the way from 1 to 2
  EXPECT_DOUBLE_EQ(s.p90, 4.6);
  EXPECT_NEAR(s.rsd, std::sqrt(2.5) / 3, 1e-12);
}

TEST(Timing, StopsWhenQuietAfterMinimums) {
  TimingOptions o;
  o.min_samples = 10;
  o.min_seconds = 0.1;
  o.target_rsd = 0.02;
  std::vector<double> quiet(10, 1e-3);
  bool converged = false;
  EXPECT_FALSE(should_stop(std::vector<double>(9, 1e-3), 0.5, o, &converged));  // too few samples
  EXPECT_FALSE(should_stop(quiet, 0.05, o, &converged));                        // too little time
  EXPECT_TRUE(should_stop(quiet, 0.2, o, &converged));
  EXPECT_TRUE(converged);
}

TEST(Timing, KeepsSamplingNoiseUntilTheTimeLimit) {
  TimingOptions o;
  o.max_seconds = 1.0;
  std::mt19937 rng(3);
  std::normal_distribution<double> noise(1e-3, 0.2e-3);  // 20% RSD: never under 2%
  std::vector<double> samples;
  for (int i = 0; i < 100; ++i) samples.push_back(noise(rng));
  bool converged = true;
  EXPECT_FALSE(should_stop(samples, 0.5, o, &converged));
  EXPECT_TRUE(should_stop(samples, 1.0, o, &converged));
  EXPECT_FALSE(converged);  // stopped on the limit, not on the RSD rule
}

// The seed's shapes, NVFP4 (K = 6144: 3072 packed bytes and 384 E4M3 scales per row, plus a
// 4-byte fp32 scale_2 per FP4 tensor), bf16 out. B (768 rows) is the same in every case:
// 768 * (3072 + 384) + 4 = 2654212, in both layouts (768 and 384 are multiples of 128 and 4).
constexpr double kSeedWeightBytes = 2654212.0;

GemmProblem seed_problem(std::int64_t m, Mode mode, ScaleLayout layout) {
  return {{m, 768, 6144}, mode, Fp4Format::nvfp4, layout, DType::bf16};
}

TEST(BenchBytes, SeedDecodeShapeByHand) {
  // 1 x 768 x 6144; D = 768 bf16 = 1536 bytes.
  //   w4a16: A 6144 bf16 = 12288.
  EXPECT_DOUBLE_EQ(gemm_bytes(seed_problem(1, Mode::w4a16, ScaleLayout::linear), OperandEncoding::fp4),
                   12288.0 + kSeedWeightBytes + 1536.0);
  //   w4a4, linear: A 3072 + 384 + 4 = 3460.
  EXPECT_DOUBLE_EQ(gemm_bytes(seed_problem(1, Mode::w4a4, ScaleLayout::linear), OperandEncoding::fp4),
                   3460.0 + kSeedWeightBytes + 1536.0);
  //   w4a4, swizzled: A's one row of scales is padded to 128 rows: 3072 + 128 * 384 + 4 = 52228.
  EXPECT_DOUBLE_EQ(gemm_bytes(seed_problem(1, Mode::w4a4, ScaleLayout::swizzled), OperandEncoding::fp4),
                   52228.0 + kSeedWeightBytes + 1536.0);
  EXPECT_DOUBLE_EQ(seed_problem(1, Mode::w4a4, ScaleLayout::linear).shape.flops(), 9437184.0);
  // The same in bf16 (cuBLAS on dequantized operands): (1 + 768) * 6144 * 2 + 1536, and in fp8
  // (1 + 768) * 6144 + two fp32 tensor scales + 1536.
  const GemmProblem p = seed_problem(1, Mode::w4a4, ScaleLayout::linear);
  EXPECT_DOUBLE_EQ(gemm_bytes(p, OperandEncoding::bf16), 769.0 * 6144 * 2 + 1536);
  EXPECT_DOUBLE_EQ(gemm_bytes(p, OperandEncoding::fp8), 769.0 * 6144 + 8 + 1536);
}

TEST(BenchBytes, SeedPrefillShapeByHand) {
  // 512 x 768 x 6144; D = 512 * 768 bf16 = 786432 bytes.
  //   w4a16: A 512 * 6144 * 2 = 6291456.
  EXPECT_DOUBLE_EQ(gemm_bytes(seed_problem(512, Mode::w4a16, ScaleLayout::swizzled), OperandEncoding::fp4),
                   6291456.0 + kSeedWeightBytes + 786432.0);
  //   w4a4: A 512 * (3072 + 384) + 4 = 1769476 in both layouts (512 rows need no padding).
  for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled})
    EXPECT_DOUBLE_EQ(gemm_bytes(seed_problem(512, Mode::w4a4, layout), OperandEncoding::fp4),
                     1769476.0 + kSeedWeightBytes + 786432.0);
  EXPECT_DOUBLE_EQ(seed_problem(512, Mode::w4a16, ScaleLayout::linear).shape.flops(), 2.0 * 512 * 768 * 6144);
}

TEST(BenchBytes, SwizzledPaddingAndMxfp4) {
  // N = 100 pads to 128 rows of scales in the swizzled layout: 128 * 384 scale bytes; f32 out.
  const GemmProblem padded{{1, 100, 6144}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::f32};
  EXPECT_DOUBLE_EQ(gemm_bytes(padded, OperandEncoding::fp4), 6144.0 * 2 + 100.0 * 3072 + 128.0 * 384 + 4 + 400);
  // MXFP4 has 192 UE8M0 scales per row (one per 32) and no tensor scale:
  //   A 3072 + 192, B 768 * (3072 + 192), D 1536.
  const GemmProblem mx{{1, 768, 6144}, Mode::w4a4, Fp4Format::mxfp4, ScaleLayout::linear, DType::bf16};
  EXPECT_DOUBLE_EQ(gemm_bytes(mx, OperandEncoding::fp4), 3264.0 + 768.0 * 3264 + 1536);
}

}  // namespace
}  // namespace fp4gemm
