#pragma once
// `fp4gemm bench --grouped`: the MoE grouped GEMM of --experts experts at each
// --tokens-per-expert (routed by --routing: balanced gives every expert exactly that many),
// for -n x -k weights, timed on every grouped backend and against one dense cublas-bf16 GEMM of
// the same total size (src/bench/grouped_bench.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/grouped_bench.hpp"
#include "fp4gemm/routing.hpp"

namespace fp4gemm::cli {

struct GroupedArgs {
  bool enabled = false;
  std::int64_t experts = 32;
  std::vector<std::string> tokens_per_expert;
};

// --grouped, --experts, --tokens-per-expert.
void add_grouped_options(CLI::App& cmd, GroupedArgs& args);

// What `bench --grouped` runs: cases x (grouped backends + the dense row).
struct GroupedBench {
  std::vector<GroupedBenchCase> cases;
  std::vector<const GroupedBackend*> backends;
  const Backend* dense = nullptr;  // cublas-bf16, when chosen and available
  std::size_t rows() const { return cases.size() * (backends.size() + (dense ? 1 : 0)); }
};

// The GEMM options of bench, already parsed, that a grouped run uses.
struct GroupedGemmOptions {
  std::vector<std::int64_t> n, k;
  std::vector<Mode> modes;
  Fp4Format format = Fp4Format::nvfp4;
  ScaleLayout scale_layout = ScaleLayout::linear;
  DType out_dtype = DType::bf16;
  Routing routing;
  std::string routing_name;
};

// Cases (every n x k x mode x tokens-per-expert) and backends: --backend names grouped backends
// and cublas-bf16 (the dense row); empty or "all": every available one. InvalidArgument naming
// the option for a bad count, a missing -n/-k, or an unknown or unavailable backend.
GroupedBench grouped_bench(const GroupedArgs& args, const GroupedGemmOptions& gemm,
                           const std::vector<std::string>& backend_names);

}  // namespace fp4gemm::cli
