#pragma once
// Renderings of bench results: terminal table, Markdown, JSON (schema "fp4gemm.bench/3",
// documented in docs/bench-json.md), CSV (the JSON rows' fields as columns).
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
  Ceilings ceilings;         // what the rows' rooflines were computed against
};

// One line naming the timing method and cache state asked for, and the table's timing column.
std::string timing_header(const TimingOptions& timing);
// The table, then one "note: <backend> <problem>: ..." line per row whose timing has a note
// (graph capture fell back to stream, the rotation was capped).
std::string bench_table(const std::vector<BenchRow>& rows);
// The same table under a heading with the device, the ceilings' source, the command and revision.
std::string bench_markdown(const std::vector<BenchRow>& rows, const BenchContext& context);
nlohmann::json bench_json(const std::vector<BenchRow>& rows, const BenchContext& context);
std::string bench_csv(const std::vector<BenchRow>& rows);

}  // namespace fp4gemm
