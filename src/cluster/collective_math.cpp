// The arithmetic of `fp4gemm collectives` (sizes, elements, algbw and busbw) and its option rules.
#include "cluster/collective_math.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm {

std::string_view collective_op_name(CollectiveOp op) {
  return op == CollectiveOp::all_reduce ? "all_reduce" : "all_to_all";
}

std::vector<CollectiveOp> parse_collective_ops(std::string_view list) {
  std::vector<CollectiveOp> ops;
  std::size_t begin = 0;
  while (begin <= list.size()) {
    const std::size_t end = std::min(list.find(',', begin), list.size());
    const std::string_view name = list.substr(begin, end - begin);
    CollectiveOp op;
    if (name == "all_reduce")
      op = CollectiveOp::all_reduce;
    else if (name == "all_to_all")
      op = CollectiveOp::all_to_all;
    else
      throw InvalidArgument(fmt::format("--ops: '{}' is not a collective; the choices are all_reduce and all_to_all",
                                        name));
    require(std::find(ops.begin(), ops.end(), op) == ops.end(), "--ops: '{}' is named twice", name);
    ops.push_back(op);
    begin = end + 1;
  }
  return ops;
}

std::vector<std::uint64_t> message_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor) {
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= factor) {
    sizes.push_back(bytes);
    if (bytes > max_bytes / factor) break;  // the next size would pass max_bytes (or overflow)
  }
  return sizes;
}

std::uint64_t collective_elements(CollectiveOp op, std::uint64_t bytes, int world_size) {
  const std::uint64_t elements = bytes / sizeof(float);
  if (op == CollectiveOp::all_reduce) return elements;
  return elements / std::uint64_t(world_size) * std::uint64_t(world_size);
}

double algorithm_bandwidth_gbps(std::uint64_t bytes, double seconds) { return double(bytes) / seconds / 1e9; }

double bus_bandwidth_factor(CollectiveOp op, int world_size) {
  const double n = world_size;
  return op == CollectiveOp::all_reduce ? 2.0 * (n - 1.0) / n : (n - 1.0) / n;
}

double bus_bandwidth_gbps(CollectiveOp op, int world_size, std::uint64_t bytes, double seconds) {
  return algorithm_bandwidth_gbps(bytes, seconds) * bus_bandwidth_factor(op, world_size);
}

std::vector<CollectiveMeasurement> merge_rank_measurements(
    const std::vector<std::vector<CollectiveMeasurement>>& per_rank) {
  if (per_rank.empty()) return {};
  std::vector<CollectiveMeasurement> merged = per_rank.front();
  for (std::size_t rank = 1; rank < per_rank.size(); ++rank) {
    const std::vector<CollectiveMeasurement>& measured = per_rank[rank];
    if (measured.size() != merged.size())
      throw Error(fmt::format("rank {} measured {} collectives, rank 0 measured {}", rank, measured.size(),
                              merged.size()));
    for (std::size_t i = 0; i < merged.size(); ++i) {
      if (measured[i].op != merged[i].op || measured[i].bytes != merged[i].bytes)
        throw Error(fmt::format("rank {} measured {} of {} bytes where rank 0 measured {} of {} bytes", rank,
                                collective_op_name(measured[i].op), measured[i].bytes,
                                collective_op_name(merged[i].op), merged[i].bytes));
      merged[i].seconds_per_op = std::max(merged[i].seconds_per_op, measured[i].seconds_per_op);
      merged[i].correct = merged[i].correct && measured[i].correct;
    }
  }
  return merged;
}

void validate(const CollectivesOptions& options) {
  require(!options.gpus || *options.gpus >= 1,
          "--gpus {} must be >= 1 (leave it out for every visible GPU)", options.gpus.value_or(0));
  require(options.min_bytes >= sizeof(float), "--min-bytes {} is below 4 (one float32 element)", options.min_bytes);
  require(options.max_bytes >= options.min_bytes, "--max-bytes {} is below --min-bytes {}", options.max_bytes,
          options.min_bytes);
  require(options.max_bytes <= kMaxCollectiveBytes, "--max-bytes {} is above {} (8 GiB)", options.max_bytes,
          kMaxCollectiveBytes);
  require(options.factor >= 2, "--factor {} must be >= 2 (each size is the previous one times --factor)",
          options.factor);
  require(!options.ops.empty(), "--ops names no collective; the choices are all_reduce and all_to_all");
  require(options.iters >= 1, "--iters {} must be >= 1", options.iters);
  require(options.warmup >= 0, "--warmup {} must be >= 0", options.warmup);
  require(options.timeout_seconds >= 1, "--timeout {} must be >= 1 (seconds)", options.timeout_seconds);
}

int world_size_for(const CollectivesOptions& options, int visible_gpus) {
  if (!options.gpus) return visible_gpus;
  require(*options.gpus <= visible_gpus, "--gpus {} is more than the {} visible GPU(s) of this host", *options.gpus,
          visible_gpus);
  return *options.gpus;
}

}  // namespace fp4gemm
