// The table and JSON of `fp4gemm collectives` on a hand-made record: nccl-tests' columns, busbw
// by the world size, a wrong check shown, and the JSON fields.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "report/collectives_report.hpp"

namespace fp4gemm {
namespace {

using ::testing::HasSubstr;

CollectivesRecord two_rank_record() {
  CollectivesRecord record;
  record.command = "fp4gemm collectives --gpus 2";
  record.world_size = 2;
  record.nccl_library = "libnccl.so.2";
  record.nccl_version = 22809;
  record.iters = 20;
  record.warmup = 5;
  // 1 MB in 10 us: 100 GB/s algbw; busbw 100 (all-reduce, x 1) and 50 (all-to-all, x 1/2).
  record.measurements = {{CollectiveOp::all_reduce, 1'000'000, 250'000, 10e-6, true},
                         {CollectiveOp::all_to_all, 1'000'000, 250'000, 10e-6, false}};
  return record;
}

TEST(CollectivesReport, VersionText) {
  EXPECT_EQ(nccl_version_text(22809), "2.28.9");
  EXPECT_EQ(nccl_version_text(21903), "2.19.3");
}

TEST(CollectivesReport, TableHasNcclTestsColumns) {
  const std::string table = collectives_table(two_rank_record());
  EXPECT_THAT(table, HasSubstr("NCCL 2.28.9 (libnccl.so.2), 2 rank(s)"));
  EXPECT_THAT(table, HasSubstr("NCCL_NVLS_ENABLE=0"));
  EXPECT_THAT(table, HasSubstr("all_reduce"));
  EXPECT_THAT(table, HasSubstr("all_to_all"));
  EXPECT_THAT(table, HasSubstr("algbw (GB/s)"));
  EXPECT_THAT(table, HasSubstr("100.00"));
  EXPECT_THAT(table, HasSubstr("50.00"));
  EXPECT_THAT(table, HasSubstr("WRONG"));
}

TEST(CollectivesReport, JsonRecordsEachSize) {
  const nlohmann::ordered_json json = to_json(two_rank_record());
  EXPECT_EQ(json["world_size"], 2);
  EXPECT_EQ(json["nccl_version"], "2.28.9");
  EXPECT_EQ(json["nvlink_multicast"], "off (NCCL_NVLS_ENABLE=0)");
  ASSERT_EQ(json["results"].size(), 2u);
  EXPECT_EQ(json["results"][0]["op"], "all_reduce");
  EXPECT_DOUBLE_EQ(json["results"][0]["time_us"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(json["results"][0]["algbw_gbps"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(json["results"][0]["busbw_gbps"].get<double>(), 100.0);
  EXPECT_DOUBLE_EQ(json["results"][1]["busbw_gbps"].get<double>(), 50.0);
  EXPECT_EQ(json["results"][1]["correct"], false);
}

}  // namespace
}  // namespace fp4gemm
