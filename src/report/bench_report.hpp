#pragma once
// Renderings of bench results: terminal table, JSON (schema "fp4gemm.bench/1", documented in
// docs/bench-json.md), CSV.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_runner.hpp"

namespace fp4gemm {

// Where and how a bench ran: recorded in every JSON file.
struct BenchContext {
  std::string command;       // the command line, as typed
  std::string device;        // e.g. "NVIDIA H200 (sm_90, 132 SMs)" or the CPU model
  TimingOptions timing;
};

std::string bench_table(const std::vector<BenchRow>& rows);
nlohmann::json bench_json(const std::vector<BenchRow>& rows, const BenchContext& context);
std::string bench_csv(const std::vector<BenchRow>& rows);

}  // namespace fp4gemm
