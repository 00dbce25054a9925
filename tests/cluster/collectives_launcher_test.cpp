// The launcher's processes and pipes without a GPU: the GPU count comes from a child, and a rank
// that fails (no GPU, no NCCL, or a build without CUDA) ends the run with an error naming the rank
// and its reason instead of hanging (skipped where a GPU exists: tests/cuda run the ranks there),
// and a rank that hangs is ended at --timeout.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "cluster/collectives_launcher.hpp"
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

}  // namespace
}  // namespace fp4gemm
