#include "bench/measured_ceilings.hpp"

#include <chrono>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

// The measurements of a record by JSON field name, in schema order.
constexpr std::pair<const char*, CeilingMeasurement MeasuredCeilings::*> kFields[] = {
    {"read_gbps", &MeasuredCeilings::read_gbps},
    {"copy_gbps", &MeasuredCeilings::copy_gbps},
    {"bf16_tflops", &MeasuredCeilings::bf16_tflops},
    {"fp8_tflops", &MeasuredCeilings::fp8_tflops},
    {"fp4_tflops", &MeasuredCeilings::fp4_tflops}};

}  // namespace

std::string CeilingsKey::describe() const {
  return fmt::format("{}, driver {}, {} MiB", gpu, driver, memory_mib);
}

std::string MeasuredCeilings::source(std::string_view origin) const {
  // The date part of measured_at ("2026-12-03T10:11:12Z").
  return fmt::format("measured {} ({})", measured_at.substr(0, measured_at.find('T')), origin);
}

std::string utc_timestamp_now() {
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", now);
}

nlohmann::ordered_json to_json(const MeasuredCeilings& m) {
  nlohmann::ordered_json j;
  j["schema"] = kCeilingsSchema;
  j["gpu"] = m.key.gpu;
  j["driver"] = m.key.driver;
  j["memory_mib"] = m.key.memory_mib;
  j["measured_at"] = m.measured_at;
  j["fp4gemm_version"] = FP4GEMM_VERSION;
  for (const auto& [name, member] : kFields)
    j[name] = {{"value", (m.*member).value}, {"method", (m.*member).method}};
  return j;
}

MeasuredCeilings measured_ceilings_from_json(const nlohmann::json& j, std::string_view source) {
  if (!j.is_object() || j.value("schema", "") != kCeilingsSchema)
    throw IoError(fmt::format("{}: not an fp4gemm ceilings file (no \"schema\": \"{}\")", source,
                              kCeilingsSchema));
  MeasuredCeilings m;
  try {
    m.key = {j.at("gpu").get<std::string>(), j.at("driver").get<std::string>(),
             j.at("memory_mib").get<std::int64_t>()};
    m.measured_at = j.at("measured_at").get<std::string>();
    for (const auto& [name, member] : kFields) {
      const nlohmann::json& f = j.at(name);
      m.*member = {f.at("value").get<double>(), f.at("method").get<std::string>()};
      if (!((m.*member).value >= 0))
        throw IoError(fmt::format("{}: {}.value = {} must be >= 0", source, name, (m.*member).value));
    }
  } catch (const nlohmann::json::exception& e) {
    throw IoError(fmt::format("{}: malformed ceilings record ({})", source, e.what()));
  }
  return m;
}

Ceilings as_ceilings(const MeasuredCeilings& m, const Ceilings& datasheet, std::string_view origin) {
  Ceilings c;
  c.device = m.key.gpu;
  c.memory = datasheet.memory.empty() ? "DRAM" : datasheet.memory;
  c.memory_gbps = m.read_gbps.value;
  c.source = m.source(origin);
  const std::pair<const CeilingMeasurement*, double Ceilings::*> peaks[] = {
      {&m.bf16_tflops, &Ceilings::bf16_tflops},
      {&m.fp8_tflops, &Ceilings::fp8_tflops},
      {&m.fp4_tflops, &Ceilings::fp4_tflops}};
  const char* names[] = {"BF16", "FP8", "FP4"};
  std::vector<std::string> from_datasheet;
  for (std::size_t i = 0; i < std::size(peaks); ++i) {
    const auto [measured, peak] = peaks[i];
    c.*peak = measured->value;
    if (measured->value == 0 && datasheet.*peak > 0) {
      c.*peak = datasheet.*peak;
      from_datasheet.push_back(names[i]);
    }
  }
  if (!from_datasheet.empty())
    c.source += fmt::format("; {} from the datasheet", fmt::join(from_datasheet, ", "));
  return c;
}

}  // namespace fp4gemm
