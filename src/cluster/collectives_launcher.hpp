#pragma once
// The processes of `fp4gemm collectives`: the one-process-per-GPU launcher (rank_launcher.hpp)
// with run_collective_rank as each rank's body.
#include <vector>

#include "cluster/collective_math.hpp"
#include "cluster/rank_launcher.hpp"

namespace fp4gemm {

// Runs ranks 0 .. world_size - 1 (rank r on device r, run_collective_rank) and returns their merged
// measurements. A rank that fails or dies ends the others and throws Error naming the rank and its
// reason; so does a run still waiting for a rank after options.timeout_seconds (naming the ranks
// that had not reported).
std::vector<CollectiveMeasurement> run_collectives(const CollectivesOptions& options, int world_size);

}  // namespace fp4gemm
