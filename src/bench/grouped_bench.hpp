#pragma once
// The engine of `fp4gemm bench --grouped`: MoE grouped GEMMs timed on every grouped backend
// (cuda-grouped: one launch; cublas-bf16-loop: one cuBLAS call per expert with tokens) and, as
// the size reference, one dense cublas-bf16 GEMM of the same total size (T_total x N x K, one
// weight; row backend "cublas-bf16-dense"). Rows are BenchRows of the dense problem (its FLOPs
// are the grouped GEMM's), so every report of bench applies.
#include <cstdint>
#include <string>
#include <vector>

#include "bench/bench_runner.hpp"
#include "fp4gemm/grouped.hpp"

namespace fp4gemm {

struct GroupedBenchCase {
  GroupedProblem problem;
  std::string description;  // e.g. "MoE 32 experts, 4 tokens/expert (balanced), 32 with tokens"
};

inline constexpr std::string_view kDenseRowBackend = "cublas-bf16-dense";

// The roofline bytes of a grouped GEMM: the weights and scales of the experts that received
// tokens (an empty expert's weights need not be read), the activations and the output; in
// `encoding` (gemm_bytes of each non-empty expert's GEMM, summed).
double grouped_bytes(const GroupedProblem& problem, OperandEncoding encoding);

// Per case: each of `backends`, then `dense` (cublas-bf16, or null for none) on the dense
// problem. Weights drawn with `seed` (once per E, N, K, format and layout), activations with
// seed + case index.
std::vector<BenchRow> run_grouped_bench(const std::vector<GroupedBenchCase>& cases,
                                        const std::vector<const GroupedBackend*>& backends,
                                        const Backend* dense, const TimingOptions& timing,
                                        std::uint64_t seed, const Ceilings& ceilings,
                                        const BenchRowCallback& on_row, PowerMonitor* power);

}  // namespace fp4gemm
