// The grouped (MoE) GEMM backends against the per-expert CPU reference: cuda-grouped (one launch
// for all experts) and cublas-bf16-loop, for every mode x format x scale layout x output dtype,
// with empty experts, one expert, skewed counts (0, 1, 17, 33: token blocks of 8..32 and a
// second round), counts on the chunk boundaries, N not a multiple of the 64-row tile and K with
// many K-slices (split-K per expert). Output poisoned before each run, checked within the
// backend's accuracy bound, not all zero, and the same bits on a second run. Also: int64
// offsets, a bound above the counts (extra rounds with nothing to do), an expert over the
// bound reported by name, 16 experts whose K-splits are planned together, wide CTAs of 8 warps,
// back-to-back calls (dependent launches), and w4a4's dequantization of A (its first kernel) alone.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "check/verify.hpp"
#include "cuda/decode_gemm.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/fp4_dequantize.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/grouped_backend.hpp"
#include "cuda/grouped_gemm.hpp"
#include "cuda/kernel_checks.hpp"
#include "expect_error.hpp"
#include "scoped_env.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/grouped.hpp"

namespace fp4gemm {
namespace {

using test::Combo;

GroupedProblem grouped_of(const Combo& c, std::vector<std::int64_t> tokens, std::int64_t n, std::int64_t k) {
  return {std::move(tokens), n, k, c.mode, c.format, c.layout, c.out};
}

std::vector<float> poison_run_read(GemmRun& run) {
  run.poison_output();
  run.run();
  run.synchronize();
  return run.output();
}

// Runs `run` twice on `ops` and checks D against the grouped reference.
void check_run(GemmRun& run, const GroupedOperands& ops, const Accuracy& accuracy) {
  const ReferenceResult reference = reference_grouped_gemm(ops);
  const std::vector<float> d = poison_run_read(run);
  const std::vector<float> again = poison_run_read(run);
  EXPECT_EQ(0, std::memcmp(d.data(), again.data(), d.size() * sizeof(float))) << "a second run gave other bits";
  if (d.empty()) return;  // every expert empty: nothing to compute
  const VerifyResult v = verify_output(d, reference, ops.problem.dense_problem(), accuracy);
  EXPECT_TRUE(v.passed) << v.failure << " (" << v.violations << " over the bound, " << v.unwritten
                        << " unwritten, " << v.non_finite << " non-finite, worst ratio " << v.worst_ratio << ")";
  bool any_nonzero = false;
  for (float x : d) any_nonzero |= x != 0.0f;
  EXPECT_TRUE(any_nonzero) << "output is all zeros";
}

void check_backend(const GroupedBackend& backend, const GroupedProblem& problem) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(fmt::format("{} {} seed {}", backend.name(), problem.describe(), seed));
  const Verdict v = backend.can_implement(problem);
  if (!v) {  // cublas-bf16-loop refuses f16 output of all but NVFP4 w4a4, as cublas-bf16 does
    EXPECT_EQ(backend.name(), "cublas-bf16-loop") << v.reason;
    return;
  }
  const GroupedOperands ops = random_grouped_operands(problem, seed);
  check_run(*backend.prepare(ops), ops, backend.accuracy());
}

class GroupedGemm : public testing::TestWithParam<Combo> {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
    for (const auto& b : all_grouped_backends()) ASSERT_TRUE(b->availability()) << b->availability().reason;
  }
};

TEST_P(GroupedGemm, EmptyOneAndSkewedExperts) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  const std::vector<std::vector<std::int64_t>> counts = {
      {0, 1, 17, 33}, {5}, {0, 0, 3, 0}, {8, 16, 32, 2, 0, 9}, {0, 0}};
  for (const auto& backend : all_grouped_backends())
    for (const auto& tokens : counts) check_backend(*backend, grouped_of(c, tokens, 131, 37 * b));
}

TEST_P(GroupedGemm, SplitKPerExpert) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  for (const auto& backend : all_grouped_backends())
    check_backend(*backend, grouped_of(c, {4, 0, 16, 1}, 200, 384 * b));
}

// Wide CTAs (8 warps; decode_gemm.hpp CtaWidth) forced through FP4GEMM_DECODE_CTA: the 16-token
// instance (experts of 0, 3, 9 and 16 tokens) and the 32-token one over two rounds (33), N not a
// multiple of the 128-row tile, K = block * odd and split-K; each plan checked to be wide.
TEST_P(GroupedGemm, WideCtasThroughTheEnvironment) {
  const test::ScopedEnv environment("FP4GEMM_DECODE_CTA", "wide");
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  const GemmProblem expert{{16, 131, 37 * b}, c.mode, c.format, c.layout, c.out};
  EXPECT_EQ(cuda::plan_grouped_gemm(expert, 4, 16, {.cta_width = cuda::CtaWidth::wide}).decode.warps, 8);
  const GroupedBackend& grouped = find_grouped_backend("cuda-grouped");
  check_backend(grouped, grouped_of(c, {0, 3, 9, 16}, 131, 37 * b));
  check_backend(grouped, grouped_of(c, {33, 0, 17}, 257, 37 * b));
  check_backend(grouped, grouped_of(c, {4, 0, 16, 11}, 200, 384 * b));
}

// The block-column instance (a bound of 1 token per expert), and K-slices longer than one pass of
// the CTA's threads over the staged A slice (one slice forced through FP4GEMM_DECODE_K_SLICES): 95
// groups at one token per expert, 23 at up to 8.
TEST_P(GroupedGemm, BlockColumnsAndLongKSlices) {
  const Combo c = GetParam();
  const std::int64_t b = block_size(c.format);
  const GroupedBackend& grouped = find_grouped_backend("cuda-grouped");
  const GemmProblem one_token{{1, 131, 37 * b}, c.mode, c.format, c.layout, c.out};
  EXPECT_EQ(cuda::plan_grouped_gemm(one_token, 4, 1).decode.max_tokens, 1);
  check_backend(grouped, grouped_of(c, {1, 0, 1, 1}, 131, 37 * b));
  const test::ScopedEnv environment("FP4GEMM_DECODE_K_SLICES", "1");
  const std::int64_t long_k = c.format == Fp4Format::nvfp4 ? 12144 : 12128, mid_k = c.format == Fp4Format::nvfp4 ? 2928 : 2912;
  const GemmProblem one_long{{1, 131, long_k}, c.mode, c.format, c.layout, c.out};
  EXPECT_EQ(cuda::plan_grouped_gemm(one_long, 4, 1, cuda::decode_choices_from_environment()).decode.groups_per_split, 95);
  check_backend(grouped, grouped_of(c, {1, 0, 1, 1}, 131, long_k));
  const GemmProblem eight{{8, 131, mid_k}, c.mode, c.format, c.layout, c.out};
  EXPECT_EQ(cuda::plan_grouped_gemm(eight, 4, 8, cuda::decode_choices_from_environment()).decode.groups_per_split, 23);
  check_backend(grouped, grouped_of(c, {8, 0, 3, 5}, 131, mid_k));
}

INSTANTIATE_TEST_SUITE_P(AllCombos, GroupedGemm, testing::ValuesIn(test::all_combos()), test::combo_name);

class GroupedKernelOptions : public testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
  const Combo combo{Mode::w4a4, Fp4Format::nvfp4, ScaleLayout::swizzled, DType::bf16};
};

TEST_F(GroupedKernelOptions, Int64OffsetsAndALooseBound) {
  const GroupedOperands ops = random_grouped_operands(grouped_of(combo, {0, 3, 40, 1}, 96, 512), 21);
  const Accuracy accuracy = find_grouped_backend("cuda-grouped").accuracy();
  check_run(*cuda::prepare_grouped_kernel(ops, {true, std::nullopt}), ops, accuracy);
  check_run(*cuda::prepare_grouped_kernel(ops, {false, 100}), ops, accuracy);  // 4 rounds, 2 idle
}

TEST_F(GroupedKernelOptions, AnExpertOverTheBoundIsReported) {
  const GroupedOperands ops = random_grouped_operands(grouped_of(combo, {0, 17, 2}, 64, 256), 5);
  const auto run = cuda::prepare_grouped_kernel(ops, {false, 8});
  run->run();
  run->synchronize();
  test::expect_error<Error>([&] { run->output(); },
                            "expert 1 received more than max_tokens_per_expert = 8 tokens");
}

// A bound below the instance's chunk (5 plans the 8-token instance for 5 rows, 12 the 16-token one
// for 12, 0 the 1-token one for none) or between two rounds' chunks (40: two rounds of 32): an
// expert past it is reported by name, and no round stages more rows than the bound (the A tile
// holds the bound's rows; staging the chunk's overran the CTA's shared memory, with a bound of 0
// an expert of one token was computed from w4a4's never-written activation scratch, and an expert
// of 50 under a bound of 40 was computed whole, neither reported).
TEST_F(GroupedKernelOptions, AnExpertOverABoundBelowTheChunkIsReported) {
  for (const auto& [bound, tokens] :
       {std::pair<int, std::vector<std::int64_t>>{5, {7}}, {12, {14, 3}}, {0, {1, 0}}, {40, {50, 3}}}) {
    const GroupedOperands ops = random_grouped_operands(grouped_of(combo, tokens, 64, 256), 5);
    const auto run = cuda::prepare_grouped_kernel(ops, {false, bound});
    run->run();
    run->synchronize();
    test::expect_error<Error>(
        [&] { run->output(); },
        fmt::format("expert 0 received more than max_tokens_per_expert = {} tokens", bound));
  }
}

// A caller of the launcher that gives w4a4 no scratch for the dequantized A is refused by name,
// before anything is enqueued.
TEST_F(GroupedKernelOptions, W4a4WithoutDequantizationScratchIsRefused) {
  const GemmProblem expert{{8, 64, 256}, combo.mode, combo.format, combo.layout, combo.out};
  const cuda::GroupedPlan plan = cuda::plan_grouped_gemm(expert, 2, 8);
  test::expect_error<InvalidArgument>([&] { cuda::launch_grouped_gemm(plan, cuda::GroupedPointers{}, nullptr); },
                                      "w4a4 needs GroupedPointers::a_dequantized");
}

// Many experts: the launch's K-splits are planned for half of them together, fewer than one
// expert planned alone gets; each expert still sums its own splits.
TEST_F(GroupedKernelOptions, ManyExpertsShareTheKSplitsOfTheLaunch) {
  const GroupedProblem problem =
      grouped_of(combo, {1, 0, 3, 16, 2, 0, 5, 1, 8, 0, 1, 4, 2, 7, 0, 3}, 200, 6144);
  const GemmProblem expert{{16, 200, 6144}, combo.mode, combo.format, combo.layout, combo.out};
  EXPECT_LT(cuda::plan_grouped_gemm(expert, 16, 16).decode.splits, cuda::plan_decode_gemm(expert, 1, {cuda::SplitSums::global}).splits);
  check_backend(find_grouped_backend("cuda-grouped"), problem);
}

// The plan asks the grouped kernel's own occupancy, and the kernel's launch bound (grouped_gemm.cuh:
// min_ctas_per_sm) keeps 3 wide CTAs per SM within its registers: on sm_90 (228 KB of shared memory
// per SM) GLM-5's gate_up experts under EP8 at 16 tokens (32 x 4096 x 6144: wide CTAs, slices of 8
// groups, ~71 KB each) are 3 CTAs per SM in both modes, as shared memory allows. (Unbounded, the
// w4a4 instance took 103 registers, 2 CTAs per SM, while it staged its FP4 A itself.)
TEST_F(GroupedKernelOptions, ThreeWideCtasPerSmAtSixteenTokens) {
  if (cuda::current_device_sm() != 90) GTEST_SKIP() << "the count is of sm_90's shared memory and registers";
  for (Mode mode : {Mode::w4a16, Mode::w4a4}) {
    const GemmProblem expert{{16, 4096, 6144}, mode, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
    const cuda::GroupedPlan plan = cuda::plan_grouped_gemm(expert, 32, 16);
    EXPECT_EQ(plan.decode.warps, 8) << plan.describe();
    EXPECT_EQ(plan.decode.ctas_per_sm, 3) << plan.describe();
  }
}

// GLM-5's gate_up experts under EP8 at 4 and 8 tokens: the A slice's 48 KB cut K's 48 groups
// into 2 and 3 slices, and the slices are equal (24 and 16 groups; before: 47 + 1 and 23 + 23 + 2,
// whose 47-group slices left 3 CTAs per SM). A forced count (FP4GEMM_DECODE_K_SLICES) is taken by
// the grouped plan too, and its results match the reference (K = 37 blocks in 3 slices).
TEST_F(GroupedKernelOptions, KSlicesAreEvenAndTheSwitchIsTaken) {
  for (auto [tokens, splits, groups] : {std::tuple{4, 2, 24}, std::tuple{8, 3, 16}}) {
    const GemmProblem expert{{tokens, 4096, 6144}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
    const cuda::GroupedPlan plan = cuda::plan_grouped_gemm(expert, 32, tokens);
    EXPECT_EQ(plan.decode.splits, splits) << plan.describe();
    EXPECT_EQ(plan.decode.groups_per_split, groups) << plan.describe();
  }
  const test::ScopedEnv environment("FP4GEMM_DECODE_K_SLICES", "3");
  const std::int64_t b = block_size(combo.format);
  const GemmProblem expert{{8, 200, 37 * b}, combo.mode, combo.format, combo.layout, combo.out};
  EXPECT_EQ(cuda::plan_grouped_gemm(expert, 4, 8, cuda::decode_choices_from_environment()).decode.splits, 3);
  check_backend(find_grouped_backend("cuda-grouped"), grouped_of(combo, {8, 0, 3, 5}, 200, 37 * b));
}

// The w4a4 path's first kernel alone (fp4_dequantize.hpp): the experts' FP4 activations, each
// expert's scales a block of its own (swizzled: on a 128-row boundary), dequantized into T_total x
// K bf16 are, bit for bit, every expert's block values (exact: E2M1 x block scale fits bf16). Both
// formats and layouts, int32 and int64 offsets, counts 0, 1, 130 (past one 128-row scale block)
// and 17, a bound of 8 (rows past it are written too), K of 3 blocks (a partial chunk block), the
// output poisoned; and the cases listed below.
TEST_F(GroupedKernelOptions, DequantizedActivationsAreTheBlockValues) {
  struct Case {
    std::vector<std::int64_t> tokens;
    std::int64_t k;  // 0: 3 blocks of the format
    std::int64_t bound;
  };
  // Also: K = 6144 (more than one block of chunks per row) after an expert of exactly 128 rows
  // (the next expert's swizzled scales start on the boundary), a bound above 32 with an expert
  // past it, and 300 experts (more than one pass over the experts before each).
  const std::vector<Case> cases = {{{0, 1, 130, 17}, 0, 8},
                                   {{128, 5}, 6144, 8},
                                   {{130}, 96, 100},
                                   {std::vector<std::int64_t>(300, 1), 32, 1}};
  for (const Case& x : cases)
  for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4})
    for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled})
      for (bool int64 : {false, true}) {
        const std::uint64_t seed = test::fresh_seed();
        const GroupedProblem problem = grouped_of({Mode::w4a4, format, layout, DType::bf16}, x.tokens, 64,
                                                  x.k ? x.k : 3 * block_size(format));
        SCOPED_TRACE(fmt::format("{} offsets {} seed {}", problem.describe(), int64 ? "int64" : "int32", seed));
        const GroupedOperands ops = random_grouped_operands(problem, seed);
        std::vector<std::uint8_t> data, scales;
        std::vector<float> expected;
        for (const GemmOperands& expert : ops.experts) {
          data.insert(data.end(), expert.a_fp4.data.begin(), expert.a_fp4.data.end());
          scales.insert(scales.end(), expert.a_fp4.scales.begin(), expert.a_fp4.scales.end());
          const std::vector<float> values = block_values(expert.a_fp4);
          expected.insert(expected.end(), values.begin(), values.end());
        }
        const std::vector<std::int64_t> offsets = problem.offsets();
        const cuda::DeviceBuffer<std::uint8_t> data_d(data), scales_d(scales);
        const cuda::DeviceBuffer<std::int64_t> offsets64(offsets);
        const cuda::DeviceBuffer<std::int32_t> offsets32(std::vector<std::int32_t>(offsets.begin(), offsets.end()));
        cuda::DeviceBuffer<std::uint16_t> out(expected.size());
        out.fill_bytes(0xFF);  // NaN in bf16
        cuda::dequantize_grouped_fp4_to_bf16(data_d.get(), scales_d.get(), format, layout,
                                             int64 ? static_cast<const void*>(offsets64.get()) : offsets32.get(),
                                             int64, int(problem.experts()), x.bound, problem.k, out.get(), nullptr);
        const std::vector<std::uint16_t> got = out.download();
        ASSERT_EQ(got.size(), expected.size());
        int mismatches = 0, nonzero = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
          nonzero += got[i] != 0 && got[i] != 0x8000;
          if (bf16_to_float(got[i]) != expected[i] && mismatches++ < 3)
            ADD_FAILURE() << fmt::format("element {} (row {}, k {}): {} (bits {:#06x}), expected {}", i,
                                         i / problem.k, i % problem.k, bf16_to_float(got[i]), got[i], expected[i]);
        }
        EXPECT_EQ(mismatches, 0);
        EXPECT_GT(nonzero, 0) << "output is all zeros";
      }
}

// Back-to-back calls (on sm_90 programmatic dependent launches, which wait for the previous kernel
// before reading the offsets): the call after 200 of them gives the first call's bits. Both modes;
// expert 2 takes two rounds (two launches per call, sharing the split-K counters); and a bound of
// one token (the block-column instance).
TEST_F(GroupedKernelOptions, BackToBackCallsGiveTheBitsOfOneCall) {
  for (Mode mode : {Mode::w4a16, Mode::w4a4})
    for (const std::vector<std::int64_t>& tokens : {std::vector<std::int64_t>{1, 0, 40, 3}, {1, 0, 1, 1}}) {
      // {1, 0, 1, 1}: a bound of 1, the block-column instance
      const std::uint64_t seed = test::fresh_seed();
      const GroupedProblem problem =
          grouped_of({mode, Fp4Format::nvfp4, ScaleLayout::linear, DType::f32}, tokens, 200, 6144);
      SCOPED_TRACE(fmt::format("{} seed {}", problem.describe(), seed));
      test::check_chain_gives_the_bits_of_one_call(
          *cuda::prepare_grouped_kernel(random_grouped_operands(problem, seed), {false, std::nullopt}));
    }
}

// cuda-grouped takes the decode kernel's K limit (A's rows staged at 32-bit offsets), in
// can_implement rather than by a throw from prepare(): K = 2^26 is refused by name, 2^26 - 32
// (MXFP4) taken. No GPU needed.
TEST(GroupedKernelRules, CanImplementTakesTheDecodeKernelsKLimit) {
  const GroupedBackend& grouped = find_grouped_backend("cuda-grouped");
  const Combo mxfp4{Mode::w4a16, Fp4Format::mxfp4, ScaleLayout::linear, DType::f32};
  const Verdict refused = grouped.can_implement(grouped_of(mxfp4, {3, 0, 40}, 64, cuda::kDecodeMaxK + 1));
  EXPECT_FALSE(refused);
  EXPECT_NE(refused.reason.find("K = 67108864 is above 67108863"), std::string::npos) << refused.reason;
  EXPECT_TRUE(grouped.can_implement(grouped_of(mxfp4, {3, 0, 40}, 64, cuda::kDecodeMaxK + 1 - 32)));
}

}  // namespace
}  // namespace fp4gemm
