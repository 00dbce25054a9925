#pragma once
// The operand values every baseline starts from, on the host: A_hat (M x K) and B_hat (N x K)
// of gemm.hpp as row-major fp32. Exact: a block value q * scale (scale_2 left out; it is part of
// alpha_total) and a bf16 activation are fp32 numbers.
#include <vector>

#include "fp4gemm/gemm.hpp"

namespace fp4gemm::baselines {

std::vector<float> activation_values(const GemmOperands& ops);  // A_hat, M x K
std::vector<float> weight_values(const GemmOperands& ops);      // B_hat, N x K

}  // namespace fp4gemm::baselines
