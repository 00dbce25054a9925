// `fp4gemm collectives` on a GPU, through the real path (forked rank, NCCL loaded with dlopen,
// CUDA events): world size 1, small buffers; the ranks check the received sums themselves and the
// test asserts them. Skips with a message where there is no GPU. NCCL must be found: on the GPU
// machines set FP4GEMM_NCCL_LIBRARY to the wheel's lib/libnccl.so.2 (README). Passed on the H200
// (bench/results/h200_collectives_1gpu).
#include <gtest/gtest.h>

#include <string>

#include "cluster/collectives_launcher.hpp"

namespace fp4gemm {
namespace {

TEST(CollectivesGpu, WorldSizeOneAllReduceAndAllToAllReceiveTheExpectedValues) {
  // Counted in a child, so that this process does not initialize CUDA before the rank's fork.
  std::string why_none;
  if (count_gpus_in_child(why_none) == 0) GTEST_SKIP() << "no CUDA device: " << why_none;
  CollectivesOptions options;
  options.gpus = 1;
  options.min_bytes = 1024;
  options.max_bytes = 16384;
  options.iters = 3;
  options.warmup = 1;
  const std::vector<CollectiveMeasurement> measured = run_collectives(options, 1);
  ASSERT_EQ(measured.size(), 10u);  // 1, 2, 4, 8, 16 KiB of each op
  for (const CollectiveMeasurement& m : measured) {
    SCOPED_TRACE(std::string(collective_op_name(m.op)) + " of " + std::to_string(m.bytes) + " bytes");
    EXPECT_TRUE(m.correct);  // all-reduce: 1 everywhere (n (n + 1) / 2 for n = 1); all-to-all: a copy of 1s
    EXPECT_EQ(m.elements * 4, m.bytes);
    EXPECT_GT(m.seconds_per_op, 0.0);
  }
  EXPECT_EQ(measured.front().op, CollectiveOp::all_reduce);
  EXPECT_EQ(measured.front().bytes, 1024u);
  EXPECT_EQ(measured.back().op, CollectiveOp::all_to_all);
  EXPECT_EQ(measured.back().bytes, 16384u);
}

}  // namespace
}  // namespace fp4gemm
