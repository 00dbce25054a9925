// The arithmetic and option rules of `fp4gemm collectives` on hand-computed cases: bus and
// algorithm bandwidth (n = 1, 2, 8), the size sweep, elements per size, the merge of the ranks'
// measurements, and the errors that name each option and its rule.
#include <gtest/gtest.h>

#include "cluster/collective_math.hpp"
#include "expect_error.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

using test::expect_error;

TEST(CollectiveMath, BusBandwidthFactorIsNcclTests) {
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::all_reduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::all_to_all, 1), 0.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::all_reduce, 2), 1.0);   // 2 * 1 / 2
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::all_to_all, 2), 0.5);   // 1 / 2
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::all_reduce, 8), 1.75);  // 2 * 7 / 8
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveOp::all_to_all, 8), 0.875); // 7 / 8
}

TEST(CollectiveMath, BandwidthOfHandComputedCases) {
  // 1 GB in 10 ms: 100 GB/s.
  EXPECT_DOUBLE_EQ(algorithm_bandwidth_gbps(1'000'000'000, 0.01), 100.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_gbps(CollectiveOp::all_reduce, 1, 1'000'000'000, 0.01), 0.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_gbps(CollectiveOp::all_reduce, 2, 1'000'000'000, 0.01), 100.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_gbps(CollectiveOp::all_reduce, 8, 1'000'000'000, 0.01), 175.0);
  EXPECT_DOUBLE_EQ(bus_bandwidth_gbps(CollectiveOp::all_to_all, 8, 1'000'000'000, 0.01), 87.5);
  // 8 MiB in 40 us: 209.7152 GB/s.
  EXPECT_NEAR(algorithm_bandwidth_gbps(8u << 20, 40e-6), 209.7152, 1e-9);
}

TEST(CollectiveMath, SizeSweepMultipliesByFactorUpToMax) {
  EXPECT_EQ(message_sizes(1024, 8192, 2), (std::vector<std::uint64_t>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(message_sizes(1024, 10000, 2), (std::vector<std::uint64_t>{1024, 2048, 4096, 8192}));
  EXPECT_EQ(message_sizes(8, 1000, 10), (std::vector<std::uint64_t>{8, 80, 800}));
  EXPECT_EQ(message_sizes(4096, 4096, 2), (std::vector<std::uint64_t>{4096}));
  // No overflow near the top of uint64.
  EXPECT_EQ(message_sizes(std::uint64_t(1) << 62, ~std::uint64_t(0), 4),
            (std::vector<std::uint64_t>{std::uint64_t(1) << 62}));
}

TEST(CollectiveMath, ElementsPerRank) {
  EXPECT_EQ(collective_elements(CollectiveOp::all_reduce, 1024, 8), 256u);
  EXPECT_EQ(collective_elements(CollectiveOp::all_reduce, 1026, 8), 256u);  // whole float32s only
  EXPECT_EQ(collective_elements(CollectiveOp::all_to_all, 1024, 8), 256u);
  EXPECT_EQ(collective_elements(CollectiveOp::all_to_all, 1000, 8), 248u);  // 250 down to 8 x 31
  EXPECT_EQ(collective_elements(CollectiveOp::all_to_all, 16, 8), 0u);      // 4 elements for 8 peers
  EXPECT_EQ(collective_elements(CollectiveOp::all_to_all, 12, 1), 3u);
}

TEST(CollectiveMath, ParsesOps) {
  EXPECT_EQ(parse_collective_ops("all_reduce"), std::vector<CollectiveOp>{CollectiveOp::all_reduce});
  EXPECT_EQ(parse_collective_ops("all_to_all,all_reduce"),
            (std::vector<CollectiveOp>{CollectiveOp::all_to_all, CollectiveOp::all_reduce}));
  expect_error<InvalidArgument>([] { parse_collective_ops("all_gather"); },
                                "--ops: 'all_gather' is not a collective; the choices are all_reduce and all_to_all");
  expect_error<InvalidArgument>([] { parse_collective_ops(""); }, "--ops: '' is not a collective");
  expect_error<InvalidArgument>([] { parse_collective_ops("all_reduce,"); }, "--ops: '' is not a collective");
  expect_error<InvalidArgument>([] { parse_collective_ops("all_reduce,all_reduce"); },
                                "--ops: 'all_reduce' is named twice");
}

TEST(CollectiveMath, MergeTakesTheSlowestRankAndEveryRanksCheck) {
  const std::vector<CollectiveMeasurement> rank0{{CollectiveOp::all_reduce, 1024, 256, 10e-6, true},
                                                 {CollectiveOp::all_to_all, 1024, 256, 30e-6, true}};
  const std::vector<CollectiveMeasurement> rank1{{CollectiveOp::all_reduce, 1024, 256, 12e-6, true},
                                                 {CollectiveOp::all_to_all, 1024, 256, 20e-6, false}};
  const std::vector<CollectiveMeasurement> merged = merge_rank_measurements({rank0, rank1});
  ASSERT_EQ(merged.size(), 2u);
  EXPECT_DOUBLE_EQ(merged[0].seconds_per_op, 12e-6);
  EXPECT_TRUE(merged[0].correct);
  EXPECT_DOUBLE_EQ(merged[1].seconds_per_op, 30e-6);
  EXPECT_FALSE(merged[1].correct);
  expect_error<Error>([&] { merge_rank_measurements({rank0, {rank1[0]}}); },
                      "rank 1 measured 1 collectives, rank 0 measured 2");
}

TEST(CollectiveMath, OptionRulesNameTheOption) {
  CollectivesOptions options;
  EXPECT_NO_THROW(validate(options));
  const auto broken = [](auto change) {
    CollectivesOptions o;
    change(o);
    return [o] { validate(o); };
  };
  expect_error<InvalidArgument>(broken([](CollectivesOptions& o) { o.gpus = 0; }), "--gpus 0 must be >= 1");
  expect_error<InvalidArgument>(broken([](CollectivesOptions& o) { o.min_bytes = 3; }),
                                "--min-bytes 3 is below 4 (one float32 element)");
  expect_error<InvalidArgument>(broken([](CollectivesOptions& o) { o.max_bytes = 512; }),
                                "--max-bytes 512 is below --min-bytes 1024");
  expect_error<InvalidArgument>(broken([](CollectivesOptions& o) { o.max_bytes = (std::uint64_t(8) << 30) + 1; }),
                                "--max-bytes 8589934593 is above 8589934592 (8 GiB)");
  expect_error<InvalidArgument>(broken([](CollectivesOptions& o) { o.factor = 1; }), "--factor 1 must be >= 2");
  expect_error<InvalidArgument>(broken([](CollectivesOptions& o) { o.iters = 0; }), "--iters 0 must be >= 1");
  expect_error<InvalidArgument>(broken([](CollectivesOptions& o) { o.warmup = -1; }), "--warmup -1 must be >= 0");
  expect_error<InvalidArgument>(broken([](CollectivesOptions& o) { o.timeout_seconds = 0; }),
                                "--timeout 0 must be >= 1 (seconds)");
}

TEST(CollectiveMath, WorldSizeIsGpusOrEveryVisibleOne) {
  CollectivesOptions options;
  EXPECT_EQ(world_size_for(options, 8), 8);
  options.gpus = 1;
  EXPECT_EQ(world_size_for(options, 8), 1);
  options.gpus = 4;
  expect_error<InvalidArgument>([&] { world_size_for(options, 2); },
                                "--gpus 4 is more than the 2 visible GPU(s) of this host");
}

}  // namespace
}  // namespace fp4gemm
