#include "bench/grouped_bench.hpp"


namespace fp4gemm {

double grouped_bytes(const GroupedProblem& problem, OperandEncoding encoding) {
  double bytes = 0;
  for (std::int64_t e = 0; e < problem.experts(); ++e)
    if (problem.tokens[std::size_t(e)] > 0) bytes += gemm_bytes(problem.expert_problem(e), encoding);
  return bytes;
}

std::vector<BenchRow> run_grouped_bench(const std::vector<GroupedBenchCase>& cases,
                                        const std::vector<const GroupedBackend*>& backends,
                                        const Backend* dense, const TimingOptions& timing,
                                        std::uint64_t seed, const Ceilings& ceilings,
                                        const BenchRowCallback& on_row, PowerMonitor* power) {
  std::vector<BenchRow> rows;
  const auto emit = [&](BenchRow& row) {
    if (on_row) on_row(row);
    rows.push_back(std::move(row));
  };
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const GroupedProblem& problem = cases[c].problem;
    const BenchCase dense_case{problem.dense_problem(), cases[c].description};
    const GroupedOperands operands = random_grouped_operands(problem, seed + c);
    for (const GroupedBackend* backend : backends) {
      BenchRow row;
      row.backend = std::string(backend->name());
      row.bench_case = dense_case;
      row.bytes = grouped_bytes(problem, backend->encoding());
      if (const Verdict v = backend->can_implement(problem); !v)
        row.note = v.reason;
      else
        measure_row(row, true, backend->compute_path(), [&] { return backend->prepare(operands); },
                    timing, ceilings, power);
      emit(row);
    }
    if (dense == nullptr) continue;
    BenchRow row;
    row.backend = std::string(kDenseRowBackend);
    row.bench_case = dense_case;
    row.bytes = gemm_bytes(dense_case.problem, dense->encoding());
    if (problem.total_tokens() == 0)
      row.note = "no tokens: the dense GEMM would be empty";
    else if (const Verdict v = dense->can_implement(dense_case.problem); !v)
      row.note = v.reason;
    else
      measure_row(row, true, dense->compute_path(),
                  [&] { return dense->prepare(random_operands(dense_case.problem, seed + c)); },
                  timing, ceilings, power);
    emit(row);
  }
  return rows;
}

}  // namespace fp4gemm
