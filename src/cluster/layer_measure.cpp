// `plan --measure`'s cases, the ranks' reports and their merge (layer_measure.hpp).
#include "cluster/layer_measure.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cluster/rank_launcher.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {

std::vector<LayerCase> layer_cases(const ModelConfig& model, std::span<const ParallelPlan> plans,
                                   std::span<const std::int64_t> batches, const Workload& work) {
  std::vector<LayerCase> cases;
  for (const ParallelPlan& plan : plans)
    for (const std::int64_t tokens : batches) {
      Workload w = work;
      w.tokens = tokens;
      LayerCase c;
      for (int rank = 0; rank < plan.gpus(); ++rank) c.ranks.push_back(rank_job(model, plan, w, rank));
      cases.push_back(std::move(c));
    }
  return cases;
}

std::string to_payload(const RankReport& report) {
  nlohmann::json sweep = nlohmann::json::array();
  for (const CollectiveMeasurement& m : report.sweep)
    sweep.push_back({int(m.op), m.bytes, m.elements, m.seconds_per_op, m.correct});
  nlohmann::json cases = nlohmann::json::array();
  for (const RankCaseReport& c : report.cases) {
    nlohmann::json steps = nlohmann::json::array(), isolated = nlohmann::json::array();
    for (const StepTime& s : c.steps) steps.push_back({s.seconds, s.outputs_ok, s.kernel});
    for (const IsolatedGemm& g : c.isolated)
      isolated.push_back({g.call.shape.m, g.call.shape.n, g.call.shape.k, g.call.fp4, g.seconds});
    cases.push_back({{"steps", std::move(steps)}, {"isolated", std::move(isolated)}});
  }
  return nlohmann::json{{"device", report.device}, {"sweep", std::move(sweep)}, {"cases", std::move(cases)}}.dump();
}

RankReport rank_report_from_payload(std::string_view payload, int rank) {
  try {
    const nlohmann::json j = nlohmann::json::parse(payload);
    RankReport r;
    r.device = j.at("device").get<std::string>();
    for (const nlohmann::json& m : j.at("sweep"))
      r.sweep.push_back({CollectiveOp(m.at(0).get<int>()), m.at(1).get<std::uint64_t>(), m.at(2).get<std::uint64_t>(),
                         m.at(3).get<double>(), m.at(4).get<bool>()});
    for (const nlohmann::json& c : j.at("cases")) {
      RankCaseReport& out = r.cases.emplace_back();
      for (const nlohmann::json& s : c.at("steps"))
        out.steps.push_back({s.at(0).get<double>(), s.at(1).get<bool>(), s.at(2).get<std::string>()});
      for (const nlohmann::json& g : c.at("isolated"))
        out.isolated.push_back({{{g.at(0).get<std::int64_t>(), g.at(1).get<std::int64_t>(), g.at(2).get<std::int64_t>()},
                                 g.at(3).get<bool>()},
                                g.at(4).get<double>()});
    }
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("plan --measure: the report of rank {} does not parse: {}", rank, e.what()));
  }
}

LayerMeasurement merge_layer(const LayerCase& layer_case, std::span<const RankReport> reports,
                             std::size_t case_index) {
  LayerMeasurement merged;
  double slowest = -1;
  for (std::size_t rank = 0; rank < reports.size(); ++rank) {
    const RankJob& job = layer_case.job(int(rank));
    const std::vector<StepTime>& steps = reports[rank].cases.at(case_index).steps;
    if (steps.size() != job.steps.size())
      throw Error(fmt::format("plan --measure: rank {} reported {} steps of {} at batch {}, its job has {}", rank,
                              steps.size(), to_string(job.plan), job.tokens, job.steps.size()));
    double gemm = 0, comm = 0, send = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const LayerStepKind kind = job.steps[i].kind;
      (kind == LayerStepKind::gemm ? gemm : kind == LayerStepKind::stage_send ? send : comm) += steps[i].seconds;
      merged.outputs_ok = merged.outputs_ok && steps[i].outputs_ok;
    }
    merged.rank_total_s.push_back(gemm + comm + send);
    if (gemm + comm + send > slowest) {
      slowest = gemm + comm + send;
      merged.slowest_rank = int(rank);
      merged.gemm_s = gemm;
      merged.comm_s = comm;
      merged.send_s = send;
    }
  }
  return merged;
}

GemmTimeTable isolated_gemm_times(std::span<const RankReport> reports, std::size_t case_index) {
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>, double> slowest;
  for (const RankReport& r : reports)
    for (const IsolatedGemm& g : r.cases.at(case_index).isolated) {
      double& s = slowest[{g.call.shape.m, g.call.shape.n, g.call.shape.k, g.call.fp4}];
      s = std::max(s, g.seconds);
    }
  GemmTimeTable table;
  for (const auto& [key, seconds] : slowest) {
    const auto& [m, n, k, fp4] = key;
    table.set({{m, n, k}, fp4}, seconds);
  }
  return table;
}

std::vector<RankReport> measure_layers(const MeasureSettings& settings, std::span<const LayerCase> cases,
                                       int world_size) {
  for (const LayerCase& c : cases)
    require(int(c.ranks.size()) == world_size, "plan --measure: {} has {} ranks, the run has {}",
            to_string(c.job(0).plan), c.ranks.size(), world_size);
  const std::vector<std::string> payloads = run_ranks(
      "plan --measure", world_size, settings.sweep.timeout_seconds,
      [&](const NcclLibrary& nccl, const nccl::UniqueId& id, int rank, int ranks) {
        return to_payload(run_measure_rank(nccl, id, rank, ranks, settings, cases));
      });
  std::vector<RankReport> reports;
  for (std::size_t rank = 0; rank < payloads.size(); ++rank) {
    reports.push_back(rank_report_from_payload(payloads[rank], int(rank)));
    require(reports.back().cases.size() == cases.size(), "plan --measure: rank {} reported {} cases of {}", rank,
            reports.back().cases.size(), cases.size());
  }
  return reports;
}

}  // namespace fp4gemm
