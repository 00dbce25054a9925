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

TEST(BenchBytes, SeedDecodeShapeByHand) {
  // 1 x 768 x 6144 w4a4 NVFP4, linear scales, bf16 out:
  //   A 6144/2 + 6144/16 = 3456; B 768 * (3072 + 384) = 2654208; D 768 * 2 = 1536.
  const GemmProblem p{{1, 768, 6144}, Mode::w4a4, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
  EXPECT_DOUBLE_EQ(gemm_bytes(p, OperandEncoding::fp4), 3456.0 + 2654208.0 + 1536.0);
  EXPECT_DOUBLE_EQ(p.shape.flops(), 9437184.0);
  // The same in bf16 (cuBLAS on dequantized operands): (1 + 768) * 6144 * 2 + 1536.
  EXPECT_DOUBLE_EQ(gemm_bytes(p, OperandEncoding::bf16), 769.0 * 6144 * 2 + 1536);
}

TEST(BenchBytes, SeedPrefillShapeWithSwizzledPadding) {
  // 512 x 768 x 6144 w4a16 NVFP4, swizzled scales (768 rows and 384 scale columns are already
  // multiples of 128 and 4, so no padding), f32 out:
  //   A 512 * 6144 * 2 = 6291456; B 2654208; D 512 * 768 * 4 = 1572864.
  const GemmProblem p{{512, 768, 6144}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::f32};
  EXPECT_DOUBLE_EQ(gemm_bytes(p, OperandEncoding::fp4), 6291456.0 + 2654208.0 + 1572864.0);
  EXPECT_DOUBLE_EQ(p.shape.flops(), 2.0 * 512 * 768 * 6144);
  // N = 100 pads to 128 rows of scales in the swizzled layout: 128 * 384 scale bytes.
  const GemmProblem padded{{1, 100, 6144}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::f32};
  EXPECT_DOUBLE_EQ(gemm_bytes(padded, OperandEncoding::fp4), 6144.0 * 2 + 100.0 * 3072 + 128.0 * 384 + 400);
}

}  // namespace
}  // namespace fp4gemm
