#include "report/ceilings_report.hpp"

#include <fmt/format.h>

#include "bench/roofline.hpp"
#include "report/text_table.hpp"

namespace fp4gemm {

std::string ceilings_table(const MeasuredCeilings& m, const Ceilings& datasheet) {
  using A = TextTable::Align;
  TextTable table({{"ceiling", A::left},
                   {"measured", A::right},
                   {"datasheet", A::right},
                   {"ratio", A::right},
                   {"method", A::left}});
  struct Row {
    const char* name;
    const CeilingMeasurement& measured;
    double datasheet;
    const char* unit;
  };
  const Row rows[] = {
      {"DRAM read", m.read_gbps, datasheet.memory_gbps, "GB/s"},
      {"DRAM copy", m.copy_gbps, datasheet.memory_gbps, "GB/s"},
      {"BF16 tensor", m.bf16_tflops, datasheet.bf16_tflops, "TFLOPS"},
      {"FP8 tensor", m.fp8_tflops, datasheet.fp8_tflops, "TFLOPS"},
      {"FP4 tensor", m.fp4_tflops, datasheet.fp4_tflops, "TFLOPS"},
  };
  for (const Row& r : rows) {
    const bool measured = r.measured.value > 0;
    const std::string sheet = r.datasheet > 0 ? fmt::format("{:.0f} {}", r.datasheet, r.unit)
                              : datasheet.known() ? "none"
                                                  : "unknown";
    table.add_row({r.name, measured ? fmt::format("{:.0f} {}", r.measured.value, r.unit) : "-", sheet,
                   measured && r.datasheet > 0 ? format_percent(r.measured.value / r.datasheet) : "-",
                   r.measured.method});
  }
  return table.render();
}

}  // namespace fp4gemm
