// `fp4gemm collectives` through the rank launcher: each rank measures the sweep, the parent
// merges the ranks' measurements (the slowest time of each).
#include "cluster/collectives_launcher.hpp"

#include "cluster/collective_rank.hpp"

namespace fp4gemm {

std::vector<CollectiveMeasurement> run_collectives(const CollectivesOptions& options, int world_size) {
  const std::vector<std::string> reports = run_ranks(
      "collectives", world_size, options.timeout_seconds,
      [&](const NcclLibrary& nccl, const nccl::UniqueId& id, int rank, int ranks) {
        return pack_records(run_collective_rank(nccl, id, rank, ranks, options));
      });
  std::vector<std::vector<CollectiveMeasurement>> per_rank;
  for (const std::string& report : reports)
    per_rank.push_back(unpack_records<CollectiveMeasurement>(report, "collectives"));
  return merge_rank_measurements(per_rank);
}

}  // namespace fp4gemm
