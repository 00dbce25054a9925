#pragma once
// One function per verb: each adds its subcommand (options, --help text, callback) to the app.
// A callback reports failure by throwing fp4gemm::Error (main prints it and exits 2) or by
// returning through exit_code (e.g. `check` sets 1 when a backend fails).
#include <CLI/CLI.hpp>

namespace fp4gemm::cli {

// Where a verb's callback leaves its exit status (0 unless set).
int& exit_code();
// The command line as typed (argv joined by spaces), recorded in result files.
std::string& command_line();

void add_devices_command(CLI::App& app);
void add_backends_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_quantize_command(CLI::App& app);
void add_gemm_command(CLI::App& app);
void add_shapes_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_plan_command(CLI::App& app);
void add_ceilings_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_collectives_command(CLI::App& app);

}  // namespace fp4gemm::cli
