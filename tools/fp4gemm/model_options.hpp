#pragma once
// The model options shared by `shapes`, `bench --model` and `plan`: which model (--model preset
// or --config file, --quant-config), MoE routing (--routing, seeded by --seed) and MTP passes.
#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "fp4gemm/model.hpp"
#include "fp4gemm/routing.hpp"

namespace fp4gemm::cli {

struct ModelArgs {
  std::string model, config, quant_config;
  std::string routing = "balanced";
  int mtp_passes = 0;
  bool given() const { return !model.empty() || !config.empty(); }
};

// --model, --config, --quant-config; with `workload`, also --routing and --mtp-passes.
void add_model_options(CLI::App& cmd, ModelArgs& args, bool workload);
// Exactly one of --model and --config (InvalidArgument otherwise); --quant-config applied.
ModelConfig load_model(const ModelArgs& args);
// "balanced", "uniform", "zipf:S" (S >= 0); InvalidArgument naming --routing otherwise.
Routing parse_routing(const std::string& text, std::uint64_t seed);

}  // namespace fp4gemm::cli
