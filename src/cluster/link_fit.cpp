// The link calibration (link_fit.hpp): weighted least squares per collective, the Link they
// give, and reading the measurements back from the JSON files that hold them.
#include "cluster/link_fit.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "model/json_fields.hpp"

namespace fp4gemm {
namespace {

double predicted(const LineFit& f, double bytes) { return f.latency_s + f.seconds_per_byte * bytes; }

}  // namespace

LineFit fit_latency_bandwidth(std::span<const TimedMessage> points) {
  std::set<double> sizes;
  for (const TimedMessage& p : points) {
    require(std::isfinite(p.seconds) && p.seconds > 0, "a measured time of {} s for {} bytes is not positive",
            p.seconds, p.bytes);
    sizes.insert(p.bytes);
  }
  require(sizes.size() >= 2, "fitting latency and bandwidth needs at least two message sizes, got {}", sizes.size());
  // Normal equations of min sum w (a + s x - t)^2 with w = 1 / t^2.
  double sw = 0, sx = 0, sxx = 0, st = 0, sxt = 0;
  for (const TimedMessage& p : points) {
    const double w = 1.0 / (p.seconds * p.seconds);
    sw += w;
    sx += w * p.bytes;
    sxx += w * p.bytes * p.bytes;
    st += w * p.seconds;
    sxt += w * p.bytes * p.seconds;
  }
  LineFit fit;
  fit.points = int(points.size());
  const double det = sw * sxx - sx * sx;
  fit.latency_s = (sxx * st - sx * sxt) / det;
  fit.seconds_per_byte = (sw * sxt - sx * st) / det;
  if (fit.latency_s < 0) {  // through the origin
    fit.latency_s = 0;
    fit.seconds_per_byte = sxt / sxx;
  }
  for (const TimedMessage& p : points)
    fit.max_relative_error = std::max(fit.max_relative_error, std::abs(predicted(fit, p.bytes) - p.seconds) / p.seconds);
  return fit;
}

LinkCalibration calibrate_link(std::span<const CollectiveMeasurement> measured, int world_size,
                               std::string_view source) {
  require(world_size >= 1, "world size {} must be at least 1", world_size);
  LinkCalibration c;
  c.world_size = world_size;
  for (const CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_to_all}) {
    std::vector<TimedMessage> points;
    CollectiveFit f;
    f.op = op;
    for (const CollectiveMeasurement& m : measured) {
      if (m.op != op || !m.correct) continue;
      points.push_back({double(m.bytes), m.seconds_per_op});
      f.min_bytes = f.min_bytes == 0 ? m.bytes : std::min(f.min_bytes, m.bytes);
      f.max_bytes = std::max(f.max_bytes, m.bytes);
    }
    if (points.empty()) continue;
    f.fit = fit_latency_bandwidth(points);
    f.algbw_gbps = f.fit.seconds_per_byte > 0 ? 1e-9 / f.fit.seconds_per_byte : 0;
    f.busbw_gbps = f.algbw_gbps * bus_bandwidth_factor(op, world_size);
    c.fits.push_back(f);
  }
  require(!c.fits.empty(), "{}: no collective measured right values, nothing to fit", source);
  if (world_size == 1) {
    c.note = "world size 1: nothing crosses a link (the fits are of NCCL's copies on one GPU); no link derived";
    return c;
  }
  const double n = world_size;
  const CollectiveFit* all_reduce = nullptr;
  const CollectiveFit* all_to_all = nullptr;
  for (const CollectiveFit& f : c.fits) (f.op == CollectiveOp::all_reduce ? all_reduce : all_to_all) = &f;
  const CollectiveFit& slope_from = all_reduce ? *all_reduce : *all_to_all;
  if (slope_from.fit.seconds_per_byte <= 0) {
    c.note = fmt::format("{}'s time does not grow with the message size; no bandwidth derived",
                         collective_op_name(slope_from.op));
    return c;
  }
  Link link;
  link.name = "measured";
  link.bytes_per_second = bus_bandwidth_factor(slope_from.op, world_size) / slope_from.fit.seconds_per_byte;
  if (all_reduce && all_to_all) {
    link.step_latency_s = std::max(0.0, (all_reduce->fit.latency_s - all_to_all->fit.latency_s) / (2 * n - 3));
    link.base_latency_s = std::max(0.0, all_to_all->fit.latency_s - link.step_latency_s);
  } else {
    link.base_latency_s = slope_from.fit.latency_s;
  }
  link.description = fmt::format("fitted to NCCL {} on {} GPUs", all_reduce && all_to_all ? "all_reduce and all_to_all"
                                                                  : collective_op_name(slope_from.op),
                                 world_size);
  link.source = std::string(source);
  c.note = fmt::format("B from {}'s slope (busbw), base and step latency from {}", collective_op_name(slope_from.op),
                       all_reduce && all_to_all ? "both intercepts" : "its intercept (step 0)");
  c.link = std::move(link);
  return c;
}

nlohmann::ordered_json to_json(const LinkCalibration& c) {
  nlohmann::ordered_json fits = nlohmann::ordered_json::array();
  for (const CollectiveFit& f : c.fits)
    fits.push_back({{"op", collective_op_name(f.op)},
                    {"points", f.fit.points},
                    {"min_bytes", f.min_bytes},
                    {"max_bytes", f.max_bytes},
                    {"latency_us", f.fit.latency_s * 1e6},
                    {"us_per_mib", f.fit.seconds_per_byte * 1e6 * 1048576.0},
                    {"algbw_gbps", f.algbw_gbps},
                    {"busbw_gbps", f.busbw_gbps},
                    {"max_relative_error", f.fit.max_relative_error}});
  nlohmann::ordered_json link = nullptr;
  if (c.link)
    link = {{"name", c.link->name},
            {"description", c.link->description},
            {"bytes_per_second", c.link->bytes_per_second},
            {"base_latency_us", c.link->base_latency_s * 1e6},
            {"step_latency_us", c.link->step_latency_s * 1e6},
            {"source", c.link->source}};
  return {{"fit", "time = latency + bytes / bandwidth, least squares on relative residuals"},
          {"world_size", c.world_size},
          {"fits", std::move(fits)},
          {"link", std::move(link)},
          {"note", c.note}};
}

std::vector<CollectiveMeasurement> collective_measurements_from_json(const nlohmann::json& object,
                                                                     std::string_view source, int& world_size) {
  const nlohmann::json* record = &object;
  if (object.contains("collectives") && object.at("collectives").is_object()) record = &object.at("collectives");
  const model_detail::JsonFields fields(*record, std::string(source), "a link fitted from measured collectives");
  world_size = int(fields.positive("world_size"));
  const nlohmann::json& results = record->contains("results") ? record->at("results") : nlohmann::json();
  if (!results.is_array())
    fields.fail("results", "must be the array of measurements of `fp4gemm collectives --json` or `plan --measure --json`");
  std::vector<CollectiveMeasurement> measured;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const model_detail::JsonFields r(results[i], fmt::format("{}: results[{}]", source, i), "a measurement");
    CollectiveMeasurement m;
    const std::string op = r.string("op");
    if (op == "all_reduce")
      m.op = CollectiveOp::all_reduce;
    else if (op == "all_to_all")
      m.op = CollectiveOp::all_to_all;
    else
      r.fail("op", "must be all_reduce or all_to_all");
    // Sizes reach 8 GiB, past JsonFields' integers (capped at 2^31 - 1).
    const nlohmann::json& bytes = results[i].contains("bytes") ? results[i].at("bytes") : nlohmann::json();
    if (!bytes.is_number_unsigned() || bytes.get<std::uint64_t>() == 0) r.fail("bytes", "must be a positive integer");
    m.bytes = bytes.get<std::uint64_t>();
    const nlohmann::json& time = results[i].contains("time_us") ? results[i].at("time_us") : nlohmann::json();
    if (!time.is_number() || !(time.get<double>() > 0)) r.fail("time_us", "must be a positive number");
    m.seconds_per_op = time.get<double>() * 1e-6;
    m.correct = !results[i].contains("correct") || results[i].at("correct") == true;
    m.elements = m.bytes / sizeof(float);
    measured.push_back(m);
  }
  return measured;
}

Link read_measured_link(const std::string& path, std::string_view argument) {
  const std::vector<std::uint8_t> bytes = read_file_bytes(path, argument);
  const std::string source = fmt::format("{} '{}'", argument, path);
  const nlohmann::json object = model_detail::parse_json_object(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), source);
  int world_size = 0;
  const std::vector<CollectiveMeasurement> measured = collective_measurements_from_json(object, source, world_size);
  LinkCalibration c = calibrate_link(measured, world_size, path);
  require(c.link.has_value(), "{}: {}", source, c.note);
  return std::move(*c.link);
}

}  // namespace fp4gemm
