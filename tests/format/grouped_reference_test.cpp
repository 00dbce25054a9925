// The grouped (MoE) GEMM problem and its CPU reference: offsets and counts, the per-expert
// operands random_grouped_operands draws (one activation tensor split by expert, A-scale blocks
// per expert in the problem's layout), the grouped reference against an independent
// computation (the whole A times each expert's B, rows of that expert kept), empty experts, and
// the validation messages.
#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/grouped.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm {
namespace {

using test::expect_error;

GroupedProblem grouped(std::vector<std::int64_t> tokens, Mode mode, Fp4Format format = Fp4Format::nvfp4,
                       ScaleLayout layout = ScaleLayout::linear) {
  return {std::move(tokens), 40, 3 * block_size(format), mode, format, layout, DType::f32};
}

TEST(GroupedProblem, CountsOffsetsAndPerExpertProblems) {
  const GroupedProblem p = grouped({0, 1, 17, 33, 0}, Mode::w4a16);
  EXPECT_EQ(p.experts(), 5);
  EXPECT_EQ(p.total_tokens(), 51);
  EXPECT_EQ(p.max_tokens(), 33);
  EXPECT_EQ(p.active_experts(), 3);
  EXPECT_EQ(p.offsets(), (std::vector<std::int64_t>{0, 0, 1, 18, 51, 51}));
  EXPECT_EQ(p.expert_problem(2).shape, (GemmShape{17, 40, 48}));
  EXPECT_EQ(p.dense_problem().shape, (GemmShape{51, 40, 48}));
  EXPECT_EQ(p.describe(), "nvfp4 w4a16 5 experts x 40x48, 51 tokens (0..33 per expert) -> f32");
}

TEST(GroupedProblem, ValidationNamesTheRule) {
  expect_error<InvalidArgument>([] { grouped({}, Mode::w4a16).validate(); }, "at least 1 expert");
  expect_error<InvalidArgument>([] { grouped({3, -1}, Mode::w4a16).validate(); },
                                "expert 1 has -1 tokens; a count must be >= 0");
  GroupedProblem p = grouped({1}, Mode::w4a16);
  p.k = 24;
  expect_error<InvalidArgument>([&] { p.validate(); }, "K = 24 is not a multiple of 16");
  // Operands that do not match: wrong expert count, an expert's weights of another shape.
  GroupedOperands ops = random_grouped_operands(grouped({2, 0, 1}, Mode::w4a16), 7);
  GroupedOperands fewer = ops;
  fewer.experts.pop_back();
  expect_error<InvalidArgument>([&] { fewer.validate(); }, "grouped operands hold 2 experts; the problem has 3");
  ops.experts[1].b = ops.experts[0].b;
  ops.experts[1].b.rows = 39;
  expect_error<InvalidArgument>([&] { ops.validate(); }, "expert 1: ");
}

TEST(GroupedOperands, SplitOneActivationTensorByExpert) {
  for (Mode mode : {Mode::w4a16, Mode::w4a4})
    for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled}) {
      const GroupedProblem p = grouped({3, 0, 5}, mode, Fp4Format::mxfp4, layout);
      const GroupedOperands ops = random_grouped_operands(p, 11);
      ops.validate();
      ASSERT_EQ(ops.experts.size(), 3u);
      EXPECT_EQ(ops.experts[1].a_bf16.rows, 0);
      if (mode == Mode::w4a4) {
        EXPECT_EQ(ops.experts[0].a_fp4.scale_2, ops.experts[2].a_fp4.scale_2);  // one A tensor
        EXPECT_EQ(std::int64_t(ops.experts[2].a_fp4.scales.size()), scale_bytes(layout, 5, p.k / 32));
        EXPECT_EQ(ops.experts[2].a_fp4.scale_layout, layout);
      }
      EXPECT_NE(ops.experts[0].b.data, ops.experts[2].b.data) << "experts need their own weights";
      // Same seed, same operands.
      EXPECT_EQ(random_grouped_operands(p, 11).experts[2].a_bf16.half, ops.experts[2].a_bf16.half);
    }
}

TEST(GroupedOperands, WeightsDrawnOnceServeOtherCountsAndModes) {
  const GroupedProblem a = grouped({2, 0, 3}, Mode::w4a16);
  const std::vector<Fp4Tensor> weights = random_expert_weights(a, 9);
  EXPECT_EQ(random_grouped_operands(a, 9).experts[2].b.data, weights[2].data);  // the same draw
  const GroupedOperands b = random_grouped_operands(grouped({0, 7, 1}, Mode::w4a4), 4, weights);
  EXPECT_EQ(b.experts[1].b.data, weights[1].data);
  EXPECT_EQ(b.experts[1].a_fp4.rows, 7);
  GroupedProblem wider = grouped({1, 1, 1}, Mode::w4a16);
  wider.n = 41;
  expect_error<InvalidArgument>([&] { random_grouped_operands(wider, 1, weights); },
                                "expert 0: B is 40 x 48; the problem needs N x K = 41 x 48");
  expect_error<InvalidArgument>([&] { random_grouped_operands(grouped({1}, Mode::w4a16), 1, weights); },
                                "3 expert weights for 1 experts");
}

// The reference of expert e's rows against reference_gemm of the whole T_total-row A with
// expert e's weights: the same numbers by another route.
TEST(GroupedReference, EachExpertsRowsAreItsOwnGemm) {
  for (Mode mode : {Mode::w4a16, Mode::w4a4}) {
    const GroupedProblem p = grouped({0, 1, 17, 33, 0}, mode);
    const GroupedOperands ops = random_grouped_operands(p, 3);
    const ReferenceResult r = reference_grouped_gemm(ops);
    ASSERT_EQ(r.rounded.size(), std::size_t(51 * p.n));

    GemmOperands whole;
    whole.problem = p.dense_problem();
    for (const GemmOperands& x : ops.experts) {
      if (x.problem.shape.m == 0) continue;
      whole.a_bf16.half.insert(whole.a_bf16.half.end(), x.a_bf16.half.begin(), x.a_bf16.half.end());
      if (mode == Mode::w4a4) {
        whole.a_fp4.data.insert(whole.a_fp4.data.end(), x.a_fp4.data.begin(), x.a_fp4.data.end());
        whole.a_fp4.scales.insert(whole.a_fp4.scales.end(), x.a_fp4.scales.begin(), x.a_fp4.scales.end());
        whole.a_fp4.scale_2 = x.a_fp4.scale_2;
      }
    }
    whole.a_bf16 = HostMatrix::from_half(DType::bf16, 51, p.k, whole.a_bf16.half);
    whole.a_fp4.format = p.format;
    whole.a_fp4.rows = 51;
    whole.a_fp4.cols = p.k;
    const std::vector<std::int64_t> offsets = p.offsets();
    for (std::int64_t e = 0; e < p.experts(); ++e) {
      whole.b = ops.experts[std::size_t(e)].b;
      const ReferenceResult full = reference_gemm(whole);
      for (std::int64_t row = offsets[std::size_t(e)]; row < offsets[std::size_t(e) + 1]; ++row)
        for (std::int64_t n = 0; n < p.n; ++n) {
          const std::size_t i = std::size_t(row * p.n + n);
          ASSERT_EQ(r.rounded[i], full.rounded[i]) << "expert " << e << " row " << row << " n " << n;
          ASSERT_EQ(r.abs_sum[i], full.abs_sum[i]);
        }
    }
  }
}

TEST(GroupedReference, AllExpertsEmptyGivesAnEmptyResult) {
  const GroupedOperands ops = random_grouped_operands(grouped({0, 0}, Mode::w4a4), 5);
  EXPECT_TRUE(reference_grouped_gemm(ops).rounded.empty());
}

}  // namespace
}  // namespace fp4gemm
