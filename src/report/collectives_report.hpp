#pragma once
// The output of `fp4gemm collectives`: a table per collective in nccl-tests' columns (size,
// elements, time per op, algbw, busbw, whether the received values were right) and the same
// record as JSON.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/collective_math.hpp"

namespace fp4gemm {

struct CollectivesRecord {
  std::string command;       // the command line as typed
  int world_size = 0;
  std::string nccl_library;  // the path NCCL was loaded from
  int nccl_version = 0;      // ncclGetVersion's code, e.g. 22809 for 2.28.9
  int iters = 0, warmup = 0;
  std::vector<CollectiveMeasurement> measurements;  // merged over the ranks
};

// "2.28.9" for 22809 (NCCL >= 2.9's code: major * 10000 + minor * 100 + patch).
std::string nccl_version_text(int version_code);
// The table, one block per collective.
std::string collectives_table(const CollectivesRecord& record);
nlohmann::ordered_json to_json(const CollectivesRecord& record);

}  // namespace fp4gemm
