#pragma once
// The arithmetic of `fp4gemm collectives`, in the style of nccl-tests: which collectives it
// measures, the message sizes of a sweep, how many float32 elements a size moves, and the
// algorithm and bus bandwidth of a measured time. Also the command's options and their rules.
// No CUDA, no NCCL: all of it is tested on the CPU.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fp4gemm {

enum class CollectiveOp { all_reduce, all_to_all };

// "all_reduce", "all_to_all".
std::string_view collective_op_name(CollectiveOp op);
// The ops of a comma-separated list ("all_reduce,all_to_all"); throws InvalidArgument naming
// --ops for an empty list, an unknown name or a repeated one.
std::vector<CollectiveOp> parse_collective_ops(std::string_view list);

// The sizes of a sweep: min_bytes, min_bytes * factor, ... while <= max_bytes (nccl-tests -b -e -f).
std::vector<std::uint64_t> message_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor);

// The float32 elements each rank sends for a message of `bytes`: bytes / 4, and for all-to-all
// rounded down to a multiple of the world size (each peer gets the same count). 0 when the
// message is too small to move one element to every peer.
std::uint64_t collective_elements(CollectiveOp op, std::uint64_t bytes, int world_size);

// Algorithm bandwidth, bytes / time, in GB/s (1e9 bytes per second, as nccl-tests prints).
double algorithm_bandwidth_gbps(std::uint64_t bytes, double seconds);
// nccl-tests' bus bandwidth factor: 2 (n - 1) / n for all-reduce, (n - 1) / n for all-to-all;
// 0 for n = 1 (nothing crosses a link).
double bus_bandwidth_factor(CollectiveOp op, int world_size);
// Bus bandwidth: algorithm bandwidth x the factor above, in GB/s.
double bus_bandwidth_gbps(CollectiveOp op, int world_size, std::uint64_t bytes, double seconds);

// One collective at one size: what a rank measured, or, merged over the ranks, what the table
// shows (nccl-tests reports the slowest rank's time).
struct CollectiveMeasurement {
  CollectiveOp op = CollectiveOp::all_reduce;
  std::uint64_t bytes = 0;     // moved per rank: elements x 4
  std::uint64_t elements = 0;  // float32 elements per rank
  double seconds_per_op = 0;
  bool correct = false;        // the received values were the expected sums / blocks
};

// The ranks' measurements of the same sweep merged: each entry's slowest time, and correct only
// where every rank was. Throws Error when the ranks measured different sweeps.
std::vector<CollectiveMeasurement> merge_rank_measurements(
    const std::vector<std::vector<CollectiveMeasurement>>& per_rank);

// The options of `fp4gemm collectives`. No gpus means every visible GPU.
struct CollectivesOptions {
  std::optional<int> gpus;
  std::uint64_t min_bytes = 1024;
  std::uint64_t max_bytes = std::uint64_t(256) << 20;
  std::uint64_t factor = 2;
  std::vector<CollectiveOp> ops{CollectiveOp::all_reduce, CollectiveOp::all_to_all};
  int iters = 20;
  int warmup = 5;
  // The whole run's limit: ranks still running after it (a hang inside NCCL, a stuck GPU) are
  // ended, so that a machine lent by the minute is not held by a wait without end.
  int timeout_seconds = 600;
};

// The largest --max-bytes: each rank holds a send and a receive buffer of this size.
inline constexpr std::uint64_t kMaxCollectiveBytes = std::uint64_t(8) << 30;

// Throws InvalidArgument naming the option and its rule (--gpus >= 1,
// 4 <= --min-bytes <= --max-bytes <= 8 GiB, --factor >= 2, --iters >= 1, --warmup >= 0,
// --timeout >= 1).
void validate(const CollectivesOptions& options);
// The world size: options.gpus, or every visible GPU without it; throws InvalidArgument naming
// --gpus when it exceeds `visible_gpus`.
int world_size_for(const CollectivesOptions& options, int visible_gpus);

}  // namespace fp4gemm
