// The link calibration: the weighted least-squares fit on hand-computed points, the Link derived
// from all-reduce and all-to-all fits, and reading measured collectives back from JSON files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cluster/link_fit.hpp"
#include "expect_error.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

using ::testing::HasSubstr;

TEST(LinkFit, ExactLineIsRecovered) {
  // t = 5 us + bytes / 100 GB/s at 1 KiB, 1 MiB, 64 MiB.
  const auto t = [](double b) { return 5e-6 + b / 100e9; };
  const std::vector<TimedMessage> points = {{1024, t(1024)}, {1048576, t(1048576)}, {67108864, t(67108864)}};
  const LineFit f = fit_latency_bandwidth(points);
  EXPECT_NEAR(f.latency_s, 5e-6, 1e-15);
  EXPECT_NEAR(f.seconds_per_byte, 1e-11, 1e-22);
  EXPECT_EQ(f.points, 3);
  EXPECT_NEAR(f.max_relative_error, 0, 1e-9);
}

TEST(LinkFit, WeightedLeastSquaresByHand) {
  // x = 1, 2, 3 bytes, t = 1, 2, 2 s; weights 1/t^2 = 1, 1/4, 1/4.
  // Sw = 1.5, Sx = 2.25, Sxx = 4.25, St = 2, Sxt = 3.5; det = 1.5 * 4.25 - 2.25^2 = 1.3125;
  // a = (4.25 * 2 - 2.25 * 3.5) / 1.3125 = 10/21; s = (1.5 * 3.5 - 2.25 * 2) / 1.3125 = 4/7.
  // Fitted times 22/21, 34/21, 46/21: off by 1/21, (42 - 34)/21 / 2 = 4/21 and 2/21; worst 4/21.
  const std::vector<TimedMessage> points = {{1, 1}, {2, 2}, {3, 2}};
  const LineFit f = fit_latency_bandwidth(points);
  EXPECT_NEAR(f.latency_s, 10.0 / 21, 1e-12);
  EXPECT_NEAR(f.seconds_per_byte, 4.0 / 7, 1e-12);
  EXPECT_NEAR(f.max_relative_error, 4.0 / 21, 1e-12);
}

TEST(LinkFit, NegativeLatencyIsRefittedThroughTheOrigin) {
  // x = 1, 2 with t = 1, 3: the line through both has a = -1. Through the origin, weights 1 and
  // 1/9: s = Sxt / Sxx = (1 + 2 * 3 / 9) / (1 + 4 / 9) = (5/3) / (13/9) = 15/13.
  const std::vector<TimedMessage> points = {{1, 1}, {2, 3}};
  const LineFit f = fit_latency_bandwidth(points);
  EXPECT_EQ(f.latency_s, 0);
  EXPECT_NEAR(f.seconds_per_byte, 15.0 / 13, 1e-12);
}

TEST(LinkFit, NeedsTwoSizesAndPositiveTimes) {
  test::expect_error<InvalidArgument>(
      [] {
        const std::vector<TimedMessage> one = {{1024, 1e-5}, {1024, 2e-5}};
        fit_latency_bandwidth(one);
      },
      "at least two message sizes, got 1");
  test::expect_error<InvalidArgument>(
      [] {
        const std::vector<TimedMessage> zero = {{1024, 0}, {2048, 1e-5}};
        fit_latency_bandwidth(zero);
      },
      "is not positive");
}

// Measurements on `n` GPUs that follow the link model exactly: all-reduce base + 2(n-1) step +
// 2(n-1)/n bytes / B, all-to-all base + step + (n-1)/n bytes / B.
std::vector<CollectiveMeasurement> model_measurements(int n, double bw, double base, double step) {
  std::vector<CollectiveMeasurement> out;
  for (const std::uint64_t bytes : {std::uint64_t(4096), std::uint64_t(1) << 20, std::uint64_t(1) << 26}) {
    out.push_back({CollectiveOp::all_reduce, bytes, bytes / 4,
                   base + 2.0 * (n - 1) * step + 2.0 * (n - 1) / n * double(bytes) / bw, true});
    out.push_back({CollectiveOp::all_to_all, bytes, bytes / 4, base + step + double(n - 1) / n * double(bytes) / bw,
                   true});
  }
  return out;
}

TEST(LinkFit, LinkFromBothCollectives) {
  // n = 2, base 6 us, step 2 us: a_ar = 6 + 2*1*2 = 10 us, a_a2a = 6 + 2 = 8 us, so step =
  // (10 - 8) / (2*2 - 3) = 2 us and base = 8 - 2 = 6 us. n = 8, base 5 us, step 0.5 us: a_ar = 12 us,
  // a_a2a = 5.5 us, step = 6.5 / 13 = 0.5 us. B = 100 GB/s from either slope.
  for (const auto& [n, base, step] : {std::tuple{2, 6e-6, 2e-6}, std::tuple{8, 5e-6, 0.5e-6}}) {
    SCOPED_TRACE(n);
    const LinkCalibration c = calibrate_link(model_measurements(n, 100e9, base, step), n, "test");
    ASSERT_EQ(c.fits.size(), 2u);
    EXPECT_EQ(c.fits[0].op, CollectiveOp::all_reduce);
    EXPECT_NEAR(c.fits[0].busbw_gbps, 100, 1e-6);
    EXPECT_NEAR(c.fits[1].busbw_gbps, 100, 1e-6);
    ASSERT_TRUE(c.link.has_value());
    EXPECT_NEAR(c.link->bytes_per_second, 100e9, 1e-3);
    EXPECT_NEAR(c.link->base_latency_s, base, 1e-13);
    EXPECT_NEAR(c.link->step_latency_s, step, 1e-13);
    EXPECT_EQ(c.link->name, "measured");
    // The calibrated link predicts the points it came from.
    EXPECT_NEAR(all_reduce_seconds(*c.link, n, 1 << 20), c.fits[0].fit.latency_s + c.fits[0].fit.seconds_per_byte * (1 << 20),
                1e-12);
  }
}

TEST(LinkFit, OneCollectiveGivesBaseLatencyOnly) {
  std::vector<CollectiveMeasurement> all_to_all;
  for (const CollectiveMeasurement& m : model_measurements(4, 50e9, 7e-6, 1e-6))
    if (m.op == CollectiveOp::all_to_all) all_to_all.push_back(m);
  const LinkCalibration c = calibrate_link(all_to_all, 4, "test");
  ASSERT_TRUE(c.link.has_value());
  EXPECT_NEAR(c.link->bytes_per_second, 50e9, 1e-3);
  EXPECT_NEAR(c.link->base_latency_s, 8e-6, 1e-13);
  EXPECT_EQ(c.link->step_latency_s, 0);
}

TEST(LinkFit, WorldSizeOneFitsButDerivesNoLink) {
  const LinkCalibration c = calibrate_link(model_measurements(2, 1000e9, 6e-6, 0), 1, "test");
  EXPECT_EQ(c.fits.size(), 2u);
  EXPECT_EQ(c.fits[0].busbw_gbps, 0);
  EXPECT_GT(c.fits[0].algbw_gbps, 0);
  EXPECT_FALSE(c.link.has_value());
  EXPECT_THAT(c.note, HasSubstr("world size 1"));
}

TEST(LinkFit, WrongValuesAreLeftOut) {
  std::vector<CollectiveMeasurement> m = model_measurements(2, 100e9, 6e-6, 2e-6);
  m[0].correct = false;
  m[0].seconds_per_op = 1.0;  // would spoil the fit
  const LinkCalibration c = calibrate_link(m, 2, "test");
  EXPECT_EQ(c.fits[0].fit.points, 2);
  EXPECT_NEAR(c.link->bytes_per_second, 100e9, 1e-3);
}

class LinkFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("fp4gemm_link_fit_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const nlohmann::json& j) {
    const std::filesystem::path p = dir_ / name;
    std::ofstream(p) << j.dump(2);
    return p.string();
  }
  static nlohmann::json collectives_json(int n, const std::vector<CollectiveMeasurement>& measured) {
    nlohmann::json results = nlohmann::json::array();
    for (const CollectiveMeasurement& m : measured)
      results.push_back({{"op", collective_op_name(m.op)}, {"bytes", m.bytes}, {"time_us", m.seconds_per_op * 1e6},
                         {"correct", m.correct}});
    return {{"world_size", n}, {"results", results}};
  }
  std::filesystem::path dir_;
};

TEST_F(LinkFile, ReadsACollectivesFileAndAPlanMeasureFile) {
  const nlohmann::json record = collectives_json(8, model_measurements(8, 100e9, 5e-6, 0.5e-6));
  for (const std::string& path :
       {write("collectives.json", record),
        write("measure.json", {{"schema", "fp4gemm.plan-measure/1"}, {"collectives", record}})}) {
    const Link link = read_measured_link(path);
    EXPECT_NEAR(link.bytes_per_second, 100e9, 1e-2) << path;
    EXPECT_NEAR(link.base_latency_s, 5e-6, 1e-12) << path;
    EXPECT_NEAR(link.step_latency_s, 0.5e-6, 1e-12) << path;
    EXPECT_EQ(link.source, path);
  }
}

TEST_F(LinkFile, RefusesOneGpuAndOtherFiles) {
  const std::string one = write("one.json", collectives_json(1, model_measurements(2, 100e9, 5e-6, 0)));
  test::expect_error<InvalidArgument>([&] { read_measured_link(one); }, "world size 1: nothing crosses a link");
  const std::string bench = write("bench.json", {{"schema", "fp4gemm.bench/3"}, {"results", nlohmann::json::array()}});
  test::expect_error<InvalidArgument>([&] { read_measured_link(bench); }, "field 'world_size' is missing");
  const std::string bad_op = write("op.json", {{"world_size", 2},
                                               {"results", {{{"op", "broadcast"}, {"bytes", 4}, {"time_us", 1}}}}});
  test::expect_error<InvalidArgument>([&] { read_measured_link(bad_op); }, "must be all_reduce or all_to_all");
}

}  // namespace
}  // namespace fp4gemm
