// auto on the GPU against the CPU reference: every mode x format x scale layout x output dtype at
// M = 1, 17 (decode rows), 33 and 1024 (N x K = 300 x 1024: cuda-dequant-cublas on sm_90,
// cuda-wgmma for f16 output; cuda-mma elsewhere) and 200 (cuda-wgmma on sm_90), with fresh random
// operands (the seed is in every failure) and the tolerance of auto's declared accuracy; the kernel
// it picks is the table's on this GPU or, when that one refuses the problem, the first of the others
// in the fallback order that takes it; and NVFP4 K = 48 with
// f16 output at M = 1024 falls back to cuda-mma and still matches. Without a GPU these skip.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "cuda/dispatch_table.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/kernel_checks.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm {
namespace {

using test::Combo;
using test::problem_of;

const Backend& auto_backend() { return find_backend("auto"); }

TEST(AutoBackendGpu, AvailableOnSm80AndLater) {
  test::check_availability(
      auto_backend(), [](const GpuInfo& g) { return g.sm_major >= 8; }, "needs sm_80+");
}

class AutoGemm : public testing::TestWithParam<Combo> {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
    if (const Verdict v = auto_backend().availability(); !v) GTEST_SKIP() << v.reason;
  }
};

// The dispatch on this GPU is the table's pick when that kernel is here (cuda-wgmma needs the
// sm_90a image), and the problem runs within the bound whichever kernel it lands on.
TEST_P(AutoGemm, MatchesTheReferenceOnTheTablesKernel) {
  const int sm = cuda::current_device_sm();
  for (std::int64_t m : {1, 17, 33, 200, 1024}) {
    const GemmProblem problem = problem_of(GetParam(), m, 300, 1024);
    const std::optional<Dispatch> d = auto_backend().dispatch(problem);
    ASSERT_TRUE(d.has_value());
    const auto table = cuda::dispatch_table();
    const std::string_view pick = table[cuda::dispatch_row(table, sm, problem.shape)].backend;
    // The pick, or else the first of the other candidates (fallback order) that takes the problem.
    std::string expected;
    for (std::string_view name : cuda::dispatch_candidates(pick)) {
      const Backend& candidate = find_backend(name);
      if (candidate.availability() && candidate.can_implement(problem)) {
        expected = std::string(name);
        break;
      }
    }
    EXPECT_EQ(d->chosen, expected) << "M = " << m << ": " << d->describe_refusals();
    test::check_random(auto_backend(), problem);
  }
}

// NVFP4 K = 48 with f16 output at M = 1024: cuda-dequant-cublas refuses f16 output and cuda-wgmma
// K % 32 != 0, so it lands on cuda-mma and is still right.
TEST_P(AutoGemm, Nvfp4K48F16FallsBackAndMatchesTheReference) {
  const Combo c = GetParam();
  if (c.format != Fp4Format::nvfp4 || c.out != DType::f16)
    GTEST_SKIP() << "the case is NVFP4 (K = 48 is not a multiple of the MXFP4 block) with f16 output";
  const GemmProblem problem = problem_of(c, 1024, 129, 48);
  const std::optional<Dispatch> d = auto_backend().dispatch(problem);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->chosen, "cuda-mma") << d->rule << "; " << d->describe_refusals();
  if (cuda::current_device_sm() == 90) {
    EXPECT_THAT(d->describe_refusals(), testing::HasSubstr("cuda-dequant-cublas: "));
    EXPECT_THAT(d->describe_refusals(), testing::HasSubstr("cuda-wgmma: "));
  }
  test::check_random(auto_backend(), problem);
}

INSTANTIATE_TEST_SUITE_P(AllCombos, AutoGemm, testing::ValuesIn(test::all_combos()), test::combo_name);

}  // namespace
}  // namespace fp4gemm
