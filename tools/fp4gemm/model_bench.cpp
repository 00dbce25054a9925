#include "model_bench.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "report/text_table.hpp"

namespace fp4gemm::cli {
namespace {

// One (batch, backend, mode): its breakdown, or why there is none (a GEMM the backend did not run).
struct ModelForward {
  std::int64_t batch = 0;
  std::string backend;
  Mode mode = Mode::w4a16;
  std::vector<StageBreakdown> stages;
  std::string missing;
  double forward_s() const {
    double s = 0;
    for (const StageBreakdown& st : stages) s += st.forward_s;
    return s;
  }
};

ForwardWorkload workload(const ModelBench& mb, std::int64_t batch) {
  ForwardWorkload w = mb.work;
  w.tokens = batch;
  return w;
}

std::vector<ModelForward> model_forwards(const ModelBench& mb, const BenchTimes& times) {
  std::vector<ModelForward> out;
  for (std::int64_t batch : mb.batches)
    for (const std::string& backend : mb.backends)
      for (Mode mode : mb.modes) {
        ModelForward f{batch, backend, mode, {}, {}};
        try {
          f.stages = forward_breakdown(mb.model, mb.plan, workload(mb, batch), times.timer(backend, mode));
        } catch (const InvalidArgument& e) {
          f.missing = e.what();
        }
        out.push_back(std::move(f));
      }
  return out;
}

// The row's verdict: that of its GEMM, for routed experts that of the largest M.
const std::string& verdict(const ModelForward& f, const GemmTotal& g, const BenchTimes& times) {
  static const std::string none = "no expert has a token";
  if (g.m.empty()) return none;
  const std::int64_t m = *std::max_element(g.m.begin(), g.m.end());
  return times.at(f.backend, f.mode, {m, g.entry.n, g.entry.k}).verdict;
}

std::string m_text(const GemmTotal& g) {
  if (g.entry.m_source == MSource::tokens) return std::to_string(g.m.front());
  if (g.m.empty()) return "0 experts";
  const auto [lo, hi] = std::minmax_element(g.m.begin(), g.m.end());
  return fmt::format("{}{} ({} experts)", *lo, *lo == *hi ? "" : fmt::format("-{}", *hi), g.m.size());
}

std::string us(double s) { return fmt::format("{:.1f}", s * 1e6); }

std::string plan_text(const ModelBench& mb) { return fmt::format("{} {}", mb.model.name, to_string(mb.plan)); }

}  // namespace

std::vector<BenchCase> model_bench_cases(const ModelBench& mb, Fp4Format format, ScaleLayout layout, DType out) {
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> seen;
  std::vector<GemmShape> shapes;
  for (std::int64_t batch : mb.batches)
    for (const GemmCall& c : forward_gemm_calls(mb.model, mb.plan, workload(mb, batch)))
      if (seen.insert({c.shape.n, c.shape.k, c.shape.m}).second) shapes.push_back(c.shape);
  std::sort(shapes.begin(), shapes.end(), [](const GemmShape& a, const GemmShape& b) {
    return std::tie(a.n, a.k, a.m) < std::tie(b.n, b.k, b.m);
  });
  std::vector<BenchCase> cases;
  for (const GemmShape& shape : shapes)
    for (Mode mode : mb.modes) {
      validate_shape(shape, format);
      cases.push_back({GemmProblem{shape, mode, format, layout, out}, plan_text(mb)});
    }
  return cases;
}

std::string model_bench_table(const ModelBench& mb, const BenchTimes& times) {
  std::string text;
  for (const ModelForward& f : model_forwards(mb, times)) {
    text += fmt::format("\n{}, batch {}, {} {}: ", plan_text(mb), f.batch, f.backend, to_string(f.mode));
    if (!f.missing.empty()) {
      text += fmt::format("no total ({})\n", f.missing);
      continue;
    }
    text += fmt::format("GEMMs per forward {} us\n", us(f.forward_s()));
    TextTable table({{"stage", TextTable::Align::right}, {"gemm"}, {"M", TextTable::Align::right},
                     {"N", TextTable::Align::right}, {"K", TextTable::Align::right},
                     {"count", TextTable::Align::right}, {"layers", TextTable::Align::right},
                     {"us/layer", TextTable::Align::right}, {"us/forward", TextTable::Align::right},
                     {"share", TextTable::Align::right}, {"verdict"}});
    for (const StageBreakdown& st : f.stages)
      for (const GemmTotal& g : st.gemms)
        table.add_row({std::to_string(st.stage), g.entry.mtp ? "mtp." + g.entry.name : g.entry.name, m_text(g),
                       std::to_string(g.entry.n), std::to_string(g.entry.k), std::to_string(g.entry.per_layer_count),
                       std::to_string(g.entry.layers), us(g.per_layer_s), us(g.forward_s),
                       fmt::format("{:.1f}%", 100 * g.share), verdict(f, g, times)});
    text += table.render();
  }
  return text;
}

nlohmann::json model_bench_json(const ModelBench& mb, const BenchTimes& times) {
  nlohmann::json forwards = nlohmann::json::array();
  for (const ModelForward& f : model_forwards(mb, times)) {
    nlohmann::json j{{"batch", f.batch}, {"backend", f.backend}, {"mode", to_string(f.mode)}};
    if (!f.missing.empty()) {
      j["missing"] = f.missing;
      forwards.push_back(std::move(j));
      continue;
    }
    j["forward_us"] = f.forward_s() * 1e6;
    j["stages"] = nlohmann::json::array();
    for (const StageBreakdown& st : f.stages) {
      nlohmann::json gemms = nlohmann::json::array();
      for (const GemmTotal& g : st.gemms)
        gemms.push_back({{"name", g.entry.name}, {"kind", to_string(g.entry.kind)}, {"mtp", g.entry.mtp},
                         {"fp4", g.entry.fp4}, {"m", g.m}, {"n", g.entry.n}, {"k", g.entry.k},
                         {"per_layer_count", g.entry.per_layer_count}, {"layers", g.entry.layers},
                         {"per_layer_us", g.per_layer_s * 1e6}, {"forward_us", g.forward_s * 1e6},
                         {"share", g.share}, {"verdict", verdict(f, g, times)}});
      j["stages"].push_back({{"stage", st.stage}, {"expert_rank", st.expert_rank}, {"forward_us", st.forward_s * 1e6},
                             {"gemms", std::move(gemms)}});
    }
    forwards.push_back(std::move(j));
  }
  const ParallelPlan& p = mb.plan;
  return {{"name", mb.model.name}, {"plan", {{"name", to_string(p)}, {"tp", p.tp}, {"pp", p.pp}, {"ep", p.ep}}},
          {"routing", mb.routing}, {"seed", mb.work.routing.seed}, {"mtp_passes", mb.work.mtp_passes},
          {"forwards", std::move(forwards)}};
}

}  // namespace fp4gemm::cli
