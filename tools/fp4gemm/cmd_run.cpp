// fp4gemm run: exactly --calls calls of one backend on one problem, then exit; nothing is timed
// or checked. It is the workload an outside timer measures, e.g. Nsight Compute in
// scripts/crosscheck_ncu.sh, which compares its kernel times with bench's. The operands are
// those bench draws for the same problem and --seed (bench's first case uses the seed itself).
// Order of GPU work: prepare() (uploads, conversions), then the calls, then one synchronize.
#include <fmt/format.h>

#include "backend_selection.hpp"
#include "commands.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm::cli {
namespace {

struct RunArgs {
  std::string backend;
  std::int64_t m = 0, n = 0, k = 0;
  std::string mode = "w4a16";
  std::string format = "nvfp4";
  std::string out_dtype = "bf16";
  std::string scale_layout = "linear";
  int calls = 1;
  std::uint64_t seed = 1;
};

}  // namespace

void add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run exactly --calls GEMMs of one backend (for an outside profiler)");
  cmd->add_option("--backend", args->backend, "The backend")->required();
  cmd->add_option("-m", args->m, "M")->required();
  cmd->add_option("-n", args->n, "N")->required();
  cmd->add_option("-k", args->k, "K")->required();
  cmd->add_option("--mode", args->mode, "w4a16 or w4a4 (default w4a16)");
  cmd->add_option("--format", args->format, "FP4 format: nvfp4 or mxfp4");
  cmd->add_option("--out-dtype", args->out_dtype, "Output dtype: bf16, f16 or f32 (default bf16)");
  cmd->add_option("--scale-layout", args->scale_layout, "Scale layout: linear or swizzled");
  cmd->add_option("--calls", args->calls, "GEMM calls after prepare (default 1; 0: prepare only)");
  cmd->add_option("--seed", args->seed, "Seed of the random operands (default 1, as bench)");
  cmd->callback([args] {
    require(args->calls >= 0, "--calls = {} must be >= 0", args->calls);
    const GemmProblem problem{{args->m, args->n, args->k},
                              parse_mode(args->mode, "--mode"),
                              parse_fp4_format(args->format, "--format"),
                              parse_scale_layout(args->scale_layout, "--scale-layout"),
                              parse_dtype(args->out_dtype, "--out-dtype")};
    validate_shape(problem.shape, problem.format);
    const Backend& backend = *select_backends({args->backend}, DefaultBackends::best_device).front();
    const Verdict v = backend.can_implement(problem);
    require(v.ok, "--backend {} cannot run {}: {}", backend.name(), problem.describe(), v.reason);
    const auto run = backend.prepare(random_operands(problem, args->seed));
    for (int i = 0; i < args->calls; ++i) run->run();
    run->synchronize();
    fmt::print("ran {} call(s) of {} on {}\n", args->calls, backend.name(), problem.describe());
  });
}

}  // namespace fp4gemm::cli
