// fp4gemm check: every available backend on a grid of problems against the CPU reference;
// PASS/FAIL per backend and problem with ||D-R||/||R||; exit status 1 on any failure.
#include <fmt/format.h>

#include <map>

#include "backend_selection.hpp"
#include "check/check_runner.hpp"
#include "commands.hpp"
#include "shape_list.hpp"

namespace fp4gemm::cli {
namespace {

struct CheckArgs {
  std::vector<std::string> backends;
  std::vector<std::string> formats{"nvfp4", "mxfp4"};
  std::vector<std::string> modes{"w4a16", "w4a4"};
  std::vector<std::string> shapes;
  bool quick = false;
  std::uint64_t seed = 1;
};

std::vector<GemmProblem> build_grid(const CheckArgs& args) {
  CheckGridOptions options;
  options.formats.clear();
  options.modes.clear();
  for (const auto& f : args.formats) options.formats.push_back(parse_fp4_format(f, "--format"));
  for (const auto& m : args.modes) options.modes.push_back(parse_mode(m, "--mode"));
  options.include_large = !args.quick;
  if (args.shapes.empty()) return default_check_grid(options);
  std::vector<GemmProblem> grid;
  for (const GemmShape& shape : parse_shape_list(args.shapes, "--shapes"))
    for (Fp4Format format : options.formats) {
      validate_shape(shape, format);
      for (Mode mode : options.modes)
        grid.push_back(GemmProblem{shape, mode, format, ScaleLayout::linear, DType::f32});
    }
  return grid;
}

std::string row_line(const CheckRow& row) {
  const std::string problem =
      fmt::format("{} ({})", row.problem.describe(), to_string(row.problem.scale_layout));
  if (row.status == CheckStatus::skip)
    return fmt::format("SKIP  {:<14} {:<42} {}", row.backend, problem, row.note);
  const VerifyResult& v = row.verify;
  std::string detail = row.note.empty()
                           ? fmt::format("rel err {:.2e}, worst {:.2f} of bound", v.relative_error, v.worst_ratio)
                           : row.note;
  if (row.status == CheckStatus::fail && row.note.empty()) {
    detail += fmt::format("; {} over bound, {} unwritten, {} NaN/Inf{}: {}", v.violations, v.unwritten,
                          v.non_finite, v.all_zero ? ", ALL ZERO" : "", v.failure);
  }
  return fmt::format("{}  {:<14} {:<42} {}", to_string(row.status), row.backend, problem, detail);
}

}  // namespace

void add_check_command(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand(
      "check", "Verify every available backend against the CPU reference on a grid of shapes");
  cmd->add_option("--backend", args->backends, "Backends to check (default: every available one)")
      ->delimiter(',');
  cmd->add_option("--format", args->formats, "FP4 formats: nvfp4,mxfp4")->delimiter(',');
  cmd->add_option("--mode", args->modes, "Modes: w4a16,w4a4")->delimiter(',');
  cmd->add_option("--shapes", args->shapes,
                  "Check these MxNxK shapes instead of the default grid (e.g. 1x768x6144)")
      ->delimiter(',');
  cmd->add_flag("--quick", args->quick, "Leave out the M = 4096 rows (slow for the CPU reference)");
  cmd->add_option("--seed", args->seed, "Seed of the random operands");
  cmd->callback([args] {
    const std::vector<const Backend*> backends =
        select_backends(args->backends, DefaultBackends::every_device);
    const std::vector<GemmProblem> grid = build_grid(*args);
    fmt::print("Checking {} backend(s) on {} problems against the CPU reference (seed {}).\n",
               backends.size(), grid.size(), args->seed);
    fmt::print("{}", describe_named_only(backends));
    std::map<std::string, std::array<int, 3>> counts;  // pass, fail, skip per backend
    const auto rows = run_check(grid, backends, args->seed, [&](const CheckRow& row) {
      fmt::print("{}\n", row_line(row));
      std::fflush(stdout);
      ++counts[row.backend][std::size_t(row.status)];
    });
    fmt::print("\nSummary\n");
    int failures = 0;
    for (const auto& [name, c] : counts) {
      fmt::print("  {:<14} {} PASS, {} FAIL, {} SKIP{}\n", name, c[0], c[1], c[2],
                 c[0] == 0 && c[1] == 0 ? "  (nothing it could run)" : "");
      failures += c[1];
    }
    if (failures > 0) {
      fmt::print("FAILED: {} problem(s) failed\n", failures);
      exit_code() = 1;
    } else {
      fmt::print("All checked backends passed.\n");
    }
  });
}

}  // namespace fp4gemm::cli
