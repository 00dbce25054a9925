// fp4gemm ceilings: measure this GPU's ceilings (device read and copy bandwidth, dense BF16/FP8/
// FP4 tensor throughput: src/bench/ceilings_probe.hpp), print them against the datasheet, and
// cache them for bench (src/bench/ceilings_cache.hpp); --json writes the same record to a file.
// Without a GPU: an error naming the reason, exit status 1.
#include <fmt/format.h>

#include "bench/ceilings_cache.hpp"
#include "bench/ceilings_probe.hpp"
#include "commands.hpp"
#include "fp4gemm/device.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "report/ceilings_report.hpp"

namespace fp4gemm::cli {
namespace {

struct CeilingsArgs {
  std::string json_path;
  bool force = false;
  CeilingsProbeOptions probe;
};

}  // namespace

void add_ceilings_command(CLI::App& app) {
  auto args = std::make_shared<CeilingsArgs>();
  auto* cmd = app.add_subcommand(
      "ceilings", "Measure this GPU's memory bandwidth and dense tensor throughput, and cache them for bench");
  cmd->add_option("--json", args->json_path, "Also write the measurement as JSON to this file");
  cmd->add_flag("--force", args->force, "Replace an existing --json file");
  cmd->add_option("--gemm-size", args->probe.gemm_size,
                  "M = N = K of the throughput GEMMs (default 8192; a multiple of 128)");
  cmd->add_option("--repetitions", args->probe.repetitions, "Timed calls per measurement; the best counts (default 20)");
  cmd->callback([args] {
    std::string why_none;
    const std::vector<GpuInfo> gpus = query_gpus(&why_none);
    if (gpus.empty()) {
      fmt::print(stderr, "fp4gemm: error: ceilings measures a GPU, and there is none here: {}\n", why_none);
      exit_code() = 1;
      return;
    }
    // Before the measurement, so that a refused output does not waste it.
    if (!args->json_path.empty()) require_output_writable(args->json_path, args->force, "--json");
    const GpuInfo& gpu = gpus.front();
    const CeilingsKey key = ceilings_key(gpu);
    fmt::print(stderr, "fp4gemm ceilings: measuring {} (device {}, sm_{}{})\n", key.describe(), gpu.index,
               gpu.sm_major, gpu.sm_minor);
    const MeasuredCeilings m = measure_ceilings(gpu, key, args->probe);
    fmt::print("{}", ceilings_table(m, lookup_ceilings(gpu.name)));
    try {
      fmt::print("cached: {} (bench uses it on this GPU with this driver)\n", store_cached_ceilings(m).string());
    } catch (const IoError& e) {
      fmt::print(stderr, "fp4gemm ceilings: not cached: {}\n", e.what());
    }
    if (!args->json_path.empty())
      write_text_atomically(args->json_path, to_json(m).dump(2) + "\n", args->force, "--json");
  });
}

}  // namespace fp4gemm::cli
