// The start of the one-process-per-GPU commands (rank_run.hpp).
#include "rank_run.hpp"

#include <fmt/format.h>

#include "cluster/nccl_library.hpp"
#include "cluster/rank_launcher.hpp"
#include "commands.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"

namespace fp4gemm::cli {

std::optional<CollectivesRecord> start_rank_run(std::string_view none_here, const CollectivesOptions& options,
                                                const std::string& json_path, bool force,
                                                const std::function<void(int, int)>& before_nccl) {
  // Before the measurement, so that a refused output does not waste it.
  if (!json_path.empty()) require_output_writable(json_path, force, "--json");
  std::string why_none;
  const int visible_gpus = count_gpus_in_child(why_none);
  if (visible_gpus == 0) {
    fmt::print(stderr, "fp4gemm: error: {}, and there is none here: {}\n", none_here, why_none);
    exit_code() = 1;
    return std::nullopt;
  }
  CollectivesRecord record;
  record.command = command_line();
  record.world_size = world_size_for(options, visible_gpus);
  record.iters = options.iters;
  record.warmup = options.warmup;
  if (before_nccl) before_nccl(record.world_size, visible_gpus);
  {
    // Loaded here for its version and a clear error before any rank starts; closed again before
    // the fork, and each rank loads its own (NCCL_NVLS_ENABLE=0 is set first, and inherited).
    const std::unique_ptr<NcclLibrary> nccl = open_nccl_from_environment();
    record.nccl_library = nccl->path();
    record.nccl_version = nccl->version();
  }
  return record;
}

}  // namespace fp4gemm::cli
