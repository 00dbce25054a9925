#include "baselines/operand_values.hpp"

#include "fp4gemm/tensor.hpp"

namespace fp4gemm::baselines {

std::vector<float> activation_values(const GemmOperands& ops) {
  return ops.problem.mode == Mode::w4a4 ? block_values(ops.a_fp4) : ops.a_bf16.to_f32();
}

std::vector<float> weight_values(const GemmOperands& ops) { return block_values(ops.b); }

}  // namespace fp4gemm::baselines
