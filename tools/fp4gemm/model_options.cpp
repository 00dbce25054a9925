#include "model_options.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm::cli {
namespace {

std::string preset_help() {
  std::string text = "Built-in model:";
  for (const ModelPreset& p : model_presets()) text += fmt::format("\n  {:<16} {}", p.name, p.description);
  return text;
}

}  // namespace

void add_model_options(CLI::App& cmd, ModelArgs& args, bool workload) {
  cmd.add_option("--model", args.model, preset_help());
  cmd.add_option("--config", args.config, "A Hugging Face config.json of a supported architecture");
  cmd.add_option("--quant-config", args.quant_config,
                 "A ModelOpt hf_quant_config.json whose exclude_modules decide which GEMMs are fp4");
  if (!workload) return;
  cmd.add_option("--routing", args.routing,
                 "MoE routing of the batch's tokens: balanced, uniform or zipf:S (seeded by --seed)");
  cmd.add_option("--mtp-passes", args.mtp_passes, "MTP layer runs per forward (default 0: no speculative decoding)");
}

ModelConfig load_model(const ModelArgs& args) {
  require(args.model.empty() != args.config.empty(),
          "give exactly one of --model (a preset) and --config (a config.json)");
  ModelConfig model = args.model.empty() ? read_model_config(args.config, "--config") : preset_model(args.model);
  if (!args.quant_config.empty()) model.fp4 = read_hf_quant_config(args.quant_config, "--quant-config");
  return model;
}

Routing parse_routing(const std::string& text, std::uint64_t seed) {
  Routing r;
  r.seed = seed;
  if (text == "balanced") return r;
  if (text == "uniform") {
    r.kind = RoutingKind::uniform;
    return r;
  }
  r.kind = RoutingKind::zipf;
  const std::string_view s = std::string_view(text).substr(text.starts_with("zipf:") ? 5 : 0);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), r.zipf_s);
  require(text.starts_with("zipf:") && ec == std::errc() && end == s.data() + s.size() && std::isfinite(r.zipf_s) &&
              r.zipf_s >= 0,
          "--routing = '{}' is none of balanced, uniform, zipf:S (S a number >= 0, e.g. zipf:1.2)", text);
  return r;
}

}  // namespace fp4gemm::cli
