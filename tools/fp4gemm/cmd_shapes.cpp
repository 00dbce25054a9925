// fp4gemm shapes: the GEMMs one GPU runs per forward of a model under a parallelism plan
// (name, kind, N, K, count per layer, layers, fp4, sharding), as a table or JSON.
#include <fmt/format.h>

#include "commands.hpp"
#include "fp4gemm/model.hpp"
#include "fp4gemm/parallel.hpp"
#include "model/shapes_report.hpp"
#include "model_options.hpp"

namespace fp4gemm::cli {
namespace {

struct ShapesArgs {
  ModelArgs model;
  int tp = 1, pp = 1, ep = 1;
  bool json = false;
};

void run_shapes(const ShapesArgs& args) {
  const ModelConfig model = load_model(args.model);
  const ParallelPlan plan{args.tp, args.pp, args.ep};
  const std::vector<Stage> stages = per_gpu_gemms(model, plan);
  if (args.json) fmt::print("{}\n", shapes_json(model, plan, stages).dump(2));
  else fmt::print("{}", shapes_table(model, plan, stages));
}

}  // namespace

void add_shapes_command(CLI::App& app) {
  auto args = std::make_shared<ShapesArgs>();
  auto* cmd = app.add_subcommand("shapes", "List the GEMMs one GPU runs per forward of a model under TP/PP/EP");
  add_model_options(*cmd, args->model, false);
  cmd->add_option("--tp", args->tp, "Tensor-parallel GPUs (default 1)");
  cmd->add_option("--pp", args->pp, "Pipeline stages (default 1)");
  cmd->add_option("--ep", args->ep,
                  "Expert-parallel GPUs (default 1); ep > tp runs attention data-parallel over ep/tp replicas");
  cmd->add_flag("--json", args->json, "Print JSON instead of the table");
  cmd->callback([args] { run_shapes(*args); });
}

}  // namespace fp4gemm::cli
