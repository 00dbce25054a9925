// fp4gemm backends: every backend of this build, whether it is available here, and why not.
#include <fmt/format.h>

#include "commands.hpp"
#include "fp4gemm/backend.hpp"
#include "report/text_table.hpp"

namespace fp4gemm::cli {

void add_backends_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("backends", "List every backend, whether it is available here and why not");
  cmd->callback([] {
    using A = TextTable::Align;
    TextTable table({{"backend", A::left}, {"device", A::left}, {"available", A::left},
                     {"accuracy", A::left}, {"what it is / why not", A::left}});
    for (const auto& b : all_backends()) {
      const Verdict v = b->availability();
      table.add_row({std::string(b->name()), b->device() == DeviceKind::cpu ? "cpu" : "cuda",
                     v.ok ? "yes" : "no", b->accuracy().note,
                     v.ok ? std::string(b->summary()) : v.reason});
    }
    fmt::print("{}", table.render());
  });
}

}  // namespace fp4gemm::cli
