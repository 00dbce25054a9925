#include "report/bench_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "report/dispatch_report.hpp"
#include "report/text_table.hpp"

#ifndef FP4GEMM_GIT_REVISION
#define FP4GEMM_GIT_REVISION "unknown"
#endif

namespace fp4gemm {
namespace {

// Whether some row has the optional `field` (power, dispatch).
template <class T>
bool any_row_has(const std::vector<BenchRow>& rows, std::optional<T> BenchRow::*field) {
  return std::any_of(rows.begin(), rows.end(), [field](const BenchRow& r) { return (r.*field).has_value(); });
}

// The power summary's fields (JSON object "power"; CSV columns "power_<field>").
nlohmann::ordered_json power_fields(const PowerSummary& p) {
  nlohmann::ordered_json j;
  j["mean_w"] = p.mean_power_w;
  j["limit_w"] = p.limit_w;
  j["mean_sm_mhz"] = p.mean_sm_mhz;
  j["mean_mem_mhz"] = p.mean_mem_mhz;
  j["max_sm_mhz"] = p.max_sm_mhz;
  j["max_temperature_c"] = p.max_temperature_c;
  j["throttle_share"] = p.throttle_share;
  j["samples"] = p.samples;
  return j;
}

// One row's fields, shared by the JSON and CSV renderings.
nlohmann::ordered_json row_fields(const BenchRow& r) {
  const GemmProblem& p = r.bench_case.problem;
  nlohmann::ordered_json j;
  j["backend"] = r.backend;
  j["m"] = p.shape.m;
  j["n"] = p.shape.n;
  j["k"] = p.shape.k;
  j["format"] = to_string(p.format);
  j["mode"] = to_string(p.mode);
  j["scale_layout"] = to_string(p.scale_layout);
  j["out_dtype"] = to_string(p.out_dtype);
  j["description"] = r.bench_case.description;
  j["ran"] = r.ran;
  j["note"] = r.note;
  j["plan"] = r.plan;
  j["median_us"] = r.timing.median_s * 1e6;
  j["p10_us"] = r.timing.p10_s * 1e6;
  j["p90_us"] = r.timing.p90_s * 1e6;
  j["rsd"] = r.timing.rsd;
  j["samples"] = r.timing.samples;
  j["calls_per_sample"] = r.timing.calls_per_sample;
  j["converged"] = r.timing.converged;
  j["timer"] = r.timing.timer;
  j["timing_method"] = to_string(r.timing.method);
  j["cache"] = to_string(r.timing.cache);
  j["rotations"] = r.timing.rotations;
  j["working_set_bytes"] = r.timing.working_set_bytes;
  j["launch_overhead_us"] = r.launch.included ? r.launch.seconds * 1e6 : 0.0;
  j["timing_note"] = r.timing.note;
  j["flops"] = p.shape.flops();
  j["bytes"] = r.bytes;
  j["tflops"] = r.tflops();
  j["gbps"] = r.gbps();
  j["intensity"] = r.roofline.intensity;
  j["memory_floor_us"] = r.roofline.memory_floor_s * 1e6;
  j["compute_floor_us"] = r.roofline.compute_floor_s * 1e6;
  j["floor_us"] = r.roofline.floor_s * 1e6;
  j["efficiency"] = r.roofline.efficiency;
  j["verdict"] = r.roofline.verdict;
  if (r.power) j["power"] = power_fields(*r.power);
  if (r.dispatch) j["dispatch"] = dispatch_fields(*r.dispatch);
  return j;
}

nlohmann::ordered_json ceilings_fields(const Ceilings& c) {
  return {{"device", c.device},           {"source", c.source},
          {"memory", c.memory},           {"memory_gbps", c.memory_gbps},
          {"bf16_tflops", c.bf16_tflops}, {"fp8_tflops", c.fp8_tflops},
          {"fp4_tflops", c.fp4_tflops}};
}

// The table's timing cell: "graph 40x cold R=8" (method, calls per sample, cache, operand sets).
std::string timing_cell(const Timing& t) {
  return fmt::format("{} {}x {}{}", to_string(t.method), t.calls_per_sample, to_string(t.cache),
                     t.rotations > 1 ? fmt::format(" R={}", t.rotations) : "");
}

TextTable make_bench_table(const std::vector<BenchRow>& rows) {
  using A = TextTable::Align;
  std::vector<TextTable::Column> columns{
      {"M", A::right},      {"N", A::right},       {"K", A::right},      {"mode", A::left},
      {"time us", A::right}, {"p10-p90 us", A::right}, {"TFLOPS", A::right}, {"GB/s", A::right},
      {"% floor", A::right}, {"backend", A::left},   {"timing", A::left},  {"verdict", A::left},
      {"description", A::left}};
  // The power column only when some row has a power summary (GPU rows with NVML).
  const bool power = any_row_has(rows, &BenchRow::power);
  if (power) columns.push_back({"power", A::left});
  TextTable table(std::move(columns));
  auto power_cell = [&](const BenchRow& r, std::vector<std::string> cells) {
    if (power) cells.push_back(r.power ? r.power->describe() : "-");
    return cells;
  };
  for (const BenchRow& r : rows) {
    const GemmProblem& p = r.bench_case.problem;
    const std::string mode = fmt::format("{} {}", to_string(p.format), to_string(p.mode));
    if (!r.ran) {
      table.add_row(power_cell(r, {std::to_string(p.shape.m), std::to_string(p.shape.n),
                                   std::to_string(p.shape.k), mode, "-", "-", "-", "-", "-",
                                   r.backend, "-", "not run: " + r.note, r.bench_case.description}));
      continue;
    }
    const double efficiency = r.roofline.efficiency;
    table.add_row(power_cell(
        r, {std::to_string(p.shape.m), std::to_string(p.shape.n), std::to_string(p.shape.k), mode,
            fmt::format("{:.2f}", r.timing.median_s * 1e6),
            fmt::format("{:.2f}-{:.2f}", r.timing.p10_s * 1e6, r.timing.p90_s * 1e6),
            fmt::format("{:.2f}", r.tflops()), fmt::format("{:.1f}", r.gbps()),
            efficiency > 0 ? format_percent(efficiency) : "-", r.backend, timing_cell(r.timing),
            r.roofline.verdict, r.bench_case.description}));
  }
  return table;
}

// Moves the object j[key] into columns "<key>_<field>" (arrays as their JSON text) when
// `columns`, with empty cells under `blank`'s field names where the row has none; drops it
// otherwise. Every line then has the header's columns.
void flatten_object(nlohmann::ordered_json& j, const std::string& key, bool columns,
                    const nlohmann::ordered_json& blank) {
  const nlohmann::ordered_json nested = j.contains(key) ? j[key] : nlohmann::ordered_json();
  j.erase(key);
  if (!columns) return;
  for (auto it = blank.begin(); it != blank.end(); ++it)
    j[key + "_" + it.key()] = nested.is_null() ? nlohmann::ordered_json("") : nested[it.key()];
}

}  // namespace

std::string timing_header(const TimingOptions& t) {
  const char* method = t.method == TimingMethod::graph    ? "CUDA-graph replay, launch overhead out"
                       : t.method == TimingMethod::stream ? "back-to-back calls between CUDA events"
                                                          : "one call per sample on a synchronized stream, launch latency in";
  const std::string cache =
      t.cache == CacheState::cold
          ? fmt::format("operand sets rotated call by call, working set >= {:.0f}x the L2", kColdL2Multiple)
          : std::string("one operand set, L2 warm");
  return fmt::format(
      "timing: {} ({}), cache {} ({}); host backends: steady clock, hot. Column timing: method, "
      "calls per sample, cache, R operand sets",
      to_string(t.method), method, to_string(t.cache), cache);
}

std::string bench_table(const std::vector<BenchRow>& rows) {
  std::string text = make_bench_table(rows).render();
  for (const BenchRow& r : rows)
    if (r.ran && !r.timing.note.empty())
      text += fmt::format("note: {} {}: {}\n", r.backend, r.bench_case.problem.describe(), r.timing.note);
  return text;
}

std::string bench_markdown(const std::vector<BenchRow>& rows, const BenchContext& context) {
  std::string notes;
  for (const BenchRow& r : rows)
    if (r.ran && !r.timing.note.empty())
      notes += fmt::format("- {} {}: {}\n", r.backend, r.bench_case.problem.describe(), r.timing.note);
  return fmt::format(
      "# fp4gemm bench\n\n- device: {}\n- ceilings: {}\n- {}\n- command: `{}`\n- fp4gemm {} ({})\n\n{}{}",
      context.device, context.ceilings.describe(), timing_header(context.timing), context.command,
      FP4GEMM_VERSION, FP4GEMM_GIT_REVISION, make_bench_table(rows).render_markdown(),
      notes.empty() ? "" : "\nTiming notes:\n\n" + notes);
}

nlohmann::json bench_json(const std::vector<BenchRow>& rows, const BenchContext& context) {
  nlohmann::ordered_json j;
  j["schema"] = "fp4gemm.bench/3";
  j["fp4gemm_version"] = FP4GEMM_VERSION;
  j["git_revision"] = FP4GEMM_GIT_REVISION;
  j["command"] = context.command;
  j["device"] = context.device;
  j["ceilings"] = ceilings_fields(context.ceilings);
  j["timing"] = {{"warmup_calls", context.timing.warmup_calls},
                 {"sample_target_seconds", context.timing.sample_target_seconds},
                 {"min_samples", context.timing.min_samples},
                 {"max_samples", context.timing.max_samples},
                 {"min_seconds", context.timing.min_seconds},
                 {"max_seconds", context.timing.max_seconds},
                 {"target_rsd", context.timing.target_rsd},
                 {"method", to_string(context.timing.method)},
                 {"cache", to_string(context.timing.cache)}};
  j["results"] = nlohmann::ordered_json::array();
  for (const BenchRow& r : rows) j["results"].push_back(row_fields(r));
  return nlohmann::json::parse(j.dump());
}

std::string bench_csv(const std::vector<BenchRow>& rows) {
  std::string out;
  bool header = true;
  // Power columns ("power_mean_w", ...) when some row has a power summary, dispatch columns
  // ("dispatch_kernel", "dispatch_rule", "dispatch_refused") when some row has a dispatch.
  const bool power = any_row_has(rows, &BenchRow::power);
  const bool dispatch = any_row_has(rows, &BenchRow::dispatch);
  for (const BenchRow& r : rows) {
    nlohmann::ordered_json j = row_fields(r);
    flatten_object(j, "power", power, power_fields(PowerSummary{}));
    flatten_object(j, "dispatch", dispatch, dispatch_fields(Dispatch{}));
    if (header) {
      for (auto it = j.begin(); it != j.end(); ++it) out += (it == j.begin() ? "" : ",") + it.key();
      out += "\n";
      header = false;
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      std::string cell = it->is_string() ? it->get<std::string>() : it->dump();
      if (cell.find_first_of(",\"\n") != std::string::npos) {
        std::string quoted = "\"";
        for (char ch : cell) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        cell = quoted + "\"";
      }
      out += (it == j.begin() ? "" : ",") + cell;
    }
    out += "\n";
  }
  return out;
}

}  // namespace fp4gemm
