// fp4gemm plan: compare parallelism plans of a model on a number of GPUs (plan_estimate.hpp):
// per-GPU GEMM time per forward from measured kernels (timed now with one backend, or looked up
// in a bench JSON), communication per layer on a link, the pipeline bubble, and the verdict:
// compute- or communication-bound, and which plan wins by how much.
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backend_selection.hpp"
#include "bench/bench_runner.hpp"
#include "commands.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "model/bench_times.hpp"
#include "model/json_fields.hpp"
#include "model_options.hpp"
#include "plan_json.hpp"
#include "report/text_table.hpp"
#include "shape_list.hpp"

namespace fp4gemm::cli {
namespace {

struct PlanArgs {
  ModelArgs model;
  int gpus = 0;
  std::vector<std::string> compare, batches{"1", "64", "256"};
  std::string from, backend, mode = "w4a16", link = "nvlink4";
  std::uint64_t seed = 1;
  double max_seconds = 0.5;
  std::string json_path;
  bool force = false;
};

std::vector<ParallelPlan> parse_plans(const PlanArgs& args, const ModelConfig& model) {
  std::vector<ParallelPlan> plans;
  for (const std::string& text : args.compare) {
    const ParallelPlan p = parse_plan(text, "--compare");
    require(p.gpus() == args.gpus, "--compare: plan '{}' uses {} GPUs, not --gpus = {}", text, p.gpus(), args.gpus);
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

void run_plan(const PlanArgs& args) {
  const ModelConfig model = load_model(args.model);
  require(args.gpus >= 1, "--gpus = {} must be at least 1", args.gpus);
  require(!args.compare.empty(), "--compare needs at least one plan (e.g. tp8,tp4pp2,ep8)");
  const std::vector<ParallelPlan> plans = parse_plans(args, model);
  const std::vector<std::int64_t> batches = parse_positive_list(args.batches, "--batch");
  const Link& link = find_link(args.link);
  const Mode mode = parse_mode(args.mode, "--mode");
  auto [times, backend] = args.from.empty() ? [&] {
    const std::vector<const Backend*> backends = select_backends(
        args.backend.empty() ? std::vector<std::string>{} : std::vector<std::string>{args.backend},
        DefaultBackends::best_device);
    return std::pair{measure(args, model, plans, batches, backends.front()), std::string(backends.front()->name())};
  }() : load_times(args);
  const std::string times_source = args.from.empty() ? "measured in this run" : fmt::format("from {}", args.from);
  fmt::print("{} on {} GPUs, link {} ({}); GEMM times: {} {} {}\n", model.name, args.gpus, link.name,
             link.description, backend, to_string(mode), times_source);
  nlohmann::json batches_json = nlohmann::json::array();
  for (std::int64_t tokens : batches) {
    const PlanComparison c = compare_plans(model, plans, workload(args, tokens), link, times.timer(backend, mode));
    fmt::print("\nbatch {} tokens (GEMM, comm: the slowest stage over all micro-batches)\n{}{}", tokens,
               plans_table(model, c, tokens), c.verdict);
    batches_json.push_back(plan_batch_json(model, c, tokens));
  }
  if (args.json_path.empty()) return;
  const PlanRunInfo info{model.name, std::string(link.name), backend, std::string(to_string(mode)), times_source,
                         args.gpus};
  write_text_atomically(args.json_path, plan_json(info, std::move(batches_json)).dump(2) + "\n", args.force,
                        "--json");
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand("plan", "Compare parallelism plans of a model from measured GEMM times");
  add_model_options(*cmd, args->model, true);
  cmd->add_option("--gpus", args->gpus, "GPUs every plan uses")->required();
  cmd->add_option("--compare", args->compare, "Plans, e.g. tp8,tp4pp2,ep8,tp2ep4")->required()->delimiter(',');
  cmd->add_option("--batch", args->batches, "Batch sizes in tokens (default 1,64,256)")->delimiter(',');
  cmd->add_option("--from", args->from, "A bench JSON file to look GEMM times up in (default: time them now)");
  cmd->add_option("--backend", args->backend,
                  "Backend whose times to use (default: the first of the best device, or the only one in --from)");
  cmd->add_option("--mode", args->mode, "Mode of the GEMMs: w4a16 or w4a4");
  cmd->add_option("--link", args->link, "GPU-to-GPU link: nvlink4, nvlink5, pcie5");
  cmd->add_option("--seed", args->seed, "Seed of the random operands and of the routing");
  cmd->add_option("--max-seconds", args->max_seconds, "Time limit per measurement (seconds) when timing now");
  cmd->add_option("--json", args->json_path, "Write the comparison as JSON to this file (docs/plan-json.md)");
  cmd->add_flag("--force", args->force, "Replace an existing --json file");
  cmd->callback([args] { run_plan(*args); });
}

}  // namespace fp4gemm::cli
