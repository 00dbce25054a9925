// Seeded random operands for check, bench and the tests.
#include "check/normal_matrix.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/gemm.hpp"
#include "fp4gemm/grouped.hpp"
#include "fp4gemm/layout.hpp"
#include "fp4gemm/quantize.hpp"

namespace fp4gemm {
namespace {

// Rows first .. first+count-1 of a linear-layout tensor, with its scales in `layout`.
Fp4Tensor row_slice(const Fp4Tensor& linear, std::int64_t first, std::int64_t count, ScaleLayout layout) {
  Fp4Tensor slice = linear;
  slice.rows = count;
  const auto bytes = [](const std::vector<std::uint8_t>& v, std::int64_t per_row, std::int64_t row0,
                        std::int64_t rows) {
    return std::vector<std::uint8_t>(v.begin() + row0 * per_row, v.begin() + (row0 + rows) * per_row);
  };
  slice.data = bytes(linear.data, linear.cols / 2, first, count);
  slice.scales = bytes(linear.scales, linear.scale_cols(), first, count);
  return with_scale_layout(slice, layout);
}

HostMatrix row_slice(const HostMatrix& m, std::int64_t first, std::int64_t count) {
  return HostMatrix::from_half(m.dtype, count, m.cols,
                               std::vector<std::uint16_t>(m.half.begin() + first * m.cols,
                                                          m.half.begin() + (first + count) * m.cols));
}

}  // namespace

std::vector<Fp4Tensor> random_expert_weights(const GroupedProblem& problem, std::uint64_t seed) {
  problem.validate();
  NormalSource source(~seed);  // a stream of its own: the activations' does not move it
  const QuantizeOptions options{problem.format, problem.scale_layout, {}, {}};
  std::vector<Fp4Tensor> weights;
  for (std::int64_t e = 0; e < problem.experts(); ++e)
    weights.push_back(quantize(normal_matrix(source, problem.n, problem.k, 0.02f), options));
  return weights;
}

GroupedOperands random_grouped_operands(const GroupedProblem& problem, std::uint64_t seed,
                                        const std::vector<Fp4Tensor>& weights) {
  problem.validate();
  require(std::int64_t(weights.size()) == problem.experts(), "{} expert weights for {} experts",
          weights.size(), problem.experts());
  NormalSource source(seed);
  GroupedOperands ops;
  ops.problem = problem;
  const std::int64_t total = problem.total_tokens();
  HostMatrix activations;
  Fp4Tensor activations_fp4;  // linear; sliced per expert, then put in the problem's layout
  if (total > 0) {
    activations = normal_matrix(source, total, problem.k, 1.0f).converted(DType::bf16);
    if (problem.mode == Mode::w4a4)
      activations_fp4 = quantize(activations, {problem.format, ScaleLayout::linear, {}, {}});
  }
  const std::vector<std::int64_t> offsets = problem.offsets();
  for (std::int64_t e = 0; e < problem.experts(); ++e) {
    GemmOperands& x = ops.experts.emplace_back();
    x.problem = problem.expert_problem(e);
    x.b = weights[std::size_t(e)];
    const std::int64_t m = x.problem.shape.m;
    if (m == 0) continue;
    x.a_bf16 = row_slice(activations, offsets[std::size_t(e)], m);
    if (problem.mode == Mode::w4a4)
      x.a_fp4 = row_slice(activations_fp4, offsets[std::size_t(e)], m, problem.scale_layout);
  }
  ops.validate();  // weights of another shape, format or layout are refused here
  return ops;
}

GroupedOperands random_grouped_operands(const GroupedProblem& problem, std::uint64_t seed) {
  return random_grouped_operands(problem, seed, random_expert_weights(problem, seed));
}

GemmOperands random_operands(const GemmProblem& problem, std::uint64_t seed) {
  validate_shape(problem.shape, problem.format);
  NormalSource source(seed);
  const QuantizeOptions options{problem.format, problem.scale_layout, {}, {}};
  GemmOperands ops;
  ops.problem = problem;
  const HostMatrix activations = normal_matrix(source, problem.shape.m, problem.shape.k, 1.0f);
  ops.b = quantize(normal_matrix(source, problem.shape.n, problem.shape.k, 0.02f), options);
  ops.a_bf16 = activations.converted(DType::bf16);
  // w4a4: A is the quantization of the bf16 activations, which stay as its source (the GPU
  // backends requantize them in every call, as a serving engine would).
  if (problem.mode == Mode::w4a4) ops.a_fp4 = quantize(ops.a_bf16, options);
  return ops;
}

Fp4Tensor random_weights(std::int64_t n, std::int64_t k, Fp4Format format, ScaleLayout layout, std::uint64_t seed) {
  validate_shape({1, n, k}, format);
  NormalSource source(~seed);
  return quantize(normal_matrix(source, n, k, 0.02f), {format, layout, {}, {}});
}

GemmOperands random_operands(const GemmProblem& problem, std::uint64_t seed, const Fp4Tensor& weights) {
  validate_shape(problem.shape, problem.format);
  NormalSource source(seed);
  GemmOperands ops;
  ops.problem = problem;
  ops.b = weights;
  ops.a_bf16 = normal_matrix(source, problem.shape.m, problem.shape.k, 1.0f).converted(DType::bf16);
  if (problem.mode == Mode::w4a4) ops.a_fp4 = quantize(ops.a_bf16, {problem.format, problem.scale_layout, {}, {}});
  ops.validate();
  return ops;
}

}  // namespace fp4gemm
