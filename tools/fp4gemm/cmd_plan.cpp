// fp4gemm plan: compare parallelism plans of a model on a number of GPUs (plan_estimate.hpp):
// per-GPU GEMM time per forward from measured kernels (timed now with one backend, or looked up
// in a bench JSON), communication per layer on a link (a datasheet one, or one fitted to
// measured collectives: --link-from), the pipeline bubble, and the verdict: compute- or
// communication-bound, and which plan wins by how much. With --measure, each plan's layer runs
// on this host's GPUs instead and is compared with the prediction (plan_measure.hpp).
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backend_selection.hpp"
#include "bench/bench_runner.hpp"
#include "cluster/link_fit.hpp"
#include "commands.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "model/bench_times.hpp"
#include "model/json_fields.hpp"
#include "model_options.hpp"
#include "plan_json.hpp"
#include "plan_measure.hpp"
#include "report/text_table.hpp"
#include "shape_list.hpp"

namespace fp4gemm::cli {
namespace {

struct PlanArgs {
  ModelArgs model;
  std::optional<int> gpus;
  std::vector<std::string> compare, batches{"1", "64", "256"};
  std::string from, backend, mode = "w4a16", link = "nvlink4", link_from;
  std::uint64_t seed = 1;
  double max_seconds = 0.5;
  std::string json_path;
  bool force = false;
  // --measure and its options (CLI11 counts say which were given).
  bool measure = false;
  MeasureSettings settings;
  CLI::App* cmd = nullptr;
  bool given(const char* option) const { return cmd->count(option) > 0; }
};

// The plans of --compare, each split-checked against the model; with `gpus`, each must use that
// many GPUs (plain plan; --measure checks them against the GPUs of the run instead).
std::vector<ParallelPlan> parse_plans(const PlanArgs& args, const ModelConfig& model, std::optional<int> gpus) {
  std::vector<ParallelPlan> plans;
  for (const std::string& text : args.compare) {
    const ParallelPlan p = parse_plan(text, "--compare");
    require(!gpus || p.gpus() == *gpus, "--compare: plan '{}' uses {} GPUs, not --gpus = {}", text, p.gpus(),
            gpus.value_or(0));
    validate_plan(model, p);
    plans.push_back(p);
  }
  return plans;
}

Workload workload(const PlanArgs& args, std::int64_t tokens) {
  Workload w;
  w.tokens = tokens;
  w.routing = parse_routing(args.model.routing, args.seed);
  w.mtp_passes = args.model.mtp_passes;
  return w;
}

// Every distinct GEMM the plans ask about, timed now on `backend` (NVFP4, linear scales, bf16 out).
BenchTimes measure(const PlanArgs& args, const ModelConfig& model, const std::vector<ParallelPlan>& plans,
                   const std::vector<std::int64_t>& batches, const Backend* backend) {
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> seen;
  std::vector<BenchCase> cases;
  for (const ParallelPlan& p : plans)
    for (std::int64_t t : batches)
      for (const GemmCall& c : required_gemm_calls(model, p, workload(args, t)))
        if (seen.insert({c.shape.m, c.shape.n, c.shape.k}).second)
          cases.push_back({GemmProblem{c.shape, parse_mode(args.mode, "--mode"), Fp4Format::nvfp4,
                                       ScaleLayout::linear, DType::bf16},
                           ""});
  const TimingOptions timing = timing_with_limit(args.max_seconds, "--max-seconds");
  fmt::print(stderr, "fp4gemm plan: timing {} GEMM(s) on {} ({})\n", cases.size(), backend->name(),
             describe_best_device());
  return BenchTimes::from_rows(run_bench(cases, {backend}, timing, args.seed, Ceilings{}), "this run");
}

// The bench JSON of --from, and its backend: --backend, or the only one the file has.
std::pair<BenchTimes, std::string> load_times(const PlanArgs& args) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(args.from, "--from");
  const std::string source = fmt::format("--from '{}'", args.from);
  BenchTimes times = BenchTimes::from_json(
      model_detail::parse_json_object(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                                      source),
      source);
  if (!args.backend.empty()) return {std::move(times), args.backend};
  const std::vector<std::string> names = times.backends();
  require(names.size() == 1, "{} has rows of {} backends ({}): pick one with --backend", source, names.size(),
          fmt::join(names, ", "));
  return {std::move(times), names.front()};
}

std::string seconds_text(double s) { return fmt::format("{:.1f}", s * 1e6); }

std::string plans_table(const ModelConfig& model, const PlanComparison& c, std::int64_t tokens) {
  TextTable table({{"plan"}, {"GPUs", TextTable::Align::right}, {"micro-batches", TextTable::Align::right},
                   {"GEMM us", TextTable::Align::right}, {"comm us", TextTable::Align::right},
                   {"comm us/layer", TextTable::Align::right}, {"bubble us", TextTable::Align::right},
                   {"forward us", TextTable::Align::right}, {"tokens/s/GPU", TextTable::Align::right}, {"bound"}});
  for (const PlanEstimate& e : c.ranked) {
    table.add_row({to_string(e.plan), std::to_string(e.plan.gpus()), std::to_string(e.microbatches),
                   seconds_text(e.gemm_s), seconds_text(e.comm_s), seconds_text(comm_seconds_per_layer(model, e)),
                   seconds_text(e.bubble_s), seconds_text(e.forward_s),
                   fmt::format("{:.1f}", e.tokens_per_second(tokens) / e.plan.gpus()),
                   e.compute_bound() ? "compute" : "communication"});
  }
  return table.render();
}

// --link, or the link fitted to the collectives of --link-from (not both).
Link chosen_link(const PlanArgs& args) {
  if (args.link_from.empty()) return find_link(args.link);
  require(!args.given("--link"), "--link and --link-from both name the link; pass one");
  return read_measured_link(args.link_from);
}

void run_measure(const PlanArgs& args, const ModelConfig& model, const std::vector<std::int64_t>& batches) {
  require(!args.given("--max-seconds"), "--max-seconds times the kernels of plain plan; --measure times its layers "
          "with --iters and --warmup");
  PlanMeasureInput in;
  in.model = model;
  in.plans = parse_plans(args, model, std::nullopt);
  in.batches = batches;
  in.work = workload(args, 1);
  in.link = chosen_link(args);
  in.settings = args.settings;
  in.settings.sweep.gpus = args.gpus;
  in.settings.sweep.iters = args.settings.iters;
  in.settings.sweep.warmup = args.settings.warmup;
  in.settings.mode = parse_mode(args.mode, "--mode");
  in.settings.seed = args.seed;
  in.backend_named = !args.backend.empty();
  in.settings.backend = args.backend.empty() ? "auto" : args.backend;
  if (!args.from.empty()) {
    auto [times, backend] = load_times(args);
    in.from_times = std::move(times);
    in.from_backend = backend;
    in.from_path = args.from;
  }
  in.json_path = args.json_path;
  in.force = args.force;
  run_plan_measure(in);
}

void run_plan(const PlanArgs& args) {
  const ModelConfig model = load_model(args.model);
  require(!args.compare.empty(), "--compare needs at least one plan (e.g. tp8,tp4pp2,ep8)");
  const std::vector<std::int64_t> batches = parse_positive_list(args.batches, "--batch");
  if (args.measure) return run_measure(args, model, batches);
  for (const char* option : {"--iters", "--warmup", "--timeout", "--min-bytes", "--max-bytes", "--factor"})
    require(!args.given(option), "{} goes with --measure", option);
  require(args.gpus.has_value(), "--gpus is required (the GPUs every plan uses), except with --measure");
  require(*args.gpus >= 1, "--gpus = {} must be at least 1", *args.gpus);
  const std::vector<ParallelPlan> plans = parse_plans(args, model, args.gpus);
  // Before the kernels are timed, so that a refused output does not waste the run.
  if (!args.json_path.empty()) require_output_writable(args.json_path, args.force, "--json");
  const Link link = chosen_link(args);
  const Mode mode = parse_mode(args.mode, "--mode");
  auto [times, backend] = args.from.empty() ? [&] {
    const std::vector<const Backend*> backends = select_backends(
        args.backend.empty() ? std::vector<std::string>{} : std::vector<std::string>{args.backend},
        DefaultBackends::best_device);
    return std::pair{measure(args, model, plans, batches, backends.front()), std::string(backends.front()->name())};
  }() : load_times(args);
  const std::string times_source = args.from.empty() ? "measured in this run" : fmt::format("from {}", args.from);
  fmt::print("{} on {} GPUs, link {} ({}); GEMM times: {} {} {}\n", model.name, *args.gpus, link.name,
             link.description, backend, to_string(mode), times_source);
  nlohmann::json batches_json = nlohmann::json::array();
  for (std::int64_t tokens : batches) {
    const PlanComparison c = compare_plans(model, plans, workload(args, tokens), link, times.timer(backend, mode));
    fmt::print("\nbatch {} tokens (GEMM, comm: the slowest stage over all micro-batches)\n{}{}", tokens,
               plans_table(model, c, tokens), c.verdict);
    batches_json.push_back(plan_batch_json(model, c, tokens));
  }
  if (args.json_path.empty()) return;
  const PlanRunInfo info{model.name, link.name, backend, std::string(to_string(mode)), times_source, *args.gpus};
  write_text_atomically(args.json_path, plan_json(info, std::move(batches_json)).dump(2) + "\n", args.force,
                        "--json");
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand("plan", "Compare parallelism plans of a model from measured GEMM times "
                                         "(--measure: run each plan's layer on this host's GPUs)");
  args->cmd = cmd;
  add_model_options(*cmd, args->model, true);
  cmd->add_option("--gpus", args->gpus,
                  "GPUs every plan uses (required; with --measure, default every visible GPU)");
  cmd->add_option("--compare", args->compare, "Plans, e.g. tp8,tp4pp2,ep8,tp2ep4")->required()->delimiter(',');
  cmd->add_option("--batch", args->batches, "Batch sizes in tokens (default 1,64,256)")->delimiter(',');
  cmd->add_option("--from", args->from, "A bench JSON file to look GEMM times up in (default: time them now)");
  cmd->add_option("--backend", args->backend,
                  "Backend whose times to use (default: the first of the best device, or the only one in --from)");
  cmd->add_option("--mode", args->mode, "Mode of the GEMMs: w4a16 or w4a4");
  cmd->add_option("--link", args->link, "GPU-to-GPU link: nvlink4, nvlink5, pcie5");
  cmd->add_option("--link-from", args->link_from,
                  "The link fitted to measured collectives: a `collectives --json` or `plan --measure --json` file");
  cmd->add_option("--seed", args->seed, "Seed of the random operands and of the routing");
  cmd->add_option("--max-seconds", args->max_seconds, "Time limit per measurement (seconds) when timing now");
  cmd->add_option("--json", args->json_path, "Write the comparison as JSON to this file (docs/plan-json.md)");
  cmd->add_flag("--force", args->force, "Replace an existing --json file");
  cmd->add_flag("--measure", args->measure,
                "Run each plan's layer on this host's GPUs, one process per GPU with NCCL between them, and compare "
                "it with the prediction");
  CollectivesOptions& sweep = args->settings.sweep;
  sweep.max_bytes = std::uint64_t(64) << 20;
  cmd->add_option("--iters", args->settings.iters, "--measure: timed layers, and calls per collective size (default 20)");
  cmd->add_option("--warmup", args->settings.warmup, "--measure: untimed layers and calls before them (default 5)");
  cmd->add_option("--timeout", sweep.timeout_seconds,
                  "--measure: seconds the whole run may take; ranks still running then are ended (default 600)");
  cmd->add_option("--min-bytes", sweep.min_bytes, "--measure: smallest collective of the link sweep (default 1024)");
  cmd->add_option("--max-bytes", sweep.max_bytes, "--measure: largest collective of the link sweep (default 64 MiB)");
  cmd->add_option("--factor", sweep.factor, "--measure: each sweep size is the previous one times this (default 2)");
  cmd->callback([args] { run_plan(*args); });
}

}  // namespace fp4gemm::cli
