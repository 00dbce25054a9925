// Measured GEMM times from bench rows or a bench JSON file (bench_times.hpp).
#include "model/bench_times.hpp"

#include <set>

#include "fp4gemm/error.hpp"

namespace fp4gemm {

void BenchTimes::add(const std::string& backend, Mode mode, const GemmShape& shape, MeasuredGemm measured) {
  rows_[{backend, mode, shape.m, shape.n, shape.k}] = std::move(measured);
}

BenchTimes BenchTimes::from_rows(const std::vector<BenchRow>& rows, std::string source) {
  BenchTimes t;
  t.source_ = std::move(source);
  for (const BenchRow& r : rows)
    if (r.ran)
      t.add(r.backend, r.bench_case.problem.mode, r.bench_case.problem.shape, {r.timing.median_s, r.roofline.verdict});
  return t;
}

BenchTimes BenchTimes::from_json(const nlohmann::json& bench, std::string source) {
  require(bench.is_object() && bench.value("schema", "").starts_with("fp4gemm.bench/") &&
              bench.contains("results") && bench["results"].is_array(),
          "{} is not an fp4gemm bench file (no schema fp4gemm.bench/N with a results array)", source);
  BenchTimes t;
  t.source_ = std::move(source);
  try {
    for (const nlohmann::json& r : bench["results"])
      if (r.at("ran").get<bool>())
        t.add(r.at("backend").get<std::string>(), parse_mode(r.at("mode").get<std::string>(), "mode"),
              {r.at("m").get<std::int64_t>(), r.at("n").get<std::int64_t>(), r.at("k").get<std::int64_t>()},
              {r.at("median_us").get<double>() * 1e-6, r.value("verdict", "")});
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(fmt::format("{}: a result lacks a field or has the wrong type ({})", t.source_, e.what()));
  }
  return t;
}

std::vector<std::string> BenchTimes::backends() const {
  std::set<std::string> names;
  for (const auto& [key, value] : rows_) names.insert(std::get<0>(key));
  return {names.begin(), names.end()};
}

const MeasuredGemm& BenchTimes::at(const std::string& backend, Mode mode, const GemmShape& shape) const {
  const auto it = rows_.find({backend, mode, shape.m, shape.n, shape.k});
  require(it != rows_.end(), "{} has no {} {} row that ran for M x N x K = {}x{}x{}", source_, backend,
          to_string(mode), shape.m, shape.n, shape.k);
  return it->second;
}

GemmTimer BenchTimes::timer(const std::string& backend, Mode mode) const {
  return [this, backend, mode](const GemmCall& c) { return at(backend, mode, c.shape).seconds; };
}

}  // namespace fp4gemm
