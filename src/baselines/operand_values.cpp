#include "baselines/operand_values.hpp"

namespace fp4gemm::baselines {
namespace {

std::vector<float> block_values(const Fp4Tensor& t) {
  std::vector<float> v(std::size_t(t.rows * t.cols));
  for (std::int64_t r = 0; r < t.rows; ++r)
    for (std::int64_t k = 0; k < t.cols; ++k) v[std::size_t(r * t.cols + k)] = t.block_value(r, k);
  return v;
}

}  // namespace

std::vector<float> activation_values(const GemmOperands& ops) {
  return ops.problem.mode == Mode::w4a4 ? block_values(ops.a_fp4) : ops.a_bf16.to_f32();
}

std::vector<float> weight_values(const GemmOperands& ops) { return block_values(ops.b); }

}  // namespace fp4gemm::baselines
