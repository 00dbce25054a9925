#pragma once
// `fp4gemm compare OLD.json NEW.json`: two bench JSON files (schema fp4gemm.bench/1, /2 or /3),
// rows matched by (backend, m, n, k, mode, format, out_dtype, scale_layout), the time ratio
// new/old per row, and a flag where the change is beyond the noise: the rows' p10-p90 intervals
// do not overlap AND the ratio is above kSlowerRatio or below kFasterRatio. Rows timed by
// another method or cache state (schema /3 fields; older files are "stream hot") are noted.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace fp4gemm {

inline constexpr double kSlowerRatio = 1.05;
inline constexpr double kFasterRatio = 0.95;

// One timed row of a bench file, in microseconds.
struct TimedResult {
  double median_us = 0, p10_us = 0, p90_us = 0;
};

enum class Change { within_noise, slower, faster };
Change classify_change(const TimedResult& old_result, const TimedResult& new_result);

struct ComparedRow {
  std::string key;                     // "cpu-fast 1x768x6144 nvfp4 w4a16 linear -> bf16"
  std::optional<TimedResult> old_result, new_result;  // absent: not in that file, or not run
  std::string note;                    // why a side is missing, e.g. "only in NEW", or that both
                                       // ran but were timed differently ("graph cold vs stream hot")
  double ratio() const { return old_result && new_result ? new_result->median_us / old_result->median_us : 0; }
  Change change() const {
    return old_result && new_result ? classify_change(*old_result, *new_result) : Change::within_noise;
  }
};

// Rows of both documents, in OLD's order then NEW's extra rows. `old_name`/`new_name` name the
// files in errors: InvalidArgument for a document that is not a bench file (schema), lacks a
// field, or holds the same key twice.
std::vector<ComparedRow> compare_bench(const nlohmann::json& old_doc, std::string_view old_name,
                                       const nlohmann::json& new_doc, std::string_view new_name);

// The terminal table, followed by a count of slower and faster rows.
std::string comparison_table(const std::vector<ComparedRow>& rows);

}  // namespace fp4gemm
