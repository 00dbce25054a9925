#include "grouped_bench.hpp"

#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "shape_list.hpp"

namespace fp4gemm::cli {
namespace {

constexpr std::int64_t kDefaultTokensPerExpert[] = {1, 4, 16};
constexpr std::string_view kDenseBackend = "cublas-bf16";

void choose_backends(const std::vector<std::string>& names, GroupedBench& bench) {
  if (names.empty() || (names.size() == 1 && names[0] == "all")) {
    for (const auto& b : all_grouped_backends())
      if (b->availability()) bench.backends.push_back(b.get());
    for (const auto& b : all_backends())
      if (b->name() == kDenseBackend && b->availability()) bench.dense = b.get();
    return;
  }
  for (const std::string& name : names) {
    if (name == kDenseBackend) {
      bench.dense = &find_backend(name);
      const Verdict v = bench.dense->availability();
      require(v.ok, "--backend {} is not available here: {}", name, v.reason);
      continue;
    }
    const GroupedBackend& b = find_grouped_backend(name);
    const Verdict v = b.availability();
    require(v.ok, "--backend {} is not available here: {}", name, v.reason);
    bench.backends.push_back(&b);
  }
}

}  // namespace

void add_grouped_options(CLI::App& cmd, GroupedArgs& args) {
  cmd.add_flag("--grouped", args.enabled,
               "Time the MoE grouped GEMM (all experts in one call) against a per-expert cublas-bf16 "
               "loop and one dense cublas-bf16 GEMM of the same total size; needs -n and -k");
  cmd.add_option("--experts", args.experts, "With --grouped: experts on this GPU (default 32)");
  cmd.add_option("--tokens-per-expert", args.tokens_per_expert,
                 "With --grouped: mean tokens per expert, routed by --routing (default 1,4,16)")
      ->delimiter(',');
}

GroupedBench grouped_bench(const GroupedArgs& args, const GroupedGemmOptions& gemm,
                           const std::vector<std::string>& backend_names) {
  require(args.experts >= 1, "--experts = {} must be at least 1", args.experts);
  require(!gemm.n.empty() && !gemm.k.empty(), "--grouped needs -n and -k (each expert's weights are N x K)");
  std::vector<std::int64_t> per_expert = parse_positive_list(args.tokens_per_expert, "--tokens-per-expert");
  if (per_expert.empty()) per_expert.assign(std::begin(kDefaultTokensPerExpert), std::end(kDefaultTokensPerExpert));
  GroupedBench bench;
  for (std::int64_t n : gemm.n)
    for (std::int64_t k : gemm.k)
      for (Mode mode : gemm.modes)
        for (std::int64_t t : per_expert) {
          GroupedProblem p{route_tokens(t * args.experts, 1, args.experts, gemm.routing), n, k, mode,
                           gemm.format, gemm.scale_layout, gemm.out_dtype};
          p.validate();
          std::string description = fmt::format("MoE {} experts, {} tokens/expert ({}), {} with tokens",
                                                args.experts, t, gemm.routing_name, p.active_experts());
          bench.cases.push_back({std::move(p), std::move(description)});
        }
  choose_backends(backend_names, bench);
  require(!bench.backends.empty() || bench.dense != nullptr,
          "--grouped: no grouped backend is available here (cuda-grouped, cublas-bf16-loop and "
          "cublas-bf16 run on CUDA GPUs)");
  return bench;
}

}  // namespace fp4gemm::cli
