#pragma once
// One rank of `fp4gemm collectives`: the work of one child process on one GPU. It joins the NCCL
// communicator, times each collective of the sweep with CUDA events, and checks the received
// values. Implemented in src/cuda/collective_rank.cpp; a build without CUDA throws.
#include <vector>

#include "cluster/collective_math.hpp"
#include "cluster/nccl_library.hpp"

namespace fp4gemm {

// Rank `rank` of `world_size` on CUDA device `rank`: cudaSetDevice, ncclCommInitRank with `id`,
// then for each op of options.ops and each size of the sweep (sizes that move no element to
// every peer are left out): options.warmup untimed calls, options.iters calls between two CUDA
// events, and one check of the receive buffer. Send buffers hold rank + 1 in every element, so an
// all-reduce receives n (n + 1) / 2 everywhere and an all-to-all receives block i filled with i + 1.
// All-to-all is ncclSend/ncclRecv to every peer inside ncclGroupStart/End (as nccl-tests does).
std::vector<CollectiveMeasurement> run_collective_rank(const NcclLibrary& nccl, const nccl::UniqueId& id, int rank,
                                                       int world_size, const CollectivesOptions& options);

// The same sweep on an existing communicator of `world_size` ranks (the current CUDA device
// already set): what `plan --measure` measures before its layers, for the link calibration.
std::vector<CollectiveMeasurement> run_collective_sweep(const NcclLibrary& nccl, const Communicator& comm, int rank,
                                                        int world_size, const CollectivesOptions& options);

}  // namespace fp4gemm
