#pragma once
// Measured GEMM times by (backend, mode, M, N, K), from bench rows or a bench JSON file
// (docs/bench-json.md), as the timers the plan arithmetic and the model report ask. A GEMM the
// checkpoint keeps in bf16 is looked up by its shape like the FP4 ones: every row of a bench is
// an FP4 GEMM, so such a GEMM is counted at its FP4 time.
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_runner.hpp"
#include "fp4gemm/plan_estimate.hpp"

namespace fp4gemm {

struct MeasuredGemm {
  double seconds = 0;   // median
  std::string verdict;  // the roofline verdict of the row
};

class BenchTimes {
 public:
  // `source` names the measurements in errors ("bench.json", "this run").
  static BenchTimes from_rows(const std::vector<BenchRow>& rows, std::string source);
  // InvalidArgument unless `bench` is an fp4gemm.bench/1, /2 or /3 object with a results array.
  static BenchTimes from_json(const nlohmann::json& bench, std::string source);

  std::vector<std::string> backends() const;  // with at least one row that ran, sorted
  // InvalidArgument naming the source, backend, mode and shape when no row that ran has them.
  const MeasuredGemm& at(const std::string& backend, Mode mode, const GemmShape& shape) const;
  GemmTimer timer(const std::string& backend, Mode mode) const;

 private:
  void add(const std::string& backend, Mode mode, const GemmShape& shape, MeasuredGemm measured);
  std::string source_;
  std::map<std::tuple<std::string, Mode, std::int64_t, std::int64_t, std::int64_t>, MeasuredGemm> rows_;
};

}  // namespace fp4gemm
