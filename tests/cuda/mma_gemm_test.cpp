// cuda-mma against the CPU reference: every mode x format x scale layout x output dtype, on
// awkward shapes (M = 1, 2, 3, 17, 64, 129, 4096; N = 1, 3, 8, 127, 768; K down to one block and
// not a multiple of the K-tile) with fresh random operands (the seed is in every failure);
// tolerance from Backend::accuracy() through verify_output (poisoned output must be overwritten,
// NaN and all-zero output fail); bit-exact on exactly representable operands; runs repeat bit
// for bit (split-K sums its partials in a fixed order); and the admission rules.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cuda/kernel_checks.hpp"
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

const Backend& mma() { return find_backend("cuda-mma"); }

class MmaGemm : public testing::TestWithParam<Combo> {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
    const Verdict available = mma().availability();
    ASSERT_TRUE(available) << available.reason;
  }
};

// Each M, N and K of the sweep at least once; K values are 1, 3, 5 and 384 blocks (K-tiles are
// 64 or 128, so only the last is whole); M <= 16 with large K exercises split-K; even N that end
// inside an 8-column group (6, 130) take the epilogue's paired stores up to the edge.
TEST_P(MmaGemm, RandomOperandsWithinTheAccumulationBound) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  const struct { std::int64_t m, n, k; } shapes[] = {
      {1, 768, 384 * b}, {1, 1, b},       {2, 3, 3 * b},     {3, 127, 5 * b},
      {3, 768, 384 * b}, {17, 8, 384 * b}, {64, 768, 5 * b},  {64, 1, b},
      {129, 127, 384 * b}, {129, 768, 3 * b}, {17, 3, 3 * b},  {2, 127, 384 * b},
      {5, 130, 3 * b},   {2, 6, b},
  };
  for (const auto& s : shapes) check_random(mma(), problem_of(c, s.m, s.n, s.k), 1.0f);
  check_random(mma(), problem_of(c, 5, 33, 7 * b), -0.375f);  // a user alpha on top of the tensor scales
}

// Representable operands (kernel_checks.hpp) on shapes with M, N and K tails and split-K.
TEST_P(MmaGemm, BitExactOnRepresentableOperands) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  const struct { std::int64_t m, n, k; } shapes[] = {
      {1, 768, 1024}, {3, 127, 5 * b}, {129, 8, 1024}, {64, 768, 3 * b}, {17, 1, b}};
  for (const auto& s : shapes) test::check_bit_exact(mma(), problem_of(c, s.m, s.n, s.k), rng);
}

INSTANTIATE_TEST_SUITE_P(AllCombos, MmaGemm, testing::ValuesIn(test::all_combos()), test::combo_name);

class MmaGemmLarge : public testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
};

// The 128-row config over many tiles (one mode: the CPU reference is slow at this size).
TEST_F(MmaGemmLarge, M4096) {
  check_random(mma(), {{4096, 768, 1024}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::bf16},
               1.0f);
}

// The 128-row config with split-K (12 output tiles, 96 K-tiles).
TEST_F(MmaGemmLarge, M256SplitK) {
  check_random(mma(), {{256, 768, 6144}, Mode::w4a4, Fp4Format::mxfp4, ScaleLayout::linear, DType::f32}, 1.0f);
}

// ------------------------------------------------------------------ admission (no GPU needed)
TEST(MmaGemmRules, CanImplementRefusesOnlyWhatTheFormatForbids) {
  auto problem = [](std::int64_t m, std::int64_t n, std::int64_t k, Fp4Format f) {
    return GemmProblem{{m, n, k}, Mode::w4a16, f, ScaleLayout::linear, DType::f32};
  };
  const Verdict mx24 = mma().can_implement(problem(4, 4, 24, Fp4Format::mxfp4));
  EXPECT_FALSE(mx24);
  EXPECT_NE(mx24.reason.find("K = 24 is not a multiple of 32"), std::string::npos) << mx24.reason;
  const Verdict nv24 = mma().can_implement(problem(4, 4, 24, Fp4Format::nvfp4));
  EXPECT_FALSE(nv24);
  EXPECT_NE(nv24.reason.find("K = 24 is not a multiple of 16"), std::string::npos) << nv24.reason;
  EXPECT_FALSE(mma().can_implement(problem(4, 4, 16, Fp4Format::mxfp4)));
  EXPECT_FALSE(mma().can_implement(problem(0, 4, 16, Fp4Format::nvfp4)));
  EXPECT_FALSE(mma().can_implement(problem(4, 0, 16, Fp4Format::nvfp4)));
  for (Fp4Format f : {Fp4Format::nvfp4, Fp4Format::mxfp4}) {
    const std::int64_t b = block_size(f);
    EXPECT_TRUE(mma().can_implement(problem(1, 1, b, f)));
    EXPECT_TRUE(mma().can_implement(problem(1000003, 77777, 1000 * b, f)));
  }
}

// w4a4 quantizes A on the GPU in every call, which takes M and K below 2^31: refused at
// admission (before, the first run() threw); w4a16 is not limited.
TEST(MmaGemmRules, W4a4NeedsMAndKBelow2To31) {
  const std::int64_t limit = std::int64_t(1) << 31;
  const auto problem = [](Mode mode, std::int64_t m, std::int64_t k) {
    return GemmProblem{{m, 1, k}, mode, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32};
  };
  const Verdict big_k = mma().can_implement(problem(Mode::w4a4, 1, limit));
  EXPECT_FALSE(big_k);
  EXPECT_NE(big_k.reason.find("M x K = 1 x 2147483648: w4a4 quantizes the activations on the GPU"),
            std::string::npos) << big_k.reason;
  EXPECT_FALSE(mma().can_implement(problem(Mode::w4a4, limit, 16)));
  EXPECT_TRUE(mma().can_implement(problem(Mode::w4a4, limit - 1, limit - 16)));
  EXPECT_TRUE(mma().can_implement(problem(Mode::w4a16, limit, limit)));
}

TEST(MmaGemmRules, AvailabilitySaysWhy) {
  test::check_availability(mma(), [](const GpuInfo& gpu) { return gpu.sm_major >= 8; },
                           "needs sm_80+");
}

TEST(MmaGemmRules, AccuracyIsExactWithFp32Accumulation) { test::check_bf16_mma_accuracy(mma()); }

}  // namespace
}  // namespace fp4gemm
