#include "bench/grouped_bench.hpp"

#include <tuple>


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
  LaunchOverheads launch(timing);
  std::vector<BenchRow> rows;
  const auto emit = [&](BenchRow& row) {
    if (on_row) on_row(row);
    rows.push_back(std::move(row));
  };
  // The weights of the last case, reused while E, N, K, format and layout stay (drawing and
  // quantizing 32 experts of 4096 x 6144 takes the host tens of seconds).
  std::vector<Fp4Tensor> weights;
  std::tuple<std::int64_t, std::int64_t, std::int64_t, Fp4Format, ScaleLayout> weights_key{};
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const GroupedProblem& problem = cases[c].problem;
    const BenchCase dense_case{problem.dense_problem(), cases[c].description};
    const auto key = std::tuple(problem.experts(), problem.n, problem.k, problem.format, problem.scale_layout);
    if (weights.empty() || key != weights_key) {
      weights = random_expert_weights(problem, seed);
      weights_key = key;
    }
    const GroupedOperands operands = random_grouped_operands(problem, seed + c, weights);
    for (const GroupedBackend* backend : backends) {
      BenchRow row;
      row.backend = std::string(backend->name());
      row.bench_case = dense_case;
      row.bytes = grouped_bytes(problem, backend->encoding());
      if (const Verdict v = backend->can_implement(problem); !v)
        row.note = v.reason;
      else
        measure_row(row, true, backend->compute_path(),
                    [&] { return single_run(backend->prepare(operands), row.bytes, timing.cache); }, timing,
                    ceilings, power, launch);
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
                  [&] { return single_run(dense->prepare(random_operands(dense_case.problem, seed + c)), row.bytes, timing.cache); },
                  timing, ceilings, power, launch);
    emit(row);
  }
  return rows;
}

}  // namespace fp4gemm
