// cuda-decode against the CPU reference: every mode x format x scale layout x output dtype, at
// every M from 1 to 32 (token blocks of 8, 16 and 32 and their partial fills), N not a multiple
// of the 64-row CTA tile (1, 65, 131), K of one block, K = block * odd (not a multiple of the
// 128-k group nor of 32 for NVFP4), and K large enough for many K-slices (split-K); fresh random
// operands (shared checks: tests/cuda/kernel_checks.hpp); activations near the ends of bf16's
// range; bit-exact on representable operands; back-to-back calls (dependent launches); the
// K-slices summed in thread-block clusters (the same bits as the global sums, and the reference
// through the backend's environment switch); wide CTAs of 8 warps at M > 8; and the admission
// rules.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cuda/decode_gemm.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/kernel_checks.hpp"
#include "cuda/kernel_operands.hpp"
#include "expect_error.hpp"
#include "scoped_env.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm {
namespace {

using test::check_random;
using test::check_random_fp4_activations_only;
using test::Combo;
using test::problem_of;

const Backend& decode() { return find_backend("cuda-decode"); }

class DecodeGemm : public testing::TestWithParam<Combo> {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
    const Verdict available = decode().availability();
    ASSERT_TRUE(available) << available.reason;
  }
};

TEST_P(DecodeGemm, EveryMFrom1To32) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  for (std::int64_t m = 1; m <= 32; ++m) check_random(decode(), problem_of(c, m, 131, 37 * b));
}

TEST_P(DecodeGemm, AwkwardShapesAndSplitK) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  const struct { std::int64_t m, n, k; } shapes[] = {
      {1, 1, b},        {2, 65, b},         {3, 64, 3 * b},     {32, 1, 5 * b},
      {1, 768, 384 * b}, {16, 200, 384 * b}, {9, 130, 385 * b},  {32, 257, 200 * b},
  };
  for (const auto& s : shapes) check_random(decode(), problem_of(c, s.m, s.n, s.k));
  check_random(decode(), problem_of(c, 5, 33, 7 * b), -0.375f);  // a user alpha on top
}

TEST_P(DecodeGemm, BitExactOnRepresentableOperands) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  const struct { std::int64_t m, n, k; } shapes[] = {{1, 768, 1024}, {17, 64, 3 * b}, {32, 129, 1024}};
  for (const auto& s : shapes) test::check_bit_exact(decode(), problem_of(c, s.m, s.n, s.k), rng);
}

INSTANTIATE_TEST_SUITE_P(AllCombos, DecodeGemm, testing::ValuesIn(test::all_combos()), test::combo_name);

// The M = 1 instance stages A times 2^c, c from the slice's largest |a| (decode_gemm.cuh step
// 3'): activations near either end of bf16's range, at M = 1 (one slice and split-K) against
// M = 2 and 9 (the other instances); f32 output, which holds every result here.
TEST(DecodeGemmActivationRange, ActivationsFrom2ToTheMinus90To2ToThe90) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4}) {
    const std::int64_t b = block_size(format);
    const Combo c{Mode::w4a16, format, ScaleLayout::linear, DType::f32};
    for (int exponent : {-90, -40, 40, 90})
      for (std::int64_t m : {1, 2, 9}) {
        test::check_random_scaled_activations(decode(), problem_of(c, m, 131, 37 * b), exponent);
        test::check_random_scaled_activations(decode(), problem_of(c, m, 768, 384 * b), exponent);
      }
  }
}

// Back-to-back calls (test::check_chain_gives_the_bits_of_one_call): on sm_90 each is a
// programmatic dependent launch that starts during the previous one's tail, and must still wait
// for it before touching A, the output and the split-K workspace and counters. A call that ran
// ahead would corrupt a counter and leave an N-tile unwritten or summed from a partial workspace,
// in that call or any later one. Split-K shapes of the M = 1 and the M <= 16 instances, both modes
// (w4a4 quantizes A in each call).
void expect_chain_gives_the_bits_of_one_call(const GemmProblem& problem) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("{} seed {}", problem.describe(), seed));
  test::check_chain_gives_the_bits_of_one_call(*decode().prepare(random_operands(problem, seed)));
}

TEST(DecodeGemmChain, BackToBackCallsGiveTheBitsOfOneCall) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  for (Mode mode : {Mode::w4a16, Mode::w4a4})
    for (std::int64_t m : {1, 16})
      expect_chain_gives_the_bits_of_one_call(
          problem_of({mode, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32}, m, 768, 6144));
}

// The same with the K-slices summed through the global workspace and counters (at 768 x 6144
// the default plan sums them in a cluster on sm_90): 1 x 768 and 1 x 4096 x 6144 (9 slices).
TEST(DecodeGemmChain, BackToBackCallsWithGlobalSplitSums) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const test::ScopedEnv environment("FP4GEMM_DECODE_SPLIT_SUMS", "global");
  for (Mode mode : {Mode::w4a16, Mode::w4a4})
    for (std::int64_t n : {768, 4096})
      expect_chain_gives_the_bits_of_one_call(
          problem_of({mode, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32}, 1, n, 6144));
}

// The K-splits fill the GPU with every GEMM of the launch (cuda-grouped's experts): more GEMMs,
// fewer splits each, down to one; zero GEMMs is refused.
TEST(DecodeGemmPlan, KSplitsCountEveryGemmOfTheLaunch) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const GemmProblem problem{{1, 4096, 6144}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
  const auto plan = [&](std::int64_t gemms) { return cuda::plan_decode_gemm(problem, gemms, {cuda::SplitSums::global}); };
  const cuda::DecodePlan one = plan(1), eight = plan(8);
  EXPECT_GT(one.splits, 1);
  EXPECT_LT(eight.splits, one.splits);
  EXPECT_EQ(plan(100000).splits, 1);
  test::expect_error<InvalidArgument>([&] { plan(0); },
                                      "gemms_per_launch = 0 must be >= 1");
}

// Step 4' of decode_gemm.cuh: the K-slices of an N-tile summed in a thread-block cluster through
// distributed shared memory, in split order like the global sums, so both plans must give the
// same bits on the same operands. Shapes whose global plan has at most kMaxClusterSplits
// K-slices (so both plans slice K alike): 5 to 16 slices (16: a non-portable cluster), M = 1
// (block columns), 3, 16 and 32, N not a multiple of the 64-row tile, K not a multiple of 128.
class DecodeGemmSplitSums : public testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
    if (cuda::current_device_sm() < 90) GTEST_SKIP() << "thread-block clusters need sm_90+";
  }
};

// A cluster of up to 16 of these CTAs (<= 72 registers x 128 threads, <= ~61 KB of shared memory)
// is resident on every sm_90 GPU, so there a plan without clusters is a planner bug and fails;
// on later architectures it is only reported (their limits were never measured here).
void expect_clusters_used(const cuda::DecodePlan& plan) {
  if (plan.splits_in_cluster) return;
  if (cuda::current_device_sm() == 90) FAIL() << "no cluster plan on sm_90: " << plan.describe();
  GTEST_SKIP() << "this GPU takes no cluster of " << plan.splits << " CTAs: " << plan.describe();
}

// Runs `problem` on fresh random operands under two plans of cuda-decode (poisoned output each)
// and expects the same bits, finite and not all zero.
void expect_plans_give_the_same_bits(const GemmProblem& problem, const cuda::DecodePlan& first,
                                     const cuda::DecodePlan& second, const char* what) {
  using Run = cuda::KernelGemmRun<cuda::DecodePlan, cuda::launch_decode_gemm>;
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("{} seed {}", problem.describe(), seed));
  const GemmOperands operands = random_operands(problem, seed);
  std::vector<float> d[2];
  for (int i = 0; i < 2; ++i) {
    Run run(operands, i == 0 ? first : second);
    run.poison_output();
    run.run();
    d[i] = run.output();
  }
  bool any_nonzero = false;
  for (float x : d[1]) {
    ASSERT_TRUE(std::isfinite(x)) << "an output is not finite (poison left?)";
    any_nonzero |= x != 0.0f;
  }
  EXPECT_TRUE(any_nonzero) << "output is all zeros";
  ASSERT_EQ(d[0].size(), d[1].size());
  EXPECT_EQ(0, std::memcmp(d[0].data(), d[1].data(), d[0].size() * sizeof(float))) << what;
}

TEST_F(DecodeGemmSplitSums, ClusterAndGlobalSumsGiveTheSameBits) {
  for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4}) {
    const std::int64_t b = block_size(format);
    const struct { std::int64_t m, n, k; } shapes[] = {
        {1, 4096, 6144}, {16, 6144, 6144}, {1, 200, 2048}, {32, 131, 1024}, {3, 65, 37 * b},
    };
    for (const auto& s : shapes) {
      const GemmProblem problem = problem_of({Mode::w4a16, format, ScaleLayout::linear, DType::f32}, s.m, s.n, s.k);
      SCOPED_TRACE(problem.describe());
      const cuda::DecodePlan global = cuda::plan_decode_gemm(problem, 1, {cuda::SplitSums::global});
      const cuda::DecodePlan cluster = cuda::plan_decode_gemm(problem, 1, {cuda::SplitSums::cluster_where_able});
      ASSERT_GT(global.splits, 1);
      ASSERT_EQ(global.splits, cluster.splits) << "both plans must slice K alike";
      ASSERT_EQ(global.groups_per_split, cluster.groups_per_split) << "both plans must slice K alike";
      EXPECT_FALSE(global.splits_in_cluster);
      expect_clusters_used(cluster);
      if (testing::Test::IsSkipped() || testing::Test::HasFatalFailure()) return;
      EXPECT_EQ(cluster.workspace_floats, 0u);
      expect_plans_give_the_same_bits(problem, global, cluster, "the cluster sums gave other bits than the global sums");
    }
  }
}

// The default choice (SplitSums::by_slice_count): on this GPU's SM count, a plan whose global
// sums would have more than kMaxClusterSplits K-slices sums them in clusters, one with fewer
// keeps the global sums (132 SMs: N = 256 and 768 have 48 and 24 K-slices, 2048 16, 4096 8 and
// 16384 3).
TEST_F(DecodeGemmSplitSums, DefaultSumsInClustersOnlyWhereTheGlobalPlanHasManySlices) {
  for (std::int64_t n : {256, 768, 2048, 4096, 16384}) {
    const GemmProblem problem = problem_of({Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16}, 1, n, 6144);
    SCOPED_TRACE(problem.describe());
    const cuda::DecodePlan global = cuda::plan_decode_gemm(problem, 1, {cuda::SplitSums::global});
    const cuda::DecodePlan chosen = cuda::plan_decode_gemm(problem, 1, {cuda::SplitSums::by_slice_count});
    if (global.splits > cuda::kMaxClusterSplits) {
      expect_clusters_used(chosen);
      if (testing::Test::IsSkipped() || testing::Test::HasFatalFailure()) return;
    } else {
      EXPECT_FALSE(chosen.splits_in_cluster) << chosen.describe();
      EXPECT_EQ(chosen.splits, global.splits);
    }
  }
}

// The backend with FP4GEMM_DECODE_SPLIT_SUMS=cluster against the CPU reference, every combo, on
// shapes whose K-slices the cluster plan caps at 16 (global plans on 132 SMs: NVFP4 24 and 48
// slices, MXFP4 32 and 96) as well as one it keeps (NVFP4; MXFP4 32 -> 16); each plan checked to
// sum in clusters; and the chain of back-to-back dependent launches in clusters.
TEST_F(DecodeGemmSplitSums, ClusterSumsThroughTheEnvironmentMatchTheReference) {
  const test::ScopedEnv environment("FP4GEMM_DECODE_SPLIT_SUMS", "cluster");
  ASSERT_EQ(cuda::decode_choices_from_environment().split_sums, cuda::SplitSums::cluster_where_able);
  for (const test::Combo& c : test::all_combos()) {
    const std::int64_t b = block_size(c.format);
    const struct { std::int64_t m, n, k; } shapes[] = {{1, 768, 384 * b}, {9, 1, 384 * b}, {16, 200, 128 * b}};
    for (const auto& s : shapes) {
      const GemmProblem problem = problem_of(c, s.m, s.n, s.k);
      SCOPED_TRACE(problem.describe());
      expect_clusters_used(cuda::plan_decode_gemm(problem, 1, cuda::decode_choices_from_environment()));
      if (testing::Test::IsSkipped() || testing::Test::HasFatalFailure()) return;
      check_random(decode(), problem);
    }
  }
  for (std::int64_t m : {1, 16})
    expect_chain_gives_the_bits_of_one_call(
        problem_of({Mode::w4a4, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32}, m, 768, 6144));
}

// Step 1q of decode_gemm.cuh: w4a4's bf16 activations quantized by every CTA for its A slice
// must give the bits of the GPU quantizer's kernel followed by the GEMM (both write the block
// values through quantize_lane.cuh), every format, scale layout and output dtype; M = 1 (the
// block-column instance, whose shift reads the quantized slice), 3, 16 and 32; N not a multiple
// of the tile; K of one block, K = block * odd and split-K; both split sums.
TEST(DecodeGemmInKernelQuantize, GivesTheBitsOfTheQuantizerKernel) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  for (const test::Combo& c : test::all_combos()) {
    if (c.mode != Mode::w4a4) continue;
    const std::int64_t b = block_size(c.format);
    const struct { std::int64_t m, n, k; } shapes[] = {
        {1, 768, 384 * b}, {3, 65, 37 * b}, {16, 200, 128 * b}, {32, 131, 1024}, {1, 1, b}, {16, 4096, 6144},
    };
    for (const auto& s : shapes)
      for (cuda::SplitSums sums : {cuda::SplitSums::global, cuda::SplitSums::by_slice_count}) {
        const GemmProblem problem = problem_of(c, s.m, s.n, s.k);
        SCOPED_TRACE(problem.describe());
        const cuda::DecodePlan separate = cuda::plan_decode_gemm(problem, 1, {sums, cuda::AQuantize::separate});
        const cuda::DecodePlan in_kernel = cuda::plan_decode_gemm(problem, 1, {sums, cuda::AQuantize::in_kernel});
        ASSERT_FALSE(separate.a_quantized_in_kernel);
        ASSERT_TRUE(in_kernel.a_quantized_in_kernel) << in_kernel.describe();
        expect_plans_give_the_same_bits(problem, separate, in_kernel,
                                        "the in-kernel quantization gave other bits than the quantizer kernel");
        if (testing::Test::HasFatalFailure()) return;
      }
  }
}

// The backend forced to quantize in the kernel against the CPU reference (every w4a4 combo, M =
// 1 .. 32 one by one, awkward and split-K shapes), and its back-to-back calls.
TEST(DecodeGemmInKernelQuantize, ThroughTheEnvironmentMatchesTheReference) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const test::ScopedEnv environment("FP4GEMM_DECODE_A_QUANTIZE", "kernel");
  ASSERT_EQ(cuda::decode_choices_from_environment().a_quantize, cuda::AQuantize::in_kernel);
  for (const test::Combo& c : test::all_combos()) {
    if (c.mode != Mode::w4a4) continue;
    const std::int64_t b = block_size(c.format);
    for (std::int64_t m = 1; m <= 32; ++m) check_random(decode(), problem_of(c, m, 131, 37 * b));
    for (const auto& s : {std::array<std::int64_t, 3>{1, 1, b}, {2, 65, b}, {1, 768, 384 * b}, {9, 130, 385 * b}})
      check_random(decode(), problem_of(c, s[0], s[1], s[2]));
  }
  for (std::int64_t m : {1, 16})
    expect_chain_gives_the_bits_of_one_call(
        problem_of({Mode::w4a4, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32}, m, 768, 6144));
}

// w4a4 operands without A's bf16 source (FP4 activations only, as `fp4gemm gemm --mode w4a4`
// reads them) at shapes whose plan would quantize A in the GEMM kernel (M = 1 with N <= 4096, and
// M = 2 with few N-tiles, also over a cluster of K-slices): the plan reads A's block values
// instead and the launch takes the kernel that plan prepared (before, it took the other kernel,
// whose shared-memory limit and cluster attribute were never set). Both formats and layouts.
TEST(DecodeGemmInKernelQuantize, OperandsWithoutABf16SourceTakeTheSeparatePlan) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  for (const test::Combo& c : test::all_combos()) {
    if (c.mode != Mode::w4a4) continue;
    for (const auto& s : {std::array<std::int64_t, 3>{1, 768, 6144}, {1, 64, 7680}, {2, 64, 1024}})
      check_random_fp4_activations_only(decode(), problem_of(c, s[0], s[1], s[2]));
  }
}

// The wide (8-warp) 32-token instance that quantizes A itself, forced: every w4a4 combo at M = 24
// and 32 against the reference.
TEST(DecodeGemmInKernelQuantize, WideThirtyTwoTokenInstanceMatchesTheReference) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const test::ScopedEnv quantize("FP4GEMM_DECODE_A_QUANTIZE", "kernel");
  const test::ScopedEnv width("FP4GEMM_DECODE_CTA", "wide");
  for (const test::Combo& c : test::all_combos()) {
    if (c.mode != Mode::w4a4) continue;
    for (std::int64_t m : {24, 32}) {
      const GemmProblem problem = problem_of(c, m, 1, 37 * block_size(c.format));
      const cuda::DecodePlan plan = cuda::plan_decode_gemm(problem, 1, cuda::decode_choices_from_environment());
      ASSERT_TRUE(plan.a_quantized_in_kernel && plan.warps == 8 && plan.max_tokens == 32) << plan.describe();
      check_random(decode(), problem);
    }
  }
}

// Non-finite activations reach the caller through output() on both quantization paths, named
// by the same first position (row-major), and a bad tensor scale is refused: by the quantizer
// kernel at run(), and already at prepare when the kernel is to quantize A itself.
TEST(DecodeGemmInKernelQuantize, NonFiniteActivationsAndBadScale2AreNamedOnBothPaths) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  using Run = cuda::KernelGemmRun<cuda::DecodePlan, cuda::launch_decode_gemm>;
  for (std::int64_t m : {3, 1}) {  // M = 1: the block-column instance, whose A is shifted
    const GemmProblem problem =
        problem_of({Mode::w4a4, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32}, m, 768, 1024);
    const std::uint64_t seed = test::fresh_seed();
    SCOPED_TRACE(fmt::format("{} seed {}", problem.describe(), seed));
    GemmOperands bad_input = random_operands(problem, seed);
    const auto at = [&](std::int64_t row, std::int64_t col) -> std::uint16_t& {
      return bad_input.a_bf16.half[std::size_t(row * problem.shape.k + col)];
    };
    const std::int64_t nan_row = m > 1 ? 1 : 0;
    at(m - 1, 900) = 0x7F80;  // +inf, after the NaN in row-major order
    at(nan_row, 37) = 0x7FC0;  // NaN
    GemmOperands bad_scale = random_operands(problem, seed);
    bad_scale.a_fp4.scale_2 = -1.0f;
    for (cuda::AQuantize quantize : {cuda::AQuantize::separate, cuda::AQuantize::in_kernel}) {
      const cuda::DecodePlan plan =
          cuda::plan_decode_gemm(problem, 1, {cuda::SplitSums::by_slice_count, quantize});
      SCOPED_TRACE(plan.describe());
      ASSERT_EQ(plan.a_quantized_in_kernel, quantize == cuda::AQuantize::in_kernel);
      Run run(bad_input, plan);
      run.run();
      test::expect_error<InvalidArgument>([&] { run.output(); },
                                          fmt::format("input has NaN at row {}, column 37", nan_row));
      test::expect_error<InvalidArgument>(
          [&] {
            Run scaled(bad_scale, plan);
            scaled.run();
          },
          "scale_2 = -1 must be positive and finite");
    }
  }
}

// Wide CTAs (8 warps, 128 rows; decode_gemm.hpp CtaWidth) forced through the backend's
// environment switch against the CPU reference: every combo at M = 9 .. 32 one by one (the 16- and
// 32-token instances, the only ones with a wide form), N not a multiple of 128 (1, 130, 131, 257),
// K of one block, K = block * odd and split-K; bit-exact on representable operands; each plan
// checked to be wide (and M <= 8 to stay narrow); back-to-back calls.
TEST(DecodeGemmWideCtas, ThroughTheEnvironmentMatchTheReference) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const test::ScopedEnv environment("FP4GEMM_DECODE_CTA", "wide");
  ASSERT_EQ(cuda::decode_choices_from_environment().cta_width, cuda::CtaWidth::wide);
  const auto expect_warps = [](const GemmProblem& problem, int warps) {
    const cuda::DecodePlan plan = cuda::plan_decode_gemm(problem, 1, cuda::decode_choices_from_environment());
    EXPECT_EQ(plan.warps, warps) << problem.describe() << ": " << plan.describe();
  };
  for (const test::Combo& c : test::all_combos()) {
    const std::int64_t b = block_size(c.format);
    expect_warps(problem_of(c, 8, 131, 37 * b), 4);
    for (std::int64_t m = 9; m <= 32; ++m) {
      expect_warps(problem_of(c, m, 131, 37 * b), 8);
      check_random(decode(), problem_of(c, m, 131, 37 * b));
    }
    for (const auto& s : {std::array<std::int64_t, 3>{16, 1, b}, {9, 130, 385 * b}, {32, 257, 200 * b}, {17, 200, 384 * b}})
      check_random(decode(), problem_of(c, s[0], s[1], s[2]));
    const std::uint64_t seed = test::fresh_seed();
    SCOPED_TRACE(fmt::format("bit-exact seed {}", seed));
    std::mt19937_64 rng(seed);
    for (const auto& s : {std::array<std::int64_t, 3>{17, 64, 3 * b}, {32, 129, 1024}})
      test::check_bit_exact(decode(), problem_of(c, s[0], s[1], s[2]), rng);
  }
  for (Mode mode : {Mode::w4a16, Mode::w4a4})
    expect_chain_gives_the_bits_of_one_call(
        problem_of({mode, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32}, 16, 768, 6144));
}

// A forced K-slice count: the plan takes it where K's groups and the A slice's shared memory allow
// (16 x 16384 x 6144 in 6 slices of 8 groups), adds slices where not (1 slice of 48 groups would
// need 196 KB of A: slices under 48 KB hold at most 11 groups, so 5 slices, evened to 10 groups),
// caps it by the groups (K = 256 has 2); the results match the reference with the switch set.
TEST(DecodeGemmPlan, ForcedKSlicesAreTakenWhereTheyFit) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const auto plan = [](std::int64_t m, std::int64_t k, int k_slices) {
    cuda::DecodeChoices choices;
    choices.k_slices = k_slices;
    return cuda::plan_decode_gemm({{m, 16384, k}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16},
                                  1, choices);
  };
  EXPECT_EQ(plan(16, 6144, 6).splits, 6);
  EXPECT_EQ(plan(16, 6144, 6).groups_per_split, 8);
  EXPECT_EQ(plan(1, 6144, 1).splits, 1);
  EXPECT_EQ(plan(16, 6144, 1).groups_per_split, 10);  // 16 x (10 x 128 + 32) x 2 B = 41 KB of A
  EXPECT_EQ(plan(16, 6144, 1).splits, 5);
  EXPECT_EQ(plan(16, 256, 5).splits, 2);
  const test::ScopedEnv environment("FP4GEMM_DECODE_K_SLICES", "3");
  ASSERT_EQ(cuda::decode_choices_from_environment().k_slices, 3);
  for (const test::Combo& c : test::all_combos())
    for (std::int64_t m : {1, 3, 16, 32}) check_random(decode(), problem_of(c, m, 200, 37 * block_size(c.format)));
}

// K-slices longer than one pass of the CTA's threads over the staged A slice (one or two slices
// forced through FP4GEMM_DECODE_K_SLICES, each as long as the 48 KB A tile allows): the staging
// walks several chunk steps and batches per thread, with a last step partly past the slice's
// chunks (K not a multiple of 128) and a shorter last slice. M = 1 (block columns: 95 groups in
// one slice or 48 + 47 in two, 10 groups), narrow CTAs at M = 3, 8, 9, 16, 17, wide ones at M = 9
// and 11 (9 .. 23 groups); every combo against the reference, each plan checked to have the
// slices the case is about.
TEST(DecodeGemmLongSlices, StagingOverManyGroupsMatchesTheReference) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  struct Case {
    std::int64_t m, k_nvfp4, k_mxfp4;  // K = an odd number of blocks (NVFP4 16, MXFP4 32)
    const char* slices;                // FP4GEMM_DECODE_K_SLICES
    const char* width;                 // FP4GEMM_DECODE_CTA
    int splits, groups_per_split;
  };
  const Case cases[] = {
      {1, 12144, 12128, "1", "auto", 1, 95}, {1, 12144, 12128, "2", "auto", 2, 48},
      {1, 1184, 1184, "1", "auto", 1, 10},   {3, 2928, 2912, "1", "auto", 1, 23},
      {8, 2928, 2912, "1", "auto", 1, 23},   {9, 2672, 2656, "1", "narrow", 1, 21},
      {16, 1392, 1376, "1", "auto", 1, 11},  {17, 1392, 1376, "1", "narrow", 1, 11},
      {9, 2672, 2656, "1", "wide", 1, 21},   {11, 2160, 2144, "1", "wide", 1, 17},
  };
  for (const Case& x : cases) {
    const test::ScopedEnv slices("FP4GEMM_DECODE_K_SLICES", x.slices);
    const test::ScopedEnv width("FP4GEMM_DECODE_CTA", x.width);
    for (const test::Combo& c : test::all_combos()) {
      const GemmProblem problem = problem_of(c, x.m, 65, c.format == Fp4Format::nvfp4 ? x.k_nvfp4 : x.k_mxfp4);
      const cuda::DecodePlan plan = cuda::plan_decode_gemm(problem, 1, cuda::decode_choices_from_environment());
      ASSERT_EQ(plan.splits, x.splits) << problem.describe() << ": " << plan.describe();
      ASSERT_EQ(plan.groups_per_split, x.groups_per_split) << problem.describe() << ": " << plan.describe();
      check_random(decode(), problem);
    }
  }
}

// The default width on this GPU: wide at M > 8 where the launch has at least kWideCtaMinTiles = 96
// N-tiles of 64 rows (N = 6144 and 16384; 4096 in a launch of two GEMMs), narrow with 64 (N =
// 4096) and at M <= 8; a wide plan has half the N-tiles, each of 256 threads.
TEST(DecodeGemmPlan, WideCtasAboveEightTokensWithManyTiles) {
  if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  const auto plan = [](std::int64_t m, std::int64_t n, std::int64_t gemms) {
    return cuda::plan_decode_gemm({{m, n, 6144}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16},
                                  gemms, {});
  };
  for (std::int64_t m : {9, 16, 32}) {
    EXPECT_EQ(plan(m, 6144, 1).warps, 8);
    EXPECT_EQ(plan(m, 6144, 1).tiles_n, 48);
    EXPECT_EQ(plan(m, 16384, 1).warps, 8);
    EXPECT_EQ(plan(m, 4096, 1).warps, 4);
    EXPECT_EQ(plan(m, 4096, 1).tiles_n, 64);
    EXPECT_EQ(plan(m, 4096, 2).warps, 8);
  }
  for (std::int64_t m : {1, 8}) EXPECT_EQ(plan(m, 16384, 1).warps, 4);
  EXPECT_NE(plan(16, 16384, 1).describe().find("CTAs of 256 threads"), std::string::npos)
      << plan(16, 16384, 1).describe();
}

// ------------------------------------------------------------------ admission (no GPU needed)
// The same admission rule as cuda-mma's for w4a4 (the activations quantized on the GPU: K below
// 2^31), checked before the decode kernels' own limits.
TEST(DecodeGemmRules, W4a4NeedsKBelow2To31) {
  const GemmProblem big_k{{1, 768, std::int64_t(1) << 31}, Mode::w4a4, Fp4Format::nvfp4, ScaleLayout::linear,
                          DType::f32};
  const Verdict refused = decode().can_implement(big_k);
  EXPECT_FALSE(refused);
  EXPECT_NE(refused.reason.find("w4a4 quantizes the activations on the GPU in every call, which takes M "
                                "and K below 2^31"),
            std::string::npos)
      << refused.reason;
}

TEST(DecodeGemmRules, SplitSumsSwitchTakesAutoGlobalOrClusterAndNamesTheVariable) {
  EXPECT_EQ(cuda::parse_split_sums(""), cuda::SplitSums::by_slice_count);
  EXPECT_EQ(cuda::parse_split_sums("auto"), cuda::SplitSums::by_slice_count);
  EXPECT_EQ(cuda::parse_split_sums("global"), cuda::SplitSums::global);
  EXPECT_EQ(cuda::parse_split_sums("cluster"), cuda::SplitSums::cluster_where_able);
  test::expect_error<InvalidArgument>([] { cuda::parse_split_sums("clusters"); },
                                      "FP4GEMM_DECODE_SPLIT_SUMS = 'clusters' is not one of: auto, global, cluster");
}

// The measured rule (decode_gemm.hpp): the cluster sums where the global plan would sum more than
// kMaxClusterSplits = 16 K-slices (N = 768 x K = 6144 on 132 SMs: 24), not with 16 (N = 2048) nor
// 3-8 (N = 16384 .. 4096); never for an unsplit plan; the two forced choices whatever the count.
TEST(DecodeGemmRules, ClusterSumsAreWantedAboveSixteenKSlices) {
  using cuda::SplitSums;
  EXPECT_FALSE(cuda::cluster_sums_wanted(SplitSums::by_slice_count, 1));
  EXPECT_FALSE(cuda::cluster_sums_wanted(SplitSums::by_slice_count, 8));
  EXPECT_FALSE(cuda::cluster_sums_wanted(SplitSums::by_slice_count, 16));
  EXPECT_TRUE(cuda::cluster_sums_wanted(SplitSums::by_slice_count, 17));
  EXPECT_TRUE(cuda::cluster_sums_wanted(SplitSums::by_slice_count, 48));
  for (int splits : {2, 8, 16, 48}) {
    EXPECT_FALSE(cuda::cluster_sums_wanted(SplitSums::global, splits));
    EXPECT_TRUE(cuda::cluster_sums_wanted(SplitSums::cluster_where_able, splits));
  }
  EXPECT_FALSE(cuda::cluster_sums_wanted(SplitSums::cluster_where_able, 1));
}

// The wave rule (decode_gemm.hpp: k_slices_by_waves) on an H200-like GPU, 132 SMs of 228 KB: a
// CTA of A rows x (128 g + 32) bf16 plus the NVFP4 ring (warps x 4 stages x 1152 B) and 1 KB
// reserved, at most 3 wide (6 narrow) CTAs per SM (the registers of 256 / 128 threads). Its picks
// for K = 6144 (48 groups) are the measured best (bench/results/decode_batched_staging,
// decode_slices_by_waves): 16 x 16384 (128 wide tiles) 6 slices, 16 x 6144 (48) 8; 32 x 16384 and
// 32 x 6144 12 (slices of 5 groups fit 2 CTAs per SM, of 4 groups 3; 3 groups are below the
// minimum); 16 x 4096 (64 narrow tiles) 8 (12 slices of 4 groups fill the waves better but are
// below the minimum). A minimum of 1 lets short slices fill the GPU (16 x 768, 12 narrow tiles: all
// 48). A GPU on which nothing fits gets the fewest slices; so does K of one group.
// K-slices as wanted where they fit; where the A slice's limit adds slices, all are evened out
// (48 groups, at most 47 per slice: 24 + 24, not 47 + 1); capped by the groups and max_splits;
// arguments below 1 refused by name.
TEST(DecodeGemmRules, KSlicesAreBalanced) {
  using cuda::balanced_k_slices;
  const auto expect = [](cuda::KSlicing got, int splits, int groups) {
    EXPECT_EQ(got.splits, splits);
    EXPECT_EQ(got.groups_per_split, groups);
  };
  expect(balanced_k_slices(48, 1, 48, 47), 2, 24);   // GLM-5 gate_up expert, 4 tokens
  expect(balanced_k_slices(48, 1, 48, 23), 3, 16);   // 8 tokens: not 23 + 23 + 2
  expect(balanced_k_slices(48, 1, 48, 95), 1, 48);   // fits whole
  expect(balanced_k_slices(48, 6, 48, 11), 6, 8);    // as wanted
  expect(balanced_k_slices(48, 5, 48, 11), 5, 10);   // 10 + 10 + 10 + 10 + 8
  expect(balanced_k_slices(48, 7, 48, 11), 7, 7);    // 6 x 7 + 6
  expect(balanced_k_slices(2, 5, 2, 11), 2, 1);      // capped by the groups
  expect(balanced_k_slices(48, 24, 16, 11), 16, 3);  // capped by max_splits (a cluster)
  expect(balanced_k_slices(48, 1, 16, 2), 24, 2);    // the A slice's limit beats max_splits
  test::expect_error<InvalidArgument>([] { balanced_k_slices(0, 1, 1, 1); },
                                      "balanced_k_slices: k_groups = 0, max_splits = 1, max_groups = 1 must be >= 1");
  for (std::int64_t k = 1; k <= 200; ++k)
    for (std::int64_t wanted = 1; wanted <= 40; ++wanted)
      for (int max_groups : {1, 3, 11, 47, 95}) {
        const cuda::KSlicing s = balanced_k_slices(k, wanted, 64, max_groups);
        ASSERT_LE(s.groups_per_split, max_groups);
        ASSERT_EQ(s.splits, (k + s.groups_per_split - 1) / s.groups_per_split);
        ASSERT_GT(k - std::int64_t(s.splits - 1) * s.groups_per_split, 0) << "an empty slice";
        ASSERT_LT(std::int64_t(s.splits) * s.groups_per_split - k, s.splits) << "not the shortest equal slices";
        const std::int64_t fewest = (k + max_groups - 1) / max_groups, wanted_fit = std::min(wanted, k);
        if (fewest <= wanted_fit)  // the wanted count, or fewer where equal slices cannot make it
          ASSERT_EQ(s.splits, (k + (k + wanted_fit - 1) / wanted_fit - 1) / ((k + wanted_fit - 1) / wanted_fit));
        else  // more, as few as the limit allows
          ASSERT_EQ(s.splits, fewest);
      }
}

TEST(DecodeGemmRules, KSlicesByWavesFillTheLastWave) {
  const auto h200 = [](int a_rows, int warps) {
    return [a_rows, warps](int groups) {
      const int cta_bytes = a_rows * (128 * groups + 32) * 2 + warps * 4 * 1152 + 1024;
      return std::min(233472 / cta_bytes, 24 / warps);
    };
  };
  using cuda::k_slices_by_waves;
  EXPECT_EQ(k_slices_by_waves(48, 11, 6, 128, 132, 8, h200(16, 8)), 6);
  EXPECT_EQ(k_slices_by_waves(48, 11, 5, 48, 132, 8, h200(16, 8)), 8);
  EXPECT_EQ(k_slices_by_waves(48, 5, 4, 128, 132, 8, h200(32, 8)), 12);
  EXPECT_EQ(k_slices_by_waves(48, 5, 4, 48, 132, 8, h200(32, 8)), 12);
  EXPECT_EQ(k_slices_by_waves(48, 5, 1, 48, 132, 8, h200(32, 8)), 16);
  EXPECT_EQ(k_slices_by_waves(48, 11, 6, 64, 132, 4, h200(16, 4)), 8);
  EXPECT_EQ(k_slices_by_waves(48, 11, 1, 64, 132, 4, h200(16, 4)), 12);
  EXPECT_EQ(k_slices_by_waves(48, 11, 1, 12, 132, 4, h200(16, 4)), 48);
  EXPECT_EQ(k_slices_by_waves(48, 11, 6, 128, 132, 8, [](int) { return 0; }), 5);
  EXPECT_EQ(k_slices_by_waves(1, 11, 1, 128, 132, 8, h200(16, 8)), 1);
  test::expect_error<InvalidArgument>([] { k_slices_by_waves(48, 11, 0, 128, 132, 8, [](int) { return 1; }); },
                                      "min_groups = 0, gemm_tiles = 128, sms = 132, warps = 8 must be >= 1");
}

TEST(DecodeGemmRules, AQuantizeSwitchTakesAutoSeparateOrKernelAndNamesTheVariable) {
  EXPECT_EQ(cuda::parse_a_quantize(""), cuda::AQuantize::by_tile_count);
  EXPECT_EQ(cuda::parse_a_quantize("auto"), cuda::AQuantize::by_tile_count);
  EXPECT_EQ(cuda::parse_a_quantize("separate"), cuda::AQuantize::separate);
  EXPECT_EQ(cuda::parse_a_quantize("kernel"), cuda::AQuantize::in_kernel);
  test::expect_error<InvalidArgument>([] { cuda::parse_a_quantize("fused"); },
                                      "FP4GEMM_DECODE_A_QUANTIZE = 'fused' is not one of: auto, separate, kernel");
}

// The measured rule (decode_gemm.hpp): in the kernel at M = 1 with at most
// kInKernelQuantizeMaxTiles = 64 N-tiles (N <= 4096), at M >= 2 where M x N-tiles is at most
// kInKernelQuantizeMaxRowTiles = 24 (2 x 768, 4 x 384); the forced choices whatever the shape.
TEST(DecodeGemmRules, ActivationsAreQuantizedInTheKernelAtSmallMWithFewTiles) {
  using cuda::AQuantize;
  const std::int64_t limit = cuda::kInKernelQuantizeMaxTiles, row_limit = cuda::kInKernelQuantizeMaxRowTiles;
  EXPECT_TRUE(cuda::a_quantized_in_kernel_wanted(AQuantize::by_tile_count, 12, 1));
  EXPECT_TRUE(cuda::a_quantized_in_kernel_wanted(AQuantize::by_tile_count, limit, 1));
  EXPECT_FALSE(cuda::a_quantized_in_kernel_wanted(AQuantize::by_tile_count, limit + 1, 1));
  EXPECT_TRUE(cuda::a_quantized_in_kernel_wanted(AQuantize::by_tile_count, 4, 2));
  EXPECT_TRUE(cuda::a_quantized_in_kernel_wanted(AQuantize::by_tile_count, row_limit / 2, 2));
  EXPECT_FALSE(cuda::a_quantized_in_kernel_wanted(AQuantize::by_tile_count, row_limit / 2 + 1, 2));
  EXPECT_TRUE(cuda::a_quantized_in_kernel_wanted(AQuantize::by_tile_count, 4, 4));
  EXPECT_FALSE(cuda::a_quantized_in_kernel_wanted(AQuantize::by_tile_count, 12, 4));
  EXPECT_FALSE(cuda::a_quantized_in_kernel_wanted(AQuantize::by_tile_count, 4, 8));
  EXPECT_FALSE(cuda::a_quantized_in_kernel_wanted(AQuantize::by_tile_count, 1, 32));
  for (std::int64_t tiles : {1, 1000}) {
    EXPECT_FALSE(cuda::a_quantized_in_kernel_wanted(AQuantize::separate, tiles, 1));
    EXPECT_TRUE(cuda::a_quantized_in_kernel_wanted(AQuantize::in_kernel, tiles, 32));
  }
}

TEST(DecodeGemmRules, CtaSwitchTakesAutoNarrowOrWideAndNamesTheVariable) {
  EXPECT_EQ(cuda::parse_cta_width(""), cuda::CtaWidth::by_tile_count);
  EXPECT_EQ(cuda::parse_cta_width("auto"), cuda::CtaWidth::by_tile_count);
  EXPECT_EQ(cuda::parse_cta_width("narrow"), cuda::CtaWidth::narrow);
  EXPECT_EQ(cuda::parse_cta_width("wide"), cuda::CtaWidth::wide);
  test::expect_error<InvalidArgument>([] { cuda::parse_cta_width("8"); },
                                      "FP4GEMM_DECODE_CTA = '8' is not one of: auto, narrow, wide");
}

TEST(DecodeGemmRules, KSlicesSwitchTakesAutoOrACountAndNamesTheVariable) {
  EXPECT_EQ(cuda::parse_k_slices(""), 0);
  EXPECT_EQ(cuda::parse_k_slices("auto"), 0);
  EXPECT_EQ(cuda::parse_k_slices("1"), 1);
  EXPECT_EQ(cuda::parse_k_slices("65535"), 65535);
  for (const char* bad : {"0", "-3", "65536", "6x", " 6", "six"})
    test::expect_error<InvalidArgument>([&] { cuda::parse_k_slices(bad); },
                                        fmt::format("FP4GEMM_DECODE_K_SLICES = '{}' is not 'auto' or a count of "
                                                    "K-slices 1..65535", bad));
}

// The measured rule (decode_gemm.hpp): wide CTAs at M > 8 with at least kWideCtaMinTiles = 96
// N-tiles of 64 rows, never at M <= 8 (no wide instance), the forced choices otherwise.
TEST(DecodeGemmRules, WideCtasAreWantedAboveEightTokensWithManyTiles) {
  using cuda::CtaWidth;
  const std::int64_t limit = cuda::kWideCtaMinTiles;
  EXPECT_TRUE(cuda::wide_ctas_wanted(CtaWidth::by_tile_count, 9, limit));
  EXPECT_TRUE(cuda::wide_ctas_wanted(CtaWidth::by_tile_count, 32, 256));
  EXPECT_FALSE(cuda::wide_ctas_wanted(CtaWidth::by_tile_count, 16, limit - 1));
  EXPECT_FALSE(cuda::wide_ctas_wanted(CtaWidth::by_tile_count, 8, 256));
  for (std::int64_t tiles : {1, 1000}) {
    EXPECT_FALSE(cuda::wide_ctas_wanted(CtaWidth::narrow, 32, tiles));
    EXPECT_TRUE(cuda::wide_ctas_wanted(CtaWidth::wide, 9, tiles));
    EXPECT_FALSE(cuda::wide_ctas_wanted(CtaWidth::wide, 8, tiles));
  }
}

TEST(DecodeGemmRules, CanImplementTakesMUpTo32KUpTo2To26AndWhatTheFormatAllows) {
  auto problem = [](std::int64_t m, std::int64_t k, Fp4Format f) {
    return GemmProblem{{m, 768, k}, Mode::w4a16, f, ScaleLayout::linear, DType::f32};
  };
  EXPECT_TRUE(decode().can_implement(problem(1, 16, Fp4Format::nvfp4)));
  EXPECT_TRUE(decode().can_implement(problem(32, 32, Fp4Format::mxfp4)));
  const Verdict m33 = decode().can_implement(problem(33, 6144, Fp4Format::nvfp4));
  EXPECT_FALSE(m33);
  EXPECT_NE(m33.reason.find("M = 33 is above 32"), std::string::npos) << m33.reason;
  const Verdict k24 = decode().can_implement(problem(1, 24, Fp4Format::nvfp4));
  EXPECT_FALSE(k24);
  EXPECT_NE(k24.reason.find("K = 24 is not a multiple of 16"), std::string::npos) << k24.reason;
  static_assert(cuda::kDecodeMaxK == (std::int64_t(1) << 26) - 1);
  EXPECT_TRUE(decode().can_implement(problem(32, (std::int64_t(1) << 26) - 32, Fp4Format::mxfp4)));
  const Verdict k_huge = decode().can_implement(problem(1, std::int64_t(1) << 26, Fp4Format::nvfp4));
  EXPECT_FALSE(k_huge);
  EXPECT_NE(k_huge.reason.find("K = 67108864 is above 67108863"), std::string::npos) << k_huge.reason;
}

TEST(DecodeGemmRules, AvailabilitySaysWhyAndAccuracyIsExact) {
  const Verdict available = decode().availability();
  if (!cuda_device_present()) {
    EXPECT_FALSE(available);
    EXPECT_NE(available.reason.find("no CUDA device"), std::string::npos) << available.reason;
  }
  EXPECT_TRUE(decode().accuracy().exact);
  EXPECT_EQ(decode().accuracy().accumulation_unit, 0x1p-23);
}

// prepare()'s code tiles are images of a warp's ring stage: 16 rows x 128 k in 64 slots of 16
// bytes (1024 bytes, the stage's code part), row r's unit u (k = 32u .. 32u + 31) in the slot of
// lane (g, t) = (r % 8, u) of row pair r / 8, which the kernel reads at (r / 8) * 32 + 4g + t.
TEST(DecodeGemmRules, CodeTileOrderIsTheImageOfARingStage) {
  const TileOrder order = cuda::decode_code_tile_order();
  EXPECT_EQ(order.rows, 16);
  EXPECT_EQ(order.units, 4);
  EXPECT_EQ(order.slots * kCodeUnitBytes, 1024);
  for (int r = 0; r < 16; ++r)
    for (int u = 0; u < 4; ++u) {
      const int g = r % 8, t = u, lane = 4 * g + t;
      EXPECT_EQ(order.slot(r, u), (r / 8) * 32 + lane) << "row " << r << " unit " << u;
    }
}

}  // namespace
}  // namespace fp4gemm
