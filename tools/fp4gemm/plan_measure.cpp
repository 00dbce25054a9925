// fp4gemm plan --measure: the layer of each plan run on the GPUs, one process per GPU, with its
// real collectives; per batch the measured layer against plan's prediction of it, and the link
// calibrated from the collectives sweep the ranks measure first (cluster/link_fit.hpp).
#include "plan_measure.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cluster/layer_measure.hpp"
#include "cluster/link_fit.hpp"
#include "commands.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "rank_run.hpp"
#include "report/collectives_report.hpp"
#include "report/text_table.hpp"

namespace fp4gemm::cli {
namespace {

std::string us(double seconds) { return fmt::format("{:.1f}", seconds * 1e6); }

// Plan's prediction of the case's layer: the bottleneck stage's layer estimate.
LayerEstimate predict(const PlanMeasureInput& in, const RankJob& job, const Link& link, const GemmTimer& timer) {
  Workload w = in.work;
  w.tokens = job.tokens;
  LayerEstimate worst;
  for (int stage = 0; stage < job.plan.pp; ++stage) {
    const LayerEstimate e = estimate_layer(in.model, job.plan, w, link, timer, stage);
    if (stage == 0 || e.total_s() > worst.total_s()) worst = e;
  }
  return worst;
}

nlohmann::ordered_json estimate_json(const LayerEstimate& e, const Link& link) {
  return {{"link", link.name},         {"stage", e.stage},         {"gemm_us", e.gemm_s * 1e6},
          {"comm_us", e.comm_s * 1e6}, {"send_us", e.send_s * 1e6}, {"layer_us", e.total_s() * 1e6}};
}

// The slowest rank's steps, with what each moved or computed.
nlohmann::ordered_json steps_json(const RankJob& job, const RankCaseReport& report) {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < job.steps.size(); ++i) {
    const LayerStep& s = job.steps[i];
    const StepTime& t = report.steps[i];
    nlohmann::ordered_json j = {{"name", s.name}, {"kind", to_string(s.kind)}, {"time_us", t.seconds * 1e6}};
    if (s.kind == LayerStepKind::gemm) {
      j["n"] = s.n;
      j["k"] = s.k;
      j["m"] = s.m;
      j["kernel"] = t.kernel;
      j["outputs_ok"] = t.outputs_ok;
    } else if (s.kind == LayerStepKind::all_to_all) {
      j["group_size"] = s.group_size;
      j["send_bytes"] = s.send_bytes;
      j["receive_bytes"] = s.receive_bytes;
    } else {
      j["group_size"] = s.group_size;
      j["bytes"] = s.bytes;
    }
    steps.push_back(std::move(j));
  }
  return steps;
}

std::string layer_text(const RankJob& job) {
  return fmt::format("{} ({})", job.layer, job.mlp == MlpKind::moe ? "moe" : "dense");
}

}  // namespace

void run_plan_measure(const PlanMeasureInput& in) {
  MeasureSettings settings = in.settings;
  validate(settings.sweep);
  require(settings.iters >= 1, "--iters {} must be >= 1", settings.iters);
  require(settings.warmup >= 0, "--warmup {} must be >= 0", settings.warmup);
  const auto require_gpu_backend = [&] {
    const Backend& backend = find_backend(settings.backend);
    require(backend.device() == DeviceKind::cuda, "--backend {}: plan --measure runs GPU backends, and {} computes "
            "on the CPU", settings.backend, settings.backend);
  };
  if (in.backend_named) require_gpu_backend();
  std::optional<CollectivesRecord> started =
      start_rank_run("plan --measure runs the plans on GPUs", settings.sweep, in.json_path, in.force,
                     [&](int world_size, int visible_gpus) {
                       for (const ParallelPlan& p : in.plans) require_measurable(p, world_size, visible_gpus);
                       require_gpu_backend();
                     });
  if (!started) return;
  CollectivesRecord& sweep = *started;
  const int world_size = sweep.world_size;
  const std::vector<LayerCase> cases = layer_cases(in.model, in.plans, in.batches, in.work);
  fmt::print(stderr, "fp4gemm plan --measure: {} rank(s), NCCL {} from {}; {} plan(s) x {} batch(es) on {} {}\n",
             world_size, nccl_version_text(sweep.nccl_version), sweep.nccl_library, in.plans.size(),
             in.batches.size(), settings.backend, to_string(settings.mode));
  const std::vector<RankReport> reports = measure_layers(settings, cases, world_size);

  std::vector<std::vector<CollectiveMeasurement>> sweeps;
  for (const RankReport& r : reports) sweeps.push_back(r.sweep);
  sweep.measurements = merge_rank_measurements(sweeps);
  const LinkCalibration calibration = calibrate_link(sweep.measurements, world_size, command_line());

  std::string devices;
  for (std::size_t r = 0; r < reports.size(); ++r)
    devices += fmt::format("{}rank {}: {}", r ? "; " : "", r, reports[r].device);
  fmt::print("{} on {} GPU(s) ({}), one process per GPU, NVLink multicast off\n", in.model.name, world_size, devices);
  fmt::print("{}", collectives_table(sweep));
  fmt::print("\nlink calibration (least squares, time = latency + bytes / bandwidth):\n");
  for (const CollectiveFit& f : calibration.fits)
    fmt::print("  {}: latency {:.2f} us, algbw {:.1f} GB/s, busbw {:.1f} GB/s ({} sizes {}..{} B, worst point off by "
               "{:.0f} %)\n",
               collective_op_name(f.op), f.fit.latency_s * 1e6, f.algbw_gbps, f.busbw_gbps, f.fit.points, f.min_bytes,
               f.max_bytes, f.fit.max_relative_error * 100);
  if (calibration.link)
    fmt::print("  link: B {:.1f} GB/s, base latency {:.2f} us, step latency {:.2f} us ({})\n",
               calibration.link->bytes_per_second / 1e9, calibration.link->base_latency_s * 1e6,
               calibration.link->step_latency_s * 1e6, calibration.note);
  else
    fmt::print("  {}\n", calibration.note);

  const std::string times_source = in.from_times ? fmt::format("{} {} from --from '{}'", in.from_backend,
                                                               to_string(settings.mode), in.from_path)
                                                 : "each GEMM timed alone on the same GPUs in this run";
  fmt::print("\nmeasured: one decoder layer per stage and one micro-batch, {} timed + {} warmup layers, the slowest "
             "rank; predicted: plan's model of the same layer (GEMMs: {}; link {})\n",
             settings.iters, settings.warmup, times_source, in.link.name);
  nlohmann::ordered_json batches_json = nlohmann::ordered_json::array();
  bool outputs_ok = true;
  const std::size_t per_plan = in.batches.size();
  for (std::size_t b = 0; b < in.batches.size(); ++b) {
    std::vector<TextTable::Column> columns = {
        {"plan"}, {"GPUs", TextTable::Align::right}, {"layer"}, {"M", TextTable::Align::right},
        {"GEMM us", TextTable::Align::right}, {"comm us", TextTable::Align::right},
        {"send us", TextTable::Align::right}, {"layer us", TextTable::Align::right},
        {"pred GEMM us", TextTable::Align::right}, {"pred comm us", TextTable::Align::right},
        {"pred layer us", TextTable::Align::right}, {"measured/pred", TextTable::Align::right}};
    if (calibration.link) columns.push_back({"pred layer us (measured link)", TextTable::Align::right});
    columns.push_back({"outputs"});
    TextTable table(columns);
    nlohmann::ordered_json plans_json = nlohmann::ordered_json::array();
    for (std::size_t p = 0; p < in.plans.size(); ++p) {
      const std::size_t index = p * per_plan + b;
      const LayerCase& c = cases[index];
      const LayerMeasurement m = merge_layer(c, reports, index);
      outputs_ok = outputs_ok && m.outputs_ok;
      const RankJob& job = c.job(m.slowest_rank);
      const GemmTimeTable isolated = isolated_gemm_times(reports, index);
      const GemmTimer timer =
          in.from_times ? in.from_times->timer(in.from_backend, settings.mode) : GemmTimer(std::cref(isolated));
      const LayerEstimate predicted = predict(in, job, in.link, timer);
      std::vector<std::string> row = {to_string(job.plan),
                                      std::to_string(job.plan.gpus()),
                                      layer_text(job),
                                      std::to_string(job.gpu_tokens),
                                      us(m.gemm_s),
                                      us(m.comm_s),
                                      us(m.send_s),
                                      us(m.total_s()),
                                      us(predicted.gemm_s),
                                      us(predicted.comm_s + predicted.send_s),
                                      us(predicted.total_s()),
                                      fmt::format("{:.2f}", m.total_s() / predicted.total_s())};
      nlohmann::ordered_json predicted_json = nlohmann::ordered_json::array();
      predicted_json.push_back(estimate_json(predicted, in.link));
      if (calibration.link) {
        const LayerEstimate on_measured = predict(in, job, *calibration.link, timer);
        row.push_back(us(on_measured.total_s()));
        predicted_json.push_back(estimate_json(on_measured, *calibration.link));
      }
      row.push_back(m.outputs_ok ? "sane" : "BAD");
      table.add_row(std::move(row));
      plans_json.push_back({{"plan", to_string(job.plan)},
                            {"gpus", job.plan.gpus()},
                            {"microbatch_tokens", job.microbatch_tokens},
                            {"gpu_tokens", job.gpu_tokens},
                            {"layer", job.layer},
                            {"mlp", job.mlp == MlpKind::moe ? "moe" : "dense"},
                            {"measured",
                             {{"slowest_rank", m.slowest_rank},
                              {"gemm_us", m.gemm_s * 1e6},
                              {"comm_us", m.comm_s * 1e6},
                              {"send_us", m.send_s * 1e6},
                              {"layer_us", m.total_s() * 1e6},
                              {"rank_layer_us", [&] {
                                 std::vector<double> v;
                                 for (const double s : m.rank_total_s) v.push_back(s * 1e6);
                                 return v;
                               }()},
                              {"outputs_ok", m.outputs_ok}}},
                            {"predicted", std::move(predicted_json)},
                            {"measured_over_predicted", m.total_s() / predicted.total_s()},
                            {"steps", steps_json(job, reports[std::size_t(m.slowest_rank)].cases[index])}});
    }
    fmt::print("\nbatch {} tokens\n{}", in.batches[b], table.render());
    batches_json.push_back({{"tokens", in.batches[b]}, {"plans", std::move(plans_json)}});
  }
  if (!outputs_ok) {
    fmt::print(stderr, "fp4gemm: error: a GEMM of the layer wrote non-finite or all-zero output (outputs BAD)\n");
    exit_code() = 1;
  }
  if (in.json_path.empty()) return;
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (std::size_t r = 0; r < reports.size(); ++r) ranks.push_back({{"rank", r}, {"device", reports[r].device}});
  const nlohmann::ordered_json j = {
      {"schema", "fp4gemm.plan-measure/1"},
      {"fp4gemm_version", FP4GEMM_VERSION},
      {"command", command_line()},
      {"model", in.model.name},
      {"world_size", world_size},
      {"ranks", std::move(ranks)},
      {"backend", settings.backend},
      {"mode", to_string(settings.mode)},
      {"iters", settings.iters},
      {"warmup", settings.warmup},
      {"gemm_times", times_source},
      {"link", in.link.name},
      {"collectives", to_json(sweep)},
      {"calibration", to_json(calibration)},
      {"batches", std::move(batches_json)}};
  write_text_atomically(in.json_path, j.dump(2) + "\n", in.force, "--json");
}

}  // namespace fp4gemm::cli
