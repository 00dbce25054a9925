// fp4gemm quantize: a 2-D fp32/fp16 .npy -> NVFP4/MXFP4 safetensors with ModelOpt tensor names.
#include <fmt/format.h>

#include <cmath>

#include "commands.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "fp4gemm/quantize.hpp"

namespace fp4gemm::cli {
namespace {

struct QuantizeArgs {
  std::string input, output;
  std::string format = "nvfp4";
  std::string scale_layout = "linear";
  std::optional<float> scale_2, global_sf;
  bool force = false;
};

}  // namespace

void add_quantize_command(CLI::App& app) {
  auto args = std::make_shared<QuantizeArgs>();
  auto* cmd = app.add_subcommand("quantize", "Quantize a 2-D .npy (fp32/fp16) to NVFP4/MXFP4 safetensors");
  cmd->add_option("--input", args->input, "Input .npy, rows x K")->required();
  cmd->add_option("--output", args->output, "Output .safetensors (weight, weight_scale, weight_scale_2)")
      ->required();
  cmd->add_option("--format", args->format, "nvfp4 (E4M3 per 16) or mxfp4 (E8M0 per 32)");
  cmd->add_option("--scale-layout", args->scale_layout, "linear (ModelOpt) or swizzled (128x4)");
  cmd->add_option("--scale-2", args->scale_2, "NVFP4 tensor scale to use instead of amax/2688");
  cmd->add_option("--global-sf", args->global_sf, "The same as FlashInfer spells it: 1 / scale_2");
  cmd->add_flag("--force", args->force, "Replace an existing --output");
  cmd->callback([args] {
    require_output_writable(args->output, args->force, "--output");  // before the quantization
    const HostMatrix x = read_npy_matrix(args->input, "--input");
    QuantizeOptions options;
    options.format = parse_fp4_format(args->format, "--format");
    options.scale_layout = parse_scale_layout(args->scale_layout, "--scale-layout");
    options.scale_2 = args->scale_2;
    options.global_sf = args->global_sf;
    const Fp4Tensor q = quantize(x, options);
    write_fp4_safetensors(args->output, q, args->force, "--output");

    // What the user lost: the round-trip error, as the rule of thumb they will compare with.
    const std::vector<float> original = x.to_f32();
    const std::vector<float> restored = dequantize(q);
    double error_sq = 0, norm_sq = 0;
    for (std::size_t i = 0; i < original.size(); ++i) {
      error_sq += double(restored[i] - original[i]) * double(restored[i] - original[i]);
      norm_sq += double(original[i]) * double(original[i]);
    }
    fmt::print("{}: {} x {} {} -> {} ({} scales, {} layout, scale_2 = {:.9g}); {} bytes; "
               "round-trip ||x - dq(q(x))|| / ||x|| = {:.4f}\n",
               args->output, q.rows, q.cols, to_string(x.dtype), to_string(q.format),
               q.format == Fp4Format::nvfp4 ? "E4M3 per 16" : "E8M0 per 32", to_string(q.scale_layout),
               q.scale_2, q.data.size() + q.scales.size() + 4,
               norm_sq > 0 ? std::sqrt(error_sq / norm_sq) : 0.0);
  });
}

}  // namespace fp4gemm::cli
