#pragma once
// `fp4gemm bench --model`: the cases (every distinct GEMM of the per-GPU list over the batches,
// timed once) and the report (per GEMM, per layer and per forward totals per backend and mode,
// each GEMM's share of the forward and its verdict), as a table and as JSON.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_runner.hpp"
#include "fp4gemm/parallel.hpp"
#include "model/bench_times.hpp"
#include "model/forward_breakdown.hpp"

namespace fp4gemm::cli {

struct ModelBench {
  ModelConfig model;
  ParallelPlan plan;
  std::vector<std::int64_t> batches;
  ForwardWorkload work;  // tokens: set per batch
  std::string routing;   // as given: "balanced", "zipf:1.2"
  std::vector<std::string> backends;
  std::vector<Mode> modes;
};

std::vector<BenchCase> model_bench_cases(const ModelBench& mb, Fp4Format format, ScaleLayout layout, DType out);
std::string model_bench_table(const ModelBench& mb, const BenchTimes& times);
// The "model" object of the bench JSON (docs/bench-json.md).
nlohmann::json model_bench_json(const ModelBench& mb, const BenchTimes& times);

}  // namespace fp4gemm::cli
