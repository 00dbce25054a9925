// fp4gemm: the command-line tool. Each verb lives in its own cmd_<verb>.cpp.
#include <cstdio>

#include "commands.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm::cli {
int& exit_code() {
  static int code = 0;
  return code;
}
std::string& command_line() {
  static std::string line;
  return line;
}
}  // namespace fp4gemm::cli

int main(int argc, char** argv) {
  using namespace fp4gemm::cli;
  for (int i = 0; i < argc; ++i) command_line() += (i ? " " : "") + std::string(argv[i]);
  CLI::App app{"fp4gemm: NVFP4/MXFP4 GEMM kernels and a reality check of every backend on this machine",
               "fp4gemm"};
  app.set_version_flag("--version", FP4GEMM_VERSION);
  app.require_subcommand(1);
  add_devices_command(app);
  add_backends_command(app);
  add_check_command(app);
  add_bench_command(app);
  add_quantize_command(app);
  add_gemm_command(app);
  add_shapes_command(app);
  add_compare_command(app);
  add_plan_command(app);
  add_ceilings_command(app);
  add_run_command(app);
  add_collectives_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const fp4gemm::Error& e) {
    std::fprintf(stderr, "fp4gemm: error: %s\n", e.what());
    return 2;
  }
  return exit_code();
}
