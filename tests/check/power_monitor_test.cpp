// PowerMonitor without NVML (this project's CI machine has no GPU driver) and the summary
// arithmetic on synthetic samples.
#include "bench/power_monitor.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace fp4gemm {
namespace {

TEST(PowerMonitor, MissingLibrarySaysSoInOneLine) {
  PowerMonitor monitor(0, "libnvidia-ml-does-not-exist.so.1");
  EXPECT_FALSE(monitor.available());
  EXPECT_EQ(monitor.status().rfind("power: NVML not available (libnvidia-ml-does-not-exist.so.1", 0), 0u)
      << monitor.status();
  EXPECT_EQ(monitor.status().find('\n'), std::string::npos);
  monitor.start();  // no-op
  EXPECT_FALSE(monitor.stop().has_value());
}

TEST(PowerMonitor, DefaultLibraryNeverCrashes) {
  PowerMonitor monitor;
  if (monitor.available()) {
    // A machine with a driver: the status names the limit and the samples are plausible.
    EXPECT_EQ(monitor.status().rfind("power: NVML on device 0", 0), 0u) << monitor.status();
    monitor.start();
    const auto summary = monitor.stop();
    ASSERT_TRUE(summary.has_value());
    EXPECT_GE(summary->samples, 1);
    EXPECT_GT(summary->limit_w, 0);
  } else {
    EXPECT_EQ(monitor.status().rfind("power: NVML not available (", 0), 0u) << monitor.status();
    monitor.start();
    EXPECT_FALSE(monitor.stop().has_value());
  }
}

TEST(PowerSummary, MeanMaxAndThrottleShare) {
  const std::vector<PowerSample> samples{
      {600, 1980, 3200, 55}, {650, 1980, 3200, 61}, {700, 1400, 3200, 63}, {610, 1000, 3100, 60}};
  const PowerSummary s = summarize_power(samples, 700, 1980);
  EXPECT_EQ(s.samples, 4);
  EXPECT_DOUBLE_EQ(s.mean_power_w, 640);
  EXPECT_DOUBLE_EQ(s.limit_w, 700);
  EXPECT_DOUBLE_EQ(s.mean_sm_mhz, (1980 + 1980 + 1400 + 1000) / 4.0);
  EXPECT_DOUBLE_EQ(s.mean_mem_mhz, 3175);
  EXPECT_DOUBLE_EQ(s.max_temperature_c, 63);
  // 0.75 x 1980 = 1485: 1400 and 1000 are below.
  EXPECT_DOUBLE_EQ(s.throttle_share, 0.5);
  EXPECT_EQ(s.describe(), "640 W / 700 W, SM 1590 MHz, mem 3175 MHz, 63 C, throttled 50%");
}

TEST(PowerSummary, NoMaxClockMeansNoThrottleCountAndEmptyIsZero) {
  const std::vector<PowerSample> one{{100, 500, 1000, 40}};
  EXPECT_DOUBLE_EQ(summarize_power(one, 300, 0).throttle_share, 0);
  const PowerSummary empty = summarize_power({}, 300, 1980);
  EXPECT_EQ(empty.samples, 0);
  EXPECT_DOUBLE_EQ(empty.mean_power_w, 0);
}

}  // namespace
}  // namespace fp4gemm
