// verify_output: the tolerance rule and each kind of failure it must flag.
#include <gtest/gtest.h>

#include <cmath>

#include "check/verify.hpp"
#include "fp4gemm/host_device.hpp"

namespace fp4gemm {
namespace {

const GemmProblem kProblem{{2, 3, 64}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32};
const Accuracy kFp32Accumulation{true, 0.0, 0x1p-24, "exact"};

ReferenceResult reference() {
  ReferenceResult r;
  r.exact = {1.0, -2.0, 3.5, 0.25, 100.0, -7.0};
  r.abs_sum = {10.0, 10.0, 10.0, 10.0, 200.0, 10.0};
  for (double x : r.exact) r.rounded.push_back(float(x));
  return r;
}

std::vector<float> exact_output() { return reference().rounded; }

TEST(Verify, ExactOutputPasses) {
  const VerifyResult v = verify_output(exact_output(), reference(), kProblem, kFp32Accumulation);
  EXPECT_TRUE(v.passed) << v.failure;
  EXPECT_EQ(v.relative_error, 0.0);
}

TEST(Verify, ErrorWithinTheAccumulationBoundPasses) {
  // K = 64, u = 2^-24: bound = 64 * 2^-24 * 10 (+ output rounding) ~ 3.8e-5 for element 0.
  std::vector<float> d = exact_output();
  d[0] += 3.0e-5f;
  EXPECT_TRUE(verify_output(d, reference(), kProblem, kFp32Accumulation).passed);
}

TEST(Verify, ErrorBeyondTheBoundFailsAndNamesTheElement) {
  std::vector<float> d = exact_output();
  d[4] = 100.5f;  // bound there: 64 * 2^-24 * 200 ~ 7.6e-4
  const VerifyResult v = verify_output(d, reference(), kProblem, kFp32Accumulation);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.violations, 1);
  EXPECT_NE(v.failure.find("D[1][1]"), std::string::npos) << v.failure;
}

TEST(Verify, LossyBackendsGetTheirInputErrorInTheBound) {
  std::vector<float> d = exact_output();
  d[0] = 1.5f;  // 0.5 off, S = 10: within (2 * 2^-4 + 2^-8) * 10 = 1.29
  const Accuracy fp8{false, 0x1p-4, 0x1p-24, "lossy"};
  EXPECT_TRUE(verify_output(d, reference(), kProblem, fp8).passed);
  EXPECT_FALSE(verify_output(d, reference(), kProblem, kFp32Accumulation).passed);
}

TEST(Verify, BlockPromotedAccumulationBoundsOnlyOneBlockAtTheCoarseUnit) {
  // K = 1024, u = 2^-13, promoted every 128: accumulation term 128 * 2^-13 + 8 * 2^-24 ~ 2^-6,
  // not K u = 2^-3. Element 0 (S = 10): bound ~ 0.156 + output rounding; 0.15 off passes, 0.2
  // fails; without the block the same accumulation unit would take 1.25.
  const GemmProblem p{{2, 3, 1024}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32};
  const Accuracy blocked{true, 0.0, 0x1p-13, "fp8 tensor cores, promoted", 128};
  const Accuracy unblocked{true, 0.0, 0x1p-13, "fp8 tensor cores"};
  std::vector<float> d = exact_output();
  d[0] += 0.15f;
  EXPECT_TRUE(verify_output(d, reference(), p, blocked).passed);
  d[0] = 1.2f + 1.0f;
  EXPECT_FALSE(verify_output(d, reference(), p, blocked).passed);
  EXPECT_TRUE(verify_output(d, reference(), p, unblocked).passed);
  // K below the block: min(K, B) = K, one promotion.
  std::vector<float> small = exact_output();
  small[0] += 0.07f;  // K = 64: 64 * 2^-13 * 10 = 0.078
  EXPECT_TRUE(verify_output(small, reference(), kProblem, blocked).passed);
}

TEST(Verify, AllZerosFlagged) {
  const VerifyResult v = verify_output(std::vector<float>(6, 0.0f), reference(), kProblem, kFp32Accumulation);
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(v.all_zero);
  EXPECT_NE(v.failure.find("all zeros"), std::string::npos);
}

TEST(Verify, UnwrittenElementsFlagged) {
  std::vector<float> d = exact_output();
  d[5] = float_from_bits(0xFFFFFFFFu);  // the poison pattern
  const VerifyResult v = verify_output(d, reference(), kProblem, kFp32Accumulation);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.unwritten, 1);
  EXPECT_NE(v.failure.find("never written"), std::string::npos);
}

TEST(Verify, ComputedNanFlaggedApartFromPoison) {
  std::vector<float> d = exact_output();
  d[2] = std::nanf("");
  const VerifyResult v = verify_output(d, reference(), kProblem, kFp32Accumulation);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.non_finite, 1);
  EXPECT_EQ(v.unwritten, 0);
}

TEST(Verify, Bf16OutputAllowsItsRounding) {
  GemmProblem p = kProblem;
  p.out_dtype = DType::bf16;
  std::vector<float> d = exact_output();
  d[4] = 100.25f;  // a bf16 half-ulp at 100 is 0.25
  EXPECT_TRUE(verify_output(d, reference(), p, kFp32Accumulation).passed);
  EXPECT_FALSE(verify_output(d, reference(), kProblem, kFp32Accumulation).passed);
}

TEST(Verify, WrongSizeFails) {
  EXPECT_FALSE(verify_output(std::vector<float>(5, 1.0f), reference(), kProblem, kFp32Accumulation).passed);
}

}  // namespace
}  // namespace fp4gemm
