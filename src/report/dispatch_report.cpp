#include "report/dispatch_report.hpp"

#include <fmt/format.h>

namespace fp4gemm {

nlohmann::ordered_json dispatch_fields(const Dispatch& dispatch) {
  nlohmann::ordered_json refused = nlohmann::ordered_json::array();
  for (const Refusal& r : dispatch.refused) refused.push_back({{"backend", r.backend}, {"reason", r.reason}});
  nlohmann::ordered_json j;
  j["kernel"] = dispatch.chosen;
  j["rule"] = dispatch.rule;
  j["refused"] = std::move(refused);
  return j;
}

std::string explain_dispatch(const std::vector<BenchRow>& rows) {
  std::string out;
  for (const BenchRow& row : rows) {
    if (!row.dispatch) continue;
    const Dispatch& d = *row.dispatch;
    out += fmt::format("{} {}: {}\n  table row: {}\n", row.backend, row.bench_case.problem.describe(),
                       d.chosen.empty() ? "no kernel takes it" : d.chosen, d.rule);
    for (const Refusal& r : d.refused) out += fmt::format("  refused {}: {}\n", r.backend, r.reason);
    if (!row.plan.empty()) out += fmt::format("  plan: {}\n", row.plan);
  }
  return out;
}

}  // namespace fp4gemm
