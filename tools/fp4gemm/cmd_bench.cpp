// fp4gemm bench: time backends on a preset's shapes or on -m/-n/-k, print a table with each
// result's roofline verdict, and write JSON/CSV/Markdown. Defaults: the seed preset's shapes,
// NVFP4, w4a16 and w4a4, the backends of the best device present.
#include <fmt/format.h>

#include "backend_selection.hpp"
#include "bench/bench_runner.hpp"
#include "commands.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "report/bench_report.hpp"
#include "shape_list.hpp"

namespace fp4gemm::cli {
namespace {

struct BenchArgs {
  std::vector<std::string> m, n, k;
  std::vector<std::string> backends;
  std::vector<std::string> modes{"w4a16", "w4a4"};
  std::string format = "nvfp4";
  std::string out_dtype = "bf16";
  std::string scale_layout = "linear";
  std::string json_path, csv_path, markdown_path;
  bool force = false;
  std::uint64_t seed = 1;
  double max_seconds = 1.0;
};

// The default shapes until a model is given: the seed investigation's per-GPU GEMMs of GLM-5
// under TP8 (DESIGN.md), at decode and prefill batch sizes.
struct PresetShape {
  std::int64_t n, k;
  const char* description;
};
constexpr PresetShape kSeedShapes[] = {
    {768, 6144, "GLM-5 TP8 attention projection 6144 -> 768 (seed)"},
    {2048, 6144, "GLM-5 TP8 MoE up-projection (seed)"},
};
constexpr std::int64_t kSeedBatches[] = {1, 16, 64, 256, 512};

std::vector<BenchCase> build_cases(const BenchArgs& args) {
  const Fp4Format format = parse_fp4_format(args.format, "--format");
  const ScaleLayout layout = parse_scale_layout(args.scale_layout, "--scale-layout");
  const DType out = parse_dtype(args.out_dtype, "--out-dtype");
  std::vector<Mode> modes;
  for (const auto& m : args.modes) modes.push_back(parse_mode(m, "--mode"));
  require(args.n.empty() == args.k.empty(), "-n and -k go together (give both or neither)");

  std::vector<std::int64_t> batches = parse_positive_list(args.m, "-m");
  if (batches.empty()) batches.assign(std::begin(kSeedBatches), std::end(kSeedBatches));
  std::vector<std::pair<GemmShape, std::string>> shapes;  // (N, K) with M = 0, description
  if (args.n.empty()) {
    for (const PresetShape& p : kSeedShapes) shapes.push_back({{0, p.n, p.k}, p.description});
  } else {
    for (std::int64_t n : parse_positive_list(args.n, "-n"))
      for (std::int64_t k : parse_positive_list(args.k, "-k")) shapes.push_back({{0, n, k}, ""});
  }
  std::vector<BenchCase> cases;
  for (const auto& [nk, description] : shapes)
    for (Mode mode : modes)
      for (std::int64_t m : batches) {
        const GemmShape shape{m, nk.n, nk.k};
        validate_shape(shape, format);
        cases.push_back({GemmProblem{shape, mode, format, layout, out}, description});
      }
  return cases;
}

// The datasheet ceilings of the GPU when one is present, else of the CPU (none known).
Ceilings best_device_ceilings() {
  const std::vector<GpuInfo> gpus = query_gpus();
  return lookup_ceilings(gpus.empty() ? query_cpu().model : gpus.front().name);
}

void write_output(const std::string& path, const std::string& text, bool force, std::string_view argument) {
  if (path == "-") {
    fmt::print("{}", text);
    return;
  }
  write_file_atomically(path, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()),
                        force, argument);
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Time GEMM backends on a preset or on given shapes");
  cmd->add_option("-m", args->m, "Batch sizes M (default 1,16,64,256,512)")->delimiter(',');
  cmd->add_option("-n", args->n, "Output features N (with -k; default: the preset's shapes)")->delimiter(',');
  cmd->add_option("-k", args->k, "Reduction size K (with -n)")->delimiter(',');
  cmd->add_option("--backend", args->backends,
                  "Backends to time (default: the available ones of the best device; 'all')")
      ->delimiter(',');
  cmd->add_option("--mode", args->modes, "Modes: w4a16,w4a4")->delimiter(',');
  cmd->add_option("--format", args->format, "FP4 format: nvfp4 or mxfp4");
  cmd->add_option("--out-dtype", args->out_dtype, "Output dtype: bf16, f16 or f32");
  cmd->add_option("--scale-layout", args->scale_layout, "Scale layout: linear or swizzled");
  cmd->add_option("--json", args->json_path, "Write results as JSON to this file ('-': stdout)");
  cmd->add_option("--csv", args->csv_path, "Write results as CSV to this file ('-': stdout)");
  cmd->add_option("--markdown", args->markdown_path, "Write results as a Markdown table to this file ('-': stdout)");
  cmd->add_flag("--force", args->force, "Replace existing --json/--csv/--markdown files");
  cmd->add_option("--seed", args->seed, "Seed of the random operands");
  cmd->add_option("--max-seconds", args->max_seconds, "Time limit per measurement (seconds)");
  cmd->callback([args] {
    const std::vector<BenchCase> cases = build_cases(*args);
    const std::vector<const Backend*> backends =
        select_backends(args->backends, DefaultBackends::best_device);
    require(args->max_seconds > 0, "--max-seconds = {} must be positive", args->max_seconds);
    TimingOptions timing;
    timing.max_seconds = args->max_seconds;
    timing.min_seconds = std::min(timing.min_seconds, args->max_seconds);
    const std::string device = describe_best_device();
    const Ceilings ceilings = best_device_ceilings();
    fmt::print(stderr, "fp4gemm bench: {} case(s) x {} backend(s) on {}\nceilings: {}\n", cases.size(),
               backends.size(), device, ceilings.describe());
    const auto rows = run_bench(cases, backends, timing, args->seed, ceilings);
    fmt::print("{}", bench_table(rows));
    const BenchContext context{command_line(), device, timing, ceilings};
    if (!args->json_path.empty())
      write_output(args->json_path, bench_json(rows, context).dump(2) + "\n", args->force, "--json");
    if (!args->csv_path.empty()) write_output(args->csv_path, bench_csv(rows), args->force, "--csv");
    if (!args->markdown_path.empty())
      write_output(args->markdown_path, bench_markdown(rows, context), args->force, "--markdown");
  });
}

}  // namespace fp4gemm::cli
