// cpu-fast against the CPU reference on fresh random operands, for every ISA this CPU runs:
// every mode x format x scale layout x output dtype on two shapes, and a sweep of awkward shapes
// (M = 1, 2, 3 ... 256 across the streaming / blocked switch, odd N, K = one block, K padded to
// the 32-element chunk, K not a multiple of the 256-element K block) plus one larger problem.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "fast_gemm_check.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::test {
namespace {

using cpu::Isa;

struct RandomCase {
  GemmProblem problem;
  std::uint64_t seed = 0;
};

std::string case_name(const testing::TestParamInfo<std::tuple<Isa, RandomCase>>& info) {
  const auto& [isa, c] = info.param;
  const GemmProblem& p = c.problem;
  std::string name = fmt::format("{}_{}_{}_{}_{}_{}x{}x{}", cpu::to_string(isa),
                                 to_string(p.format), to_string(p.mode),
                                 to_string(p.scale_layout), to_string(p.out_dtype), p.shape.m,
                                 p.shape.n, p.shape.k);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

RandomCase make_case(Fp4Format format, Mode mode, ScaleLayout layout, DType dtype,
                     GemmShape shape) {
  // MXFP4 needs K to be a multiple of 32: the NVFP4 K rounded up.
  if (format == Fp4Format::mxfp4) shape.k = round_up(shape.k, 32);
  RandomCase c;
  c.problem.shape = shape;
  c.problem.mode = mode;
  c.problem.format = format;
  c.problem.scale_layout = layout;
  c.problem.out_dtype = dtype;
  c.seed = std::uint64_t(shape.m * 1000003 + shape.n * 1009 + shape.k) * 4 + int(format) * 2 +
           int(mode);
  return c;
}

// Every combination on a streaming-sized and a blocked-sized shape; K = 48 pads to 64 (NVFP4),
// K = 560 spans three K blocks (256 + 256 + 48).
std::vector<RandomCase> all_combinations() {
  std::vector<RandomCase> cases;
  for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4})
    for (Mode mode : {Mode::w4a16, Mode::w4a4})
      for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled})
        for (DType dtype : {DType::f32, DType::bf16, DType::f16})
          for (GemmShape shape : {GemmShape{1, 19, 48}, GemmShape{17, 33, 560}})
            cases.push_back(make_case(format, mode, layout, dtype, shape));
  return cases;
}

// Awkward shapes, NVFP4 w4a16 -> f32 (linear) and MXFP4 w4a4 -> bf16 (swizzled).
std::vector<RandomCase> shape_sweep() {
  // M = 1..4 stream on AVX2, up to 16 on AVX-512 (in passes of 2 / 4 rows), larger M is blocked.
  const GemmShape shapes[] = {
      {1, 1, 16},      {1, 3, 1040},   {1, 769, 48},   {2, 17, 16},   {2, 769, 528},
      {3, 1, 528},     {3, 17, 48},    {4, 17, 48},    {5, 3, 528},   {12, 33, 528},
      {16, 5, 48},     {17, 769, 16},  {17, 3, 1040},  {64, 17, 528}, {64, 769, 48},
      {256, 1, 16},    {256, 3, 528},  {256, 17, 1040}, {256, 769, 48}, {96, 384, 2048}};
  std::vector<RandomCase> cases;
  for (const GemmShape& shape : shapes) {
    cases.push_back(
        make_case(Fp4Format::nvfp4, Mode::w4a16, ScaleLayout::linear, DType::f32, shape));
    cases.push_back(
        make_case(Fp4Format::mxfp4, Mode::w4a4, ScaleLayout::swizzled, DType::bf16, shape));
  }
  return cases;
}

class FastGemmRandomTest : public PerIsaTest<RandomCase> {};

TEST_P(FastGemmRandomTest, MatchesReferenceWithinDeclaredBound) {
  const GemmProblem& problem = test_case().problem;
  GemmOperands ops = random_operands(problem, test_case().seed);
  ops.alpha = 1.5f;  // a user alpha on top of the tensor scales
  const auto backend = cpu::make_fast_backend(isa());
  ASSERT_TRUE(backend->can_implement(problem)) << backend->can_implement(problem).reason;
  const std::vector<float> d = run_poisoned(*backend, ops);
  expect_matches_reference(d, reference_gemm(ops), problem, backend->accuracy());
}

INSTANTIATE_TEST_SUITE_P(AllCombinations, FastGemmRandomTest,
                         testing::Combine(testing::ValuesIn(cpu::kAllIsas),
                                          testing::ValuesIn(all_combinations())),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Shapes, FastGemmRandomTest,
                         testing::Combine(testing::ValuesIn(cpu::kAllIsas),
                                          testing::ValuesIn(shape_sweep())),
                         case_name);

}  // namespace
}  // namespace fp4gemm::test
