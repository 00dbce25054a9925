// fp4gemm gemm: D = A B^T from files. A is M x K (.npy; or an FP4 .safetensors for w4a4), B is
// N x K (.npy, quantized here; or an FP4 .safetensors from `fp4gemm quantize`). D is written as
// an fp32 .npy.
#include <fmt/format.h>

#include "backend_selection.hpp"
#include "commands.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "fp4gemm/layout.hpp"
#include "fp4gemm/quantize.hpp"

namespace fp4gemm::cli {
namespace {

struct GemmArgs {
  std::string a, b, out;
  std::string mode = "w4a16";
  std::string format = "nvfp4";
  std::string scale_layout = "linear";
  std::string backend;
  float alpha = 1.0f;
  bool force = false;
};

bool is_safetensors(const std::string& path) {
  return path.size() > 12 && path.substr(path.size() - 12) == ".safetensors";
}

// An FP4 operand from either kind of file.
Fp4Tensor load_fp4(const std::string& path, std::string_view argument, const QuantizeOptions& options) {
  if (is_safetensors(path)) return read_fp4_safetensors(path, argument);
  return quantize(read_npy_matrix(path, argument), options);
}

}  // namespace

void add_gemm_command(CLI::App& app) {
  auto args = std::make_shared<GemmArgs>();
  auto* cmd = app.add_subcommand("gemm", "Multiply D = A B^T from files (A: M x K, B: N x K)");
  cmd->add_option("--a", args->a, "A, M x K: .npy (fp32/fp16), or .safetensors (FP4, w4a4)")->required();
  cmd->add_option("--b", args->b, "B, N x K: .npy (quantized here) or .safetensors from `quantize`")
      ->required();
  cmd->add_option("--out", args->out, "D, M x N fp32 .npy")->required();
  cmd->add_option("--mode", args->mode, "w4a4 (A quantized too) or w4a16 (A rounded to bf16)");
  cmd->add_option("--format", args->format, "FP4 format used to quantize .npy inputs: nvfp4 or mxfp4");
  cmd->add_option("--scale-layout", args->scale_layout, "Scale layout for quantized .npy inputs");
  cmd->add_option("--backend", args->backend, "Backend (default: the best available)");
  cmd->add_option("--alpha", args->alpha, "Extra factor on D");
  cmd->add_flag("--force", args->force, "Replace an existing --out");
  cmd->callback([args] {
    QuantizeOptions options;
    options.format = parse_fp4_format(args->format, "--format");
    options.scale_layout = parse_scale_layout(args->scale_layout, "--scale-layout");
    require_output_writable(args->out, args->force, "--out");  // before the GEMM
    GemmOperands ops;
    ops.problem.mode = parse_mode(args->mode, "--mode");
    ops.alpha = args->alpha;
    ops.b = load_fp4(args->b, "--b", options);
    if (ops.problem.mode == Mode::w4a4) {
      ops.a_fp4 = with_scale_layout(load_fp4(args->a, "--a", {ops.b.format, ops.b.scale_layout, {}, {}}),
                                    ops.b.scale_layout);
      require(ops.a_fp4.format == ops.b.format, "--a is {} but --b is {}: both must be the same format",
              to_string(ops.a_fp4.format), to_string(ops.b.format));
    } else {
      require(!is_safetensors(args->a),
              "--a '{}' is FP4; --mode w4a16 takes A in high precision (.npy), or use --mode w4a4", args->a);
      ops.a_bf16 = read_npy_matrix(args->a, "--a").converted(DType::bf16);
    }
    const std::int64_t m = ops.problem.mode == Mode::w4a4 ? ops.a_fp4.rows : ops.a_bf16.rows;
    const std::int64_t k_a = ops.problem.mode == Mode::w4a4 ? ops.a_fp4.cols : ops.a_bf16.cols;
    require(k_a == ops.b.cols, "--a has K = {} columns but --b has K = {} (B is N x K, D = A B^T)", k_a,
            ops.b.cols);
    ops.problem.shape = {m, ops.b.rows, ops.b.cols};
    ops.problem.format = ops.b.format;
    ops.problem.scale_layout = ops.b.scale_layout;
    ops.problem.out_dtype = DType::f32;
    ops.validate();

    const std::vector<std::string> names =
        args->backend.empty() ? std::vector<std::string>{} : std::vector<std::string>{args->backend};
    const Backend* backend = nullptr;
    for (const Backend* candidate : select_backends(names, DefaultBackends::best_device)) {
      if (candidate->can_implement(ops.problem)) {
        backend = candidate;
        break;
      }
      require(args->backend.empty(), "--backend {} cannot compute {}: {}", args->backend,
              ops.problem.describe(), candidate->can_implement(ops.problem).reason);
    }
    require(backend != nullptr, "no available backend can compute {}", ops.problem.describe());
    auto run = backend->prepare(ops);
    run->run();
    run->synchronize();
    write_npy(args->out, HostMatrix::from_f32(m, ops.b.rows, run->output()), args->force, "--out");
    fmt::print("{}: D = {} on {}\n", args->out, ops.problem.describe(), backend->name());
  });
}

}  // namespace fp4gemm::cli
