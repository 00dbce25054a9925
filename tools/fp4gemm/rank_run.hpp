#pragma once
// The start shared by the commands that run one process per GPU (`collectives`, `plan
// --measure`): the --json file refused before anything is measured, the GPUs counted by a child
// process (this one stays free of CUDA for the fork), the world size from --gpus, and NCCL loaded
// once for its path and version, so that a missing NCCL is a clear error before any rank starts.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "cluster/collective_math.hpp"
#include "report/collectives_report.hpp"

namespace fp4gemm::cli {

// Returns the record's run fields (command, world_size, iters, warmup, nccl_library,
// nccl_version), or nullopt after printing "fp4gemm: error: <none_here>, and there is none here:
// <why>" and setting exit status 1 when this host has no GPU. `before_nccl(world_size,
// visible_gpus)` runs once the GPUs are known, before NCCL is loaded (checks of the command's own).
std::optional<CollectivesRecord> start_rank_run(
    std::string_view none_here, const CollectivesOptions& options, const std::string& json_path, bool force,
    const std::function<void(int world_size, int visible_gpus)>& before_nccl = {});

}  // namespace fp4gemm::cli
