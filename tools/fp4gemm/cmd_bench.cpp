// fp4gemm bench: time backends on a preset's shapes, on -m/-n/-k, or on every GEMM one GPU runs
// per forward of a model (--model/--config under --tp/--pp/--ep at --batch sizes, with per-layer
// and per-forward totals: model_bench.hpp), or the MoE grouped GEMM (--grouped: grouped_bench.hpp);
// print a table with each result's roofline verdict, and write JSON/CSV/Markdown; --explain
// prints auto's choice of kernel per case. Defaults: the seed preset's shapes, NVFP4, w4a16 and
// w4a4, the backends of the best device present.
#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "backend_selection.hpp"
#include "bench/bench_runner.hpp"
#include "bench/ceilings_cache.hpp"
#include "bench/ceilings_choice.hpp"
#include "bench/power_monitor.hpp"
#include "commands.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "report/bench_plot.hpp"
#include "report/bench_report.hpp"
#include "report/dispatch_report.hpp"
#include "report/progress.hpp"
#include "grouped_bench.hpp"
#include "model_bench.hpp"
#include "model_options.hpp"
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
  std::string json_path, csv_path, markdown_path, plot_path;
  std::string ceilings = "auto";
  bool force = false;
  bool explain = false;
  std::uint64_t seed = 1;
  double max_seconds = 1.0;
  std::string timing = "graph";
  std::string cache = "cold";
  ModelArgs model;
  int tp = 1, pp = 1, ep = 1;
  std::vector<std::string> batches;
  GroupedArgs grouped;
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

std::vector<Mode> parse_modes(const BenchArgs& args) {
  std::vector<Mode> modes;
  for (const auto& m : args.modes) modes.push_back(parse_mode(m, "--mode"));
  return modes;
}

// The model run, or nothing without --model/--config; InvalidArgument for options that belong
// to the other kind of run.
std::optional<ModelBench> model_bench(const BenchArgs& args, const CLI::App& cmd,
                                      const std::vector<const Backend*>& backends) {
  if (!args.model.given()) {
    for (const char* option : {"--batch", "--tp", "--pp", "--ep", "--routing", "--mtp-passes", "--quant-config"})
      require(cmd.count(option) == 0 || (args.grouped.enabled && std::string_view(option) == "--routing"),
              "{} needs --model or --config (it describes a model's run)", option);
    return std::nullopt;
  }
  for (const char* option : {"-m", "-n", "-k"})
    require(cmd.count(option) == 0,
            "{} cannot go with --model/--config: the model gives N and K, and --batch the batch sizes", option);
  ModelBench mb;
  mb.model = load_model(args.model);
  mb.plan = {args.tp, args.pp, args.ep};
  mb.batches = parse_positive_list(args.batches, "--batch");
  if (mb.batches.empty()) mb.batches.assign(std::begin(kSeedBatches), std::end(kSeedBatches));
  mb.work.routing = parse_routing(args.model.routing, args.seed);
  mb.work.mtp_passes = args.model.mtp_passes;
  mb.routing = args.model.routing;
  for (const Backend* b : backends) mb.backends.emplace_back(b->name());
  mb.modes = parse_modes(args);
  return mb;
}

std::vector<BenchCase> build_cases(const BenchArgs& args, const std::optional<ModelBench>& model) {
  const Fp4Format format = parse_fp4_format(args.format, "--format");
  const ScaleLayout layout = parse_scale_layout(args.scale_layout, "--scale-layout");
  const DType out = parse_dtype(args.out_dtype, "--out-dtype");
  if (model) return model_bench_cases(*model, format, layout, out);
  const std::vector<Mode> modes = parse_modes(args);
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

// The grouped run, or nothing without --grouped; InvalidArgument for options of other runs.
std::optional<GroupedBench> grouped_run(const BenchArgs& args, const CLI::App& cmd) {
  if (!args.grouped.enabled) {
    for (const char* option : {"--experts", "--tokens-per-expert"})
      require(cmd.count(option) == 0, "{} needs --grouped", option);
    return std::nullopt;
  }
  require(!args.model.given(), "--grouped cannot go with --model/--config (bench --model times a model's GEMMs)");
  require(cmd.count("-m") == 0, "-m cannot go with --grouped: --tokens-per-expert gives the tokens");
  GroupedGemmOptions gemm;
  gemm.n = parse_positive_list(args.n, "-n");
  gemm.k = parse_positive_list(args.k, "-k");
  gemm.modes = parse_modes(args);
  gemm.format = parse_fp4_format(args.format, "--format");
  gemm.scale_layout = parse_scale_layout(args.scale_layout, "--scale-layout");
  gemm.out_dtype = parse_dtype(args.out_dtype, "--out-dtype");
  gemm.routing = parse_routing(args.model.routing, args.seed);
  gemm.routing_name = args.model.routing;
  return grouped_bench(args.grouped, gemm, args.backends);
}

// --explain prints auto's choices: some backend of the run must be one that dispatches.
void require_dispatching_backend(const std::vector<const Backend*>& backends, const BenchCase& first) {
  const bool dispatching = std::any_of(backends.begin(), backends.end(), [&](const Backend* b) {
    return b->dispatch(first.problem).has_value();
  });
  require(dispatching, "--explain prints which kernel auto picks for each case: run auto (--backend "
                       "auto, or with the others; `fp4gemm backends` says whether it is available here)");
}

// The ceilings of the GPU when one is present, else of the CPU (none known), as --ceilings
// `choice` says (bench/ceilings_choice.hpp: measured when cached, else the datasheet's).
Ceilings best_device_ceilings(const std::string& choice) {
  const std::vector<GpuInfo> gpus = query_gpus();
  std::optional<CeilingsKey> gpu;
  if (!gpus.empty()) gpu = ceilings_key(gpus.front());
  return choose_ceilings(choice, gpu, query_cpu().model);
}

void write_output(const std::string& path, const std::string& text, bool force, std::string_view argument) {
  if (path == "-") {
    fmt::print("{}", text);
    return;
  }
  write_text_atomically(path, text, force, argument);
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
  cmd->add_option("--plot", args->plot_path,
                  "Draw a roofline and time-versus-M per backend into this SVG file");
  cmd->add_flag("--force", args->force, "Replace existing --json/--csv/--markdown/--plot files");
  cmd->add_option("--ceilings", args->ceilings,
                  "Roofline ceilings: auto (measured by `fp4gemm ceilings` when cached for this GPU "
                  "and driver, else datasheet), datasheet, measured, or a `ceilings --json` FILE");
  cmd->add_flag("--explain", args->explain,
                "Before the table, print for each case which kernel auto picked and why (its "
                "table row, the candidates that refused and their reasons)");
  cmd->add_option("--seed", args->seed, "Seed of the random operands");
  cmd->add_option("--max-seconds", args->max_seconds, "Time limit per measurement (seconds)");
  cmd->add_option("--timing", args->timing,
                  "GPU timing: graph (CUDA-graph replay, launch overhead out), stream (back-to-back "
                  "calls) or single (one call per sample, launch latency in); CPU: always stream");
  cmd->add_option("--cache", args->cache,
                  "GPU cache state: cold (operand sets rotated, working set >= 3x the L2) or hot "
                  "(one operand set); CPU: always hot");
  add_model_options(*cmd, args->model, true);
  cmd->add_option("--tp", args->tp, "With --model: tensor-parallel GPUs (default 1)");
  cmd->add_option("--pp", args->pp, "With --model: pipeline stages (default 1)");
  cmd->add_option("--ep", args->ep, "With --model: expert-parallel GPUs (default 1)");
  cmd->add_option("--batch", args->batches, "With --model: batch sizes in tokens (default 1,16,64,256,512)")
      ->delimiter(',');
  add_grouped_options(*cmd, args->grouped);
  cmd->callback([args, cmd] {
    const std::optional<GroupedBench> grouped = grouped_run(*args, *cmd);
    const std::vector<const Backend*> backends =
        grouped ? std::vector<const Backend*>{} : select_backends(args->backends, DefaultBackends::best_device);
    const std::optional<ModelBench> model = model_bench(*args, *cmd, backends);
    const std::vector<BenchCase> cases = grouped ? std::vector<BenchCase>{} : build_cases(*args, model);
    if (args->explain && !cases.empty()) require_dispatching_backend(backends, cases.front());
    // Before the measurements, so that a refused output does not waste them.
    for (const auto& [path, argument] : {std::pair{args->json_path, "--json"}, {args->csv_path, "--csv"},
                                         {args->markdown_path, "--markdown"}, {args->plot_path, "--plot"}})
      if (!path.empty() && path != "-") require_output_writable(path, args->force, argument);
    TimingOptions timing = timing_with_limit(args->max_seconds, "--max-seconds");
    timing.method = parse_timing_method(args->timing, "--timing");
    timing.cache = parse_cache_state(args->cache, "--cache");
    const std::string device = describe_best_device();
    const Ceilings ceilings = best_device_ceilings(args->ceilings);
    const std::size_t row_count = grouped ? grouped->rows() : cases.size() * backends.size();
    fmt::print(stderr, "fp4gemm bench: {} row(s) on {}\nceilings: {}\n", row_count, device,
               ceilings.describe());
    const bool any_w4a4 = std::any_of(cases.begin(), cases.end(),
                                      [](const BenchCase& c) { return c.problem.mode == Mode::w4a4; });
    if (any_w4a4 && any_gpu_backend(backends))
      fmt::print(stderr, "w4a4: the cuda-* kernels quantize the bf16 activations on the GPU inside "
                         "every timed call (a quantization kernel before the GEMM; cuda-decode at M = 1 "
                         "and N <= 4096: inside the GEMM kernel); the cuBLAS baselines get A dequantized "
                         "once, before timing\n");
    std::optional<PowerMonitor> power;
    if (grouped || any_gpu_backend(backends)) {
      power.emplace();
      fmt::print(stderr, "{}\n", power->status());
    }
    ProgressLine progress(row_count);
    const auto on_row = [&](const BenchRow& row) { progress.row_done(row); };
    const auto rows = grouped ? run_grouped_bench(grouped->cases, grouped->backends, grouped->dense, timing,
                                                  args->seed, ceilings, on_row, &*power)
                              : run_bench(cases, backends, timing, args->seed, ceilings, on_row,
                                          power ? &*power : nullptr);
    progress.finish();
    if (args->explain) fmt::print("{}", explain_dispatch(rows));
    fmt::print("{}\n{}{}", timing_header(timing), describe_named_only(backends), bench_table(rows));
    const BenchTimes times = BenchTimes::from_rows(rows, "this run");
    if (model) fmt::print("{}", model_bench_table(*model, times));
    const BenchContext context{command_line(), device, timing, ceilings};
    if (!args->json_path.empty()) {
      nlohmann::json json = bench_json(rows, context);
      if (model) json["model"] = model_bench_json(*model, times);
      write_output(args->json_path, json.dump(2) + "\n", args->force, "--json");
    }
    if (!args->csv_path.empty()) write_output(args->csv_path, bench_csv(rows), args->force, "--csv");
    if (!args->markdown_path.empty())
      write_output(args->markdown_path, bench_markdown(rows, context), args->force, "--markdown");
    if (!args->plot_path.empty()) write_bench_plot(args->plot_path, rows, context, args->force);
  });
}

}  // namespace fp4gemm::cli
