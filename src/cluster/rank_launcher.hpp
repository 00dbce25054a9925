#pragma once
// One process per GPU, for every command that runs NCCL between the GPUs of this host
// (`fp4gemm collectives`, `fp4gemm plan --measure`): one child per rank, forked by this process,
// which stays free of CUDA and NCCL calls (a process that has initialized CUDA cannot hand it to
// a forked child). Each rank loads NCCL (NCCL_NVLS_ENABLE=0 first); rank 0 creates the
// ncclUniqueId and sends it up its pipe; the parent relays it down the pipes of the other ranks;
// each rank then runs the caller's body (a forked child: it sees the caller's data as it was at
// the fork) and sends what the body returns, or its error, up its pipe. The first failure, or
// --timeout, ends every rank.
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cluster/nccl_library.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {

// The visible CUDA devices, counted by a forked child (query_gpus) so that this process does not
// initialize CUDA; 0 with `why_none` set when there is none or the build has no CUDA.
int count_gpus_in_child(std::string& why_none);

// The work of one rank in its own process: rank `rank` of `world_size` on CUDA device `rank`,
// with NCCL loaded and the run's ncclUniqueId. What it returns is the rank's report (any bytes);
// what it throws is the rank's error.
using RankBody =
    std::function<std::string(const NcclLibrary& nccl, const nccl::UniqueId& id, int rank, int world_size)>;

// Runs ranks 0 .. world_size - 1 and returns their reports, by rank. A rank that fails or dies
// ends the others (SIGKILL to each child by its pid) and throws Error "<label>: rank R (GPU R)
// failed: <reason>"; so does a run still waiting for a rank after `timeout_seconds` ("<label>:
// rank(s) R, ... had not reported after --timeout S s; every rank was ended").
std::vector<std::string> run_ranks(std::string_view label, int world_size, int timeout_seconds, const RankBody& body);

// Reports made of trivially copyable records: their bytes, and back. unpack_records throws Error
// naming `what` when the size is not a whole number of records.
template <typename T>
std::string pack_records(const std::vector<T>& records) {
  static_assert(std::is_trivially_copyable_v<T>);
  return std::string(reinterpret_cast<const char*>(records.data()), records.size() * sizeof(T));
}
template <typename T>
std::vector<T> unpack_records(std::string_view bytes, std::string_view what) {
  static_assert(std::is_trivially_copyable_v<T>);
  if (bytes.size() % sizeof(T) != 0)
    throw Error(std::string(what) + ": a report of " + std::to_string(bytes.size()) + " bytes is not whole records of " +
                std::to_string(sizeof(T)));
  std::vector<T> records(bytes.size() / sizeof(T));
  if (!bytes.empty()) std::memcpy(static_cast<void*>(records.data()), bytes.data(), bytes.size());
  return records;
}

}  // namespace fp4gemm
