// The timing harness's modes on the CPU: calls per sample, the rotation count R and its caps,
// operand sets cycled call by call (host runs counting their calls), the method and cache a host
// run records whatever was asked, and the parsing of --timing / --cache values.
#include <gtest/gtest.h>

#include <set>

#include "bench/run_set.hpp"
#include "bench/timing.hpp"
#include "expect_error.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

TEST(CallsPerSample, SingleIsOneCallStreamAndGraphFillTheTargetInWholeRotations) {
  TimingOptions o;
  o.sample_target_seconds = 200e-6;
  for (TimingMethod m : {TimingMethod::graph, TimingMethod::stream}) {
    EXPECT_EQ(plan_calls_per_sample(m, 3e-6, 1, o), 67);   // ceil(200 / 3)
    EXPECT_EQ(plan_calls_per_sample(m, 3e-6, 8, o), 72);   // 67 rounded up to 9 rotations of 8
    EXPECT_EQ(plan_calls_per_sample(m, 100e-6, 8, o), 8);  // 2 calls, but every set once
    EXPECT_EQ(plan_calls_per_sample(m, 1e-3, 1, o), 1);
  }
  EXPECT_EQ(plan_calls_per_sample(TimingMethod::single, 3e-6, 8, o), 1);
}

// L2 50 MiB as the H200 reports it; the seed's 6144 x 6144 NVFP4 weights are ~21.2 MB.
constexpr double kL2 = 50.0 * (1 << 20);

TEST(RotationCount, ThreeTimesTheL2) {
  const RotationPlan p = rotation_count(kL2, 21.2e6, 21.2e6, 100e9);
  EXPECT_EQ(p.count, 8);  // ceil(3 * 52.4 MB / 21.2 MB) = ceil(7.4)
  EXPECT_EQ(p.note, "");
  // Operands of 3x the L2 or more are cold by themselves.
  EXPECT_EQ(rotation_count(kL2, 3 * kL2, 3 * kL2, 100e9).count, 1);
  EXPECT_EQ(rotation_count(kL2, 10 * kL2, 10 * kL2, 100e9).count, 1);
  // No L2 known (no device): one run.
  EXPECT_EQ(rotation_count(0, 1e6, 1e6, 100e9).count, 1);
}

TEST(RotationCount, CappedByFreeMemoryAndSaysSo) {
  // 10 MB operands but a 40 MB footprint (a workspace): half of 100 MB free holds 1 more run.
  const RotationPlan p = rotation_count(kL2, 10e6, 40e6, 100e6);
  EXPECT_EQ(p.count, 2);
  EXPECT_EQ(p.note, "cold: 2 operand set(s) (what fits in the share of free device memory they may "
                    "take) hold 20.0 MB, 0.4x the 52.4 MB L2, not 3x");
  // The footprint is never taken below the operand bytes.
  EXPECT_EQ(rotation_count(kL2, 10e6, 0, 100e6).count, 6);
  // No memory to spare: the one run already prepared.
  EXPECT_EQ(rotation_count(kL2, 10e6, 10e6, 0).count, 1);
}

TEST(RotationCount, CappedAtMaxRotationsAndSaysSo) {
  const RotationPlan p = rotation_count(kL2, 1000, 1000, 100e9);  // would need 157287 sets
  EXPECT_EQ(p.count, kMaxRotations);
  EXPECT_NE(p.note.find("the cap on operand sets"), std::string::npos) << p.note;
}

// A host run that counts its calls.
class CountingRun final : public GemmRun {
 public:
  void run() override { ++calls; }
  void synchronize() override {}
  void poison_output() override {}
  std::vector<float> output() override { return {}; }
  int calls = 0;
};

RunSet counting_runs(int count, CacheState cache) {
  RunSet set;
  for (int i = 0; i < count; ++i) set.runs.push_back(std::make_unique<CountingRun>());
  set.cache = cache;
  set.working_set_bytes = 1000.0 * count;
  return set;
}

TimingOptions quick(TimingMethod method) {
  TimingOptions o = timing_with_limit(0.01, "--max-seconds");
  o.method = method;
  return o;
}

TEST(TimeGemm, CyclesThroughTheOperandSetsCallByCall) {
  RunSet set = counting_runs(3, CacheState::cold);
  const Timing t = time_gemm(set, quick(TimingMethod::stream));
  EXPECT_EQ(t.rotations, 3);
  EXPECT_EQ(t.cache, CacheState::cold);
  EXPECT_DOUBLE_EQ(t.working_set_bytes, 3000);
  EXPECT_EQ(t.calls_per_sample % 3, 0);
  EXPECT_GT(t.samples, 0);
  EXPECT_GT(t.median_s, 0);
  // Warm-up max(3, R), one sizing call, then whole samples: the sets differ by at most one call.
  const int first = static_cast<CountingRun&>(*set.runs[0]).calls;
  for (const auto& run : set.runs) EXPECT_NEAR(static_cast<CountingRun&>(*run).calls, first, 1);
}

TEST(TimeGemm, HostRunsAreTimedBackToBackWithTheSteadyClockWhateverWasAsked) {
  for (TimingMethod asked : {TimingMethod::graph, TimingMethod::stream, TimingMethod::single}) {
    RunSet set = counting_runs(1, CacheState::hot);
    const Timing t = time_gemm(set, quick(asked));
    EXPECT_EQ(t.method, TimingMethod::stream) << to_string(asked);
    EXPECT_EQ(t.timer, "steady-clock");
    EXPECT_EQ(t.note, "");
    EXPECT_GE(t.calls_per_sample, 1);
    // The stopping rule holds in every mode: at least min_samples unless the time ran out.
    EXPECT_TRUE(t.samples >= TimingOptions{}.min_samples || !t.converged);
  }
}

TEST(TimeGemm, ARotationCapNoteReachesTheTiming) {
  RunSet set = counting_runs(2, CacheState::cold);
  set.note = "cold: 2 operand set(s) ...";
  EXPECT_EQ(time_gemm(set, quick(TimingMethod::graph)).note, "cold: 2 operand set(s) ...");
}

TEST(TimingNames, ParseAndRejectNamingTheArgument) {
  EXPECT_EQ(parse_timing_method("graph", "--timing"), TimingMethod::graph);
  EXPECT_EQ(parse_timing_method("stream", "--timing"), TimingMethod::stream);
  EXPECT_EQ(parse_timing_method("single", "--timing"), TimingMethod::single);
  EXPECT_EQ(parse_cache_state("cold", "--cache"), CacheState::cold);
  EXPECT_EQ(parse_cache_state("hot", "--cache"), CacheState::hot);
  test::expect_error<InvalidArgument>([] { parse_timing_method("events", "--timing"); },
                                      "--timing = 'events' is not a timing method (graph, stream or single)");
  test::expect_error<InvalidArgument>([] { parse_cache_state("warm", "--cache"); },
                                      "--cache = 'warm' is not a cache state (cold or hot)");
}

}  // namespace
}  // namespace fp4gemm
