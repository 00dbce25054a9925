// The grouped (MoE) GEMM problem: counts, offsets, per-expert problems and operand validation.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "fp4gemm/error.hpp"
#include "fp4gemm/grouped.hpp"

namespace fp4gemm {

std::int64_t GroupedProblem::total_tokens() const {
  return std::accumulate(tokens.begin(), tokens.end(), std::int64_t(0));
}

std::int64_t GroupedProblem::max_tokens() const {
  return tokens.empty() ? 0 : *std::max_element(tokens.begin(), tokens.end());
}

std::int64_t GroupedProblem::active_experts() const {
  return std::count_if(tokens.begin(), tokens.end(), [](std::int64_t t) { return t > 0; });
}

std::vector<std::int64_t> GroupedProblem::offsets() const {
  std::vector<std::int64_t> offsets(tokens.size() + 1, 0);
  std::partial_sum(tokens.begin(), tokens.end(), offsets.begin() + 1);
  return offsets;
}

GemmProblem GroupedProblem::expert_problem(std::int64_t e) const {
  return {{tokens.at(std::size_t(e)), n, k}, mode, format, scale_layout, out_dtype};
}

GemmProblem GroupedProblem::dense_problem() const {
  return {{total_tokens(), n, k}, mode, format, scale_layout, out_dtype};
}

std::string GroupedProblem::describe() const {
  const auto [lo, hi] = std::minmax_element(tokens.begin(), tokens.end());
  return fmt::format("{} {} {} experts x {}x{}, {} tokens ({}..{} per expert) -> {}", to_string(format),
                     to_string(mode), experts(), n, k, total_tokens(), tokens.empty() ? 0 : *lo,
                     tokens.empty() ? 0 : *hi, to_string(out_dtype));
}

void GroupedProblem::validate() const {
  require(!tokens.empty(), "a grouped GEMM needs at least 1 expert (got 0 token counts)");
  for (std::size_t e = 0; e < tokens.size(); ++e)
    require(tokens[e] >= 0, "expert {} has {} tokens; a count must be >= 0", e, tokens[e]);
  validate_shape({1, n, k}, format);
}

void GroupedOperands::validate() const {
  problem.validate();
  require(std::int64_t(experts.size()) == problem.experts(),
          "grouped operands hold {} experts; the problem has {}", experts.size(), problem.experts());
  for (std::int64_t e = 0; e < problem.experts(); ++e) {
    const GemmOperands& x = experts[std::size_t(e)];
    require(x.problem == problem.expert_problem(e), "expert {} is {}; the grouped problem needs {}", e,
            x.problem.describe(), problem.expert_problem(e).describe());
    try {
      if (problem.tokens[std::size_t(e)] > 0)
        x.validate();
      else
        x.validate_weights();
    } catch (const InvalidArgument& error) {
      throw InvalidArgument(fmt::format("expert {}: {}", e, error.what()));
    }
  }
}

}  // namespace fp4gemm
