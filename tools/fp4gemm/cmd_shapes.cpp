// fp4gemm shapes: the GEMMs one GPU runs per forward of a model under a parallelism plan
// (name, kind, N, K, count per layer, layers, fp4, sharding), as a table or JSON.
#include <fmt/format.h>

#include "commands.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/model.hpp"
#include "fp4gemm/parallel.hpp"
#include "model/shapes_report.hpp"

namespace fp4gemm::cli {
namespace {

struct ShapesArgs {
  std::string model, config, quant_config;
  int tp = 1, pp = 1, ep = 1;
  bool json = false;
};

std::string preset_help() {
  std::string text = "Built-in model:";
  for (const ModelPreset& p : model_presets()) text += fmt::format("\n  {:<16} {}", p.name, p.description);
  return text;
}

void run_shapes(const ShapesArgs& args) {
  require(args.model.empty() != args.config.empty(),
          "give exactly one of --model (a preset) and --config (a config.json)");
  ModelConfig model = args.model.empty() ? read_model_config(args.config, "--config") : preset_model(args.model);
  if (!args.quant_config.empty()) model.fp4 = read_hf_quant_config(args.quant_config, "--quant-config");
  const ParallelPlan plan{args.tp, args.pp, args.ep};
  const std::vector<Stage> stages = per_gpu_gemms(model, plan);
  if (args.json) fmt::print("{}\n", shapes_json(model, plan, stages).dump(2));
  else fmt::print("{}", shapes_table(model, plan, stages));
}

}  // namespace

void add_shapes_command(CLI::App& app) {
  auto args = std::make_shared<ShapesArgs>();
  auto* cmd = app.add_subcommand("shapes", "List the GEMMs one GPU runs per forward of a model under TP/PP/EP");
  cmd->add_option("--model", args->model, preset_help());
  cmd->add_option("--config", args->config, "A Hugging Face config.json of a supported architecture");
  cmd->add_option("--quant-config", args->quant_config,
                  "A ModelOpt hf_quant_config.json whose exclude_modules decide the fp4 column");
  cmd->add_option("--tp", args->tp, "Tensor-parallel GPUs (default 1)");
  cmd->add_option("--pp", args->pp, "Pipeline stages (default 1)");
  cmd->add_option("--ep", args->ep,
                  "Expert-parallel GPUs (default 1); ep > tp runs attention data-parallel over ep/tp replicas");
  cmd->add_flag("--json", args->json, "Print JSON instead of the table");
  cmd->callback([args] { run_shapes(*args); });
}

}  // namespace fp4gemm::cli
