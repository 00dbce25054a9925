// cuda-dequant-cublas against the CPU reference: every mode x format x scale layout x output dtype
// (f16 output refused with its reason), M = 1, 2, 3, 33 and 1024 (one GEMM from decode to prefill
// sizes), N = 1 and odd, K of one block, K = block * odd and K = 6144; fresh random operands (shared
// checks: tests/cuda/kernel_checks.hpp), bit-exact on representable operands, and the declared
// accuracy. Without a GPU these skip.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include <fmt/format.h>

#include "cuda/kernel_checks.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm {
namespace {

using test::check_random;
using test::Combo;
using test::problem_of;

const Backend& dequant_cublas() { return find_backend("cuda-dequant-cublas"); }

TEST(DequantCublasRules, AvailableOnSm80AndLaterWithExactAccuracy) {
  test::check_availability(
      dequant_cublas(), [](const GpuInfo& g) { return g.sm_major >= 8; }, "needs sm_80+");
  test::check_bf16_mma_accuracy(dequant_cublas());
}

TEST(DequantCublasRules, RefusesF16OutputAndBadShapesWithReasons) {
  const GemmProblem f16{{4, 64, 64}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::f16};
  EXPECT_THAT(dequant_cublas().can_implement(f16).reason, testing::HasSubstr("f16 output"));
  const GemmProblem k100{{4, 64, 100}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
  EXPECT_THAT(dequant_cublas().can_implement(k100).reason, testing::HasSubstr("K = 100"));
}

class DequantCublasGemm : public testing::TestWithParam<Combo> {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
    const Verdict available = dequant_cublas().availability();
    ASSERT_TRUE(available) << available.reason;
  }
};

TEST_P(DequantCublasGemm, RandomOperandsWithinTheAccumulationBound) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  const struct { std::int64_t m, n, k; } shapes[] = {
      {1, 1, b}, {2, 65, 3 * b}, {3, 131, 385 * b}, {33, 129, 6144}, {1024, 300, 37 * b},
  };
  for (const auto& s : shapes) {
    const GemmProblem problem = problem_of(c, s.m, s.n, s.k);
    if (c.out == DType::f16) {
      EXPECT_FALSE(dequant_cublas().can_implement(problem));
      EXPECT_THROW(dequant_cublas().prepare(random_operands(problem, 1)), InvalidArgument);
      continue;
    }
    check_random(dequant_cublas(), problem);
  }
  if (c.out != DType::f16) check_random(dequant_cublas(), problem_of(c, 5, 33, 7 * b), -0.375f);  // a user alpha
}

TEST_P(DequantCublasGemm, BitExactOnRepresentableOperands) {
  const Combo c = GetParam();
  if (c.out == DType::f16) GTEST_SKIP() << "f16 output is refused (RandomOperandsWithinTheAccumulationBound checks it)";
  const std::int64_t b = block_size(c.format);
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  const struct { std::int64_t m, n, k; } shapes[] = {{1, 768, 1024}, {17, 64, 3 * b}, {300, 129, 1024}};
  for (const auto& s : shapes) test::check_bit_exact(dequant_cublas(), problem_of(c, s.m, s.n, s.k), rng);
}

INSTANTIATE_TEST_SUITE_P(AllCombos, DequantCublasGemm, testing::ValuesIn(test::all_combos()), test::combo_name);

}  // namespace
}  // namespace fp4gemm
