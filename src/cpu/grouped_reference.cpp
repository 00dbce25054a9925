// The CPU reference of the grouped GEMM: the plain reference GEMM (reference_gemm.cpp) on each
// expert that received tokens, its rows placed at the expert's offset in D.
#include <algorithm>

#include "fp4gemm/grouped.hpp"

namespace fp4gemm {

ReferenceResult reference_grouped_gemm(const GroupedOperands& operands) {
  operands.validate();
  const GroupedProblem& p = operands.problem;
  const std::size_t size = std::size_t(p.total_tokens() * p.n);
  ReferenceResult all{std::vector<double>(size), std::vector<float>(size), std::vector<double>(size)};
  const std::vector<std::int64_t> offsets = p.offsets();
  for (std::int64_t e = 0; e < p.experts(); ++e) {
    if (p.tokens[std::size_t(e)] == 0) continue;
    const ReferenceResult r = reference_gemm(operands.experts[std::size_t(e)]);
    const std::size_t first = std::size_t(offsets[std::size_t(e)] * p.n);
    std::copy(r.exact.begin(), r.exact.end(), all.exact.begin() + first);
    std::copy(r.rounded.begin(), r.rounded.end(), all.rounded.begin() + first);
    std::copy(r.abs_sum.begin(), r.abs_sum.end(), all.abs_sum.begin() + first);
  }
  return all;
}

}  // namespace fp4gemm
