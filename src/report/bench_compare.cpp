// Matching, ratio and noise rule of `fp4gemm compare` (bench_compare.hpp), and its table.
#include "report/bench_compare.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "report/text_table.hpp"

namespace fp4gemm {
namespace {

struct ParsedRow {
  std::string key;
  std::optional<TimedResult> result;  // absent when the row did not run
  std::string timing;                 // "graph cold"; files before schema /3 timed "stream hot"
};

ParsedRow parse_row(const nlohmann::json& r) {
  const auto text = [&](const char* field) { return r.at(field).get<std::string>(); };
  ParsedRow row;
  row.key = fmt::format("{} {}x{}x{} {} {} {} -> {}", text("backend"), r.at("m").get<std::int64_t>(),
                        r.at("n").get<std::int64_t>(), r.at("k").get<std::int64_t>(), text("format"),
                        text("mode"), text("scale_layout"), text("out_dtype"));
  row.timing = fmt::format("{} {}", r.value("timing_method", "stream"), r.value("cache", "hot"));
  if (r.at("ran").get<bool>())
    row.result = TimedResult{r.at("median_us").get<double>(), r.at("p10_us").get<double>(),
                             r.at("p90_us").get<double>()};
  return row;
}

std::vector<ParsedRow> parse_rows(const nlohmann::json& doc, std::string_view name) {
  const bool bench_file = doc.is_object() && doc.contains("schema") && doc["schema"].is_string() &&
                          doc["schema"].get<std::string>().starts_with("fp4gemm.bench/");
  require(bench_file, "{} is not an fp4gemm bench JSON file (no \"schema\": \"fp4gemm.bench/N\")", name);
  std::vector<ParsedRow> rows;
  std::map<std::string, std::size_t> seen;
  const nlohmann::json* results = doc.contains("results") ? &doc["results"] : nullptr;
  require(results && results->is_array(), "{} has no \"results\" array", name);
  for (std::size_t i = 0; i < results->size(); ++i) {
    try {
      rows.push_back(parse_row((*results)[i]));
    } catch (const nlohmann::json::exception& e) {
      throw InvalidArgument(fmt::format("{}: results[{}] is not a bench row: {}", name, i, e.what()));
    }
    const auto [first, inserted] = seen.emplace(rows.back().key, i);
    require(inserted, "{}: results[{}] repeats the row of results[{}] ({})", name, i, first->second, first->first);
  }
  return rows;
}

std::string interval(const TimedResult& r) {
  return fmt::format("{:.2f} ({:.2f}-{:.2f})", r.median_us, r.p10_us, r.p90_us);
}

}  // namespace

Change classify_change(const TimedResult& o, const TimedResult& n) {
  const bool overlap = n.p10_us <= o.p90_us && o.p10_us <= n.p90_us;
  const double ratio = n.median_us / o.median_us;
  if (overlap) return Change::within_noise;
  if (ratio > kSlowerRatio) return Change::slower;
  if (ratio < kFasterRatio) return Change::faster;
  return Change::within_noise;
}

std::vector<ComparedRow> compare_bench(const nlohmann::json& old_doc, std::string_view old_name,
                                       const nlohmann::json& new_doc, std::string_view new_name) {
  const std::vector<ParsedRow> old_rows = parse_rows(old_doc, old_name);
  const std::vector<ParsedRow> new_rows = parse_rows(new_doc, new_name);
  const auto find = [](const std::vector<ParsedRow>& rows, const std::string& key) {
    return std::find_if(rows.begin(), rows.end(), [&](const ParsedRow& r) { return r.key == key; });
  };
  std::vector<ComparedRow> out;
  for (const ParsedRow& o : old_rows) {
    const auto n = find(new_rows, o.key);
    if (n == new_rows.end()) {
      out.push_back({o.key, o.result, std::nullopt, "only in OLD"});
      continue;
    }
    std::string note = o.result && n->result ? ""
                       : o.result            ? "not run in NEW"
                       : n->result           ? "not run in OLD"
                                             : "not run in either";
    if (o.result && n->result && o.timing != n->timing)
      note = fmt::format("timed differently: {} vs {}", o.timing, n->timing);
    out.push_back({o.key, o.result, n->result, note});
  }
  for (const ParsedRow& n : new_rows)
    if (find(old_rows, n.key) == old_rows.end()) out.push_back({n.key, std::nullopt, n.result, "only in NEW"});
  return out;
}

std::string comparison_table(const std::vector<ComparedRow>& rows) {
  using A = TextTable::Align;
  TextTable table({{"row", A::left}, {"old us (p10-p90)", A::right}, {"new us (p10-p90)", A::right},
                   {"new/old", A::right}, {"change", A::left}});
  int slower = 0, faster = 0;
  for (const ComparedRow& r : rows) {
    const Change c = r.change();
    slower += c == Change::slower;
    faster += c == Change::faster;
    const std::string flag = c == Change::slower ? "SLOWER" : c == Change::faster ? "FASTER" : "";
    const std::string change = flag.empty() || r.note.empty() ? flag + r.note : flag + "; " + r.note;
    table.add_row({r.key, r.old_result ? interval(*r.old_result) : "-",
                   r.new_result ? interval(*r.new_result) : "-",
                   r.old_result && r.new_result ? fmt::format("{:.3f}", r.ratio()) : "-", change});
  }
  return table.render() +
         fmt::format("{} row(s) compared: {} slower, {} faster beyond the noise (p10-p90 intervals apart and "
                     "new/old beyond {:g}-{:g})\n",
                     rows.size(), slower, faster, kFasterRatio, kSlowerRatio);
}

}  // namespace fp4gemm
