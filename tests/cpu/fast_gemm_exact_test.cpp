// cpu-fast on exactly representable problems: integer operands (E2M1 values 0, 1, 2, 3, 4, 6
// with scales 1 or 2; bf16 integers in [-8, 8]) and a power-of-two alpha make every partial sum
// an integer below 2^24, so any accumulation order gives the exact result and D must equal the
// reference bit for bit, for every ISA, mode, format, layout and output dtype.
#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "fast_gemm_check.hpp"
#include "format/fp4_tensor_builder.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::test {
namespace {

using cpu::Isa;

struct ExactCase {
  Fp4Format format = Fp4Format::nvfp4;
  Mode mode = Mode::w4a16;
  ScaleLayout layout = ScaleLayout::linear;
  DType dtype = DType::f32;
};

std::string case_name(const testing::TestParamInfo<std::tuple<Isa, ExactCase>>& info) {
  const auto& [isa, c] = info.param;
  std::string name = fmt::format("{}_{}_{}_{}_{}", cpu::to_string(isa), to_string(c.format),
                                 to_string(c.mode), to_string(c.layout), to_string(c.dtype));
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

std::vector<ExactCase> all_cases() {
  std::vector<ExactCase> cases;
  for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4})
    for (Mode mode : {Mode::w4a16, Mode::w4a4})
      for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled})
        for (DType dtype : {DType::f32, DType::bf16, DType::f16})
          cases.push_back({format, mode, layout, dtype});
  return cases;
}

// rows x cols FP4 tensor of integer block values: codes of 0, 1, 2, 3, 4, 6 (either sign) and
// scales 1 or 2, so |value| <= 12.
Fp4Tensor integer_tensor(Fp4Format format, ScaleLayout layout, std::int64_t rows,
                         std::int64_t cols, std::mt19937& rng) {
  const std::uint8_t integer_codes[] = {0, 2, 4, 5, 6, 7};  // 0, 1, 2, 3, 4, 6
  const std::uint8_t scale_one = format == Fp4Format::nvfp4 ? e4m3_from_float(1.0f) : 127;
  const std::uint8_t scale_two = format == Fp4Format::nvfp4 ? e4m3_from_float(2.0f) : 128;
  std::vector<std::uint8_t> codes(std::size_t(rows * cols)), scales;
  for (auto& c : codes) c = std::uint8_t(integer_codes[rng() % 6] | (rng() % 2 ? 8 : 0));
  scales.resize(std::size_t(rows * cols / block_size(format)));
  for (auto& s : scales) s = rng() % 2 ? scale_two : scale_one;
  return with_scale_layout(make_fp4_tensor(format, rows, cols, codes, scales, 1.0f), layout);
}

class FastGemmExactTest : public PerIsaTest<ExactCase> {};

TEST_P(FastGemmExactTest, IntegerProductsAreBitEqualToReference) {
  const ExactCase& c = test_case();
  const auto backend = cpu::make_fast_backend(isa());
  // Streaming (M = 1, 2) and blocked (M = 7, 33) kernels; K spans two K blocks in the last one.
  for (const GemmShape shape : {GemmShape{1, 9, 64}, GemmShape{2, 5, 32}, GemmShape{7, 13, 96},
                                GemmShape{33, 6, 1056}}) {
    std::mt19937 rng(unsigned(shape.m * 7919 + shape.n * 31 + shape.k));
    GemmOperands ops;
    ops.problem = {shape, c.mode, c.format, c.layout, c.dtype};
    ops.b = integer_tensor(c.format, c.layout, shape.n, shape.k, rng);
    if (c.mode == Mode::w4a4) {
      ops.a_fp4 = integer_tensor(c.format, c.layout, shape.m, shape.k, rng);
    } else {
      std::vector<std::uint16_t> a(std::size_t(shape.m * shape.k));
      for (auto& v : a) v = bf16_from_float(float(int(rng() % 17) - 8));
      ops.a_bf16 = HostMatrix::from_half(DType::bf16, shape.m, shape.k, std::move(a));
    }
    ops.alpha = 0.25f;
    const ReferenceResult ref = reference_gemm(ops);
    const std::vector<float> d = run_poisoned(*backend, ops);
    ASSERT_EQ(d.size(), ref.rounded.size());
    std::int64_t nonzero = 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
      ASSERT_EQ(float_bits(d[i]), float_bits(ref.rounded[i]))
          << ops.problem.describe() << " element " << i << ": " << d[i] << " vs " << ref.rounded[i];
      nonzero += d[i] != 0.0f;
    }
    EXPECT_GT(nonzero, 0) << ops.problem.describe() << ": output is all zero";
  }
}

INSTANTIATE_TEST_SUITE_P(AllCombinations, FastGemmExactTest,
                         testing::Combine(testing::ValuesIn(cpu::kAllIsas),
                                          testing::ValuesIn(all_cases())),
                         case_name);

}  // namespace
}  // namespace fp4gemm::test
