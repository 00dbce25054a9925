#pragma once
// The processes of `fp4gemm collectives`: one child per GPU, forked by this process, which stays
// free of CUDA and NCCL calls (a process that has initialized CUDA cannot hand it to a forked
// child). Rank 0 creates the ncclUniqueId and sends it up its pipe; the parent relays it down the
// pipes of the other ranks; each rank reports its measurements (or its error) up its pipe, and the
// parent merges them. The GPU paths have not run on a GPU yet.
#include <string>
#include <vector>

#include "cluster/collective_math.hpp"

namespace fp4gemm {

// The visible CUDA devices, counted by a forked child (query_gpus) so that this process does not
// initialize CUDA; 0 with `why_none` set when there is none or the build has no CUDA.
int count_gpus_in_child(std::string& why_none);

// Runs ranks 0 .. world_size - 1 (rank r on device r, run_collective_rank) and returns their merged
// measurements. A rank that fails or dies ends the others (SIGKILL to each child by its pid) and
// throws Error naming the rank and its reason; so does a run still waiting for a rank after
// options.timeout_seconds (naming the ranks that had not reported).
std::vector<CollectiveMeasurement> run_collectives(const CollectivesOptions& options, int world_size);

}  // namespace fp4gemm
