// Table and JSON of `fp4gemm collectives` (nccl-tests' columns: time, algbw, busbw).
#include "report/collectives_report.hpp"

#include <fmt/format.h>

#include "report/text_table.hpp"

namespace fp4gemm {

std::string nccl_version_text(int version_code) {
  return fmt::format("{}.{}.{}", version_code / 10000, version_code / 100 % 100, version_code % 100);
}

std::string collectives_table(const CollectivesRecord& record) {
  std::string text = fmt::format("NCCL {} ({}), {} rank(s), one process per GPU, NVLink multicast off "
                                 "(NCCL_NVLS_ENABLE=0), {} timed + {} warmup calls per size\n",
                                 nccl_version_text(record.nccl_version), record.nccl_library, record.world_size,
                                 record.iters, record.warmup);
  for (const CollectiveOp op : {CollectiveOp::all_reduce, CollectiveOp::all_to_all}) {
    TextTable table({{"bytes", TextTable::Align::right},
                     {"elements (float32)", TextTable::Align::right},
                     {"time (us)", TextTable::Align::right},
                     {"algbw (GB/s)", TextTable::Align::right},
                     {"busbw (GB/s)", TextTable::Align::right},
                     {"values", TextTable::Align::left}});
    bool any = false;
    for (const CollectiveMeasurement& m : record.measurements) {
      if (m.op != op) continue;
      any = true;
      table.add_row({fmt::format("{}", m.bytes), fmt::format("{}", m.elements),
                     fmt::format("{:.2f}", m.seconds_per_op * 1e6),
                     fmt::format("{:.2f}", algorithm_bandwidth_gbps(m.bytes, m.seconds_per_op)),
                     fmt::format("{:.2f}", bus_bandwidth_gbps(op, record.world_size, m.bytes, m.seconds_per_op)),
                     m.correct ? "right" : "WRONG"});
    }
    if (any) text += fmt::format("\n{}\n{}", collective_op_name(op), table.render());
  }
  return text;
}

nlohmann::ordered_json to_json(const CollectivesRecord& record) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const CollectiveMeasurement& m : record.measurements) {
    results.push_back({{"op", collective_op_name(m.op)},
                       {"bytes", m.bytes},
                       {"elements", m.elements},
                       {"time_us", m.seconds_per_op * 1e6},
                       {"algbw_gbps", algorithm_bandwidth_gbps(m.bytes, m.seconds_per_op)},
                       {"busbw_gbps", bus_bandwidth_gbps(m.op, record.world_size, m.bytes, m.seconds_per_op)},
                       {"correct", m.correct}});
  }
  return {{"command", record.command},
          {"world_size", record.world_size},
          {"processes", "one per GPU"},
          {"nccl_library", record.nccl_library},
          {"nccl_version", nccl_version_text(record.nccl_version)},
          {"nvlink_multicast", "off (NCCL_NVLS_ENABLE=0)"},
          {"iters", record.iters},
          {"warmup", record.warmup},
          {"results", results}};
}

}  // namespace fp4gemm
