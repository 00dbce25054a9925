// The launcher's processes and pipes without a GPU: the GPU count comes from a child, and a rank
// that fails (no GPU, no NCCL, or a build without CUDA) ends the run with an error naming the rank
// and its reason instead of hanging (skipped where a GPU exists: tests/cuda run the ranks there),
// and a rank that hangs is ended at --timeout. The generic run_ranks, with a stand-in NCCL that
// answers: the id reaches every rank, reports come back by rank, a throwing body names its rank.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include <unistd.h>

#include "cluster/collectives_launcher.hpp"
#include "cluster/rank_launcher.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

using ::testing::HasSubstr;

TEST(CollectivesLauncher, WithoutAGpuTheChildCountsNoneAndSaysWhy) {
  std::string why_none;
  if (count_gpus_in_child(why_none) > 0) GTEST_SKIP() << "a CUDA device is present";
  EXPECT_FALSE(why_none.empty());
}

TEST(CollectivesLauncher, AFailingRankEndsTheRunWithItsReason) {
  std::string why_none;
  if (count_gpus_in_child(why_none) > 0) GTEST_SKIP() << "a CUDA device is present";
  CollectivesOptions options;
  options.max_bytes = 4096;
  for (const int world_size : {1, 2}) {
    try {
      run_collectives(options, world_size);
      ADD_FAILURE() << "world size " << world_size << " ran without a GPU";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("collectives: rank ")) << world_size;
      EXPECT_THAT(e.what(), HasSubstr(" failed: ")) << world_size;
    }
  }
}

TEST(CollectivesLauncher, AHungRankIsEndedAtTheTimeout) {
  // Rank 0 hangs in ncclGetUniqueId of the stand-in library; the others wait for its id.
  setenv("FP4GEMM_NCCL_LIBRARY", FP4GEMM_HANGING_NCCL, 1);
  CollectivesOptions options;
  options.max_bytes = 4096;
  options.timeout_seconds = 1;
  for (const int world_size : {1, 2}) {
    const auto start = std::chrono::steady_clock::now();
    try {
      run_collectives(options, world_size);
      ADD_FAILURE() << "world size " << world_size << " returned from a hung rank";
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr("rank(s) 0 had not reported after --timeout 1 s")) << world_size;
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30)) << world_size;
  }
  unsetenv("FP4GEMM_NCCL_LIBRARY");
}

// Sets FP4GEMM_NCCL_LIBRARY for one test.
class StandInNccl {
 public:
  explicit StandInNccl(const char* path) { setenv("FP4GEMM_NCCL_LIBRARY", path, 1); }
  ~StandInNccl() { unsetenv("FP4GEMM_NCCL_LIBRARY"); }
};

TEST(RankLauncher, EveryRankGetsRankZerosIdAndReportsComeBackByRank) {
  const StandInNccl nccl(FP4GEMM_ECHO_NCCL);
  const std::vector<std::string> reports =
      run_ranks("test", 3, 30, [](const NcclLibrary& library, const nccl::UniqueId& id, int rank, int world_size) {
        // The id's first bytes, the rank, and the NCCL version seen by this process.
        return std::string(id.internal, 4) + " " + std::to_string(rank) + "/" + std::to_string(world_size) + " " +
               std::to_string(library.version()) + std::string(size_t(rank) * 1000, '.');
      });
  ASSERT_EQ(reports.size(), 3u);
  for (int rank = 0; rank < 3; ++rank) {
    const std::string head = "EEEE " + std::to_string(rank) + "/3 22809";
    EXPECT_EQ(reports[std::size_t(rank)].substr(0, head.size()), head);
    EXPECT_EQ(reports[std::size_t(rank)].size(), head.size() + std::size_t(rank) * 1000);
  }
}

TEST(RankLauncher, AThrowingBodyNamesItsRankAndEndsTheOthers) {
  const StandInNccl nccl(FP4GEMM_ECHO_NCCL);
  const auto start = std::chrono::steady_clock::now();
  try {
    run_ranks("test", 2, 30, [](const NcclLibrary&, const nccl::UniqueId&, int rank, int) -> std::string {
      if (rank == 1) throw Error("no layer here");
      sleep(60);  // rank 0 would hold the run; the failure of rank 1 ends it
      return "";
    });
    ADD_FAILURE() << "returned";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("test: rank 1 (GPU 1) failed: no layer here"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(RankLauncher, PackedRecordsRoundTrip) {
  const std::vector<CollectiveMeasurement> records = {{CollectiveOp::all_to_all, 4096, 1024, 1.5e-5, true},
                                                      {CollectiveOp::all_reduce, 8, 2, 2e-6, false}};
  const std::vector<CollectiveMeasurement> back = unpack_records<CollectiveMeasurement>(pack_records(records), "t");
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].op, CollectiveOp::all_to_all);
  EXPECT_EQ(back[0].bytes, 4096u);
  EXPECT_EQ(back[1].seconds_per_op, 2e-6);
  EXPECT_FALSE(back[1].correct);
  EXPECT_THROW(unpack_records<CollectiveMeasurement>("abc", "t"), Error);
}

}  // namespace
}  // namespace fp4gemm
