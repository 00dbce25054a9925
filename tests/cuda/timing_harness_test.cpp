// The timing harness on the GPU: graph, stream and single timings of cuda-mma are positive and
// use the method asked for; every available GPU backend's run() can be captured into a CUDA
// graph (no fallback note), and our kernel families' runs tell their launch plan; the launch overhead is measured for stream and single only; and a
// cold set (R > 1 operand sets, cycled inside the captured graph) computes, set by set, the same
// output as a hot run prepared on that set.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "bench/bench_runner.hpp"
#include "bench/run_set.hpp"
#include "bench/timing.hpp"
#include "fp4gemm/backend.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm {
namespace {

constexpr std::uint64_t kSeed = 7;

GemmProblem decode_problem(std::int64_t m) {
  return {{m, 768, 6144}, Mode::w4a16, Fp4Format::nvfp4, ScaleLayout::linear, DType::bf16};
}

TimingOptions quick(TimingMethod method) {
  TimingOptions o = timing_with_limit(0.05, "--max-seconds");
  o.method = method;
  return o;
}

class GpuTiming : public testing::Test {
 protected:
  void SetUp() override {
    if (!cuda_device_present()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(GpuTiming, GraphStreamAndSingleTimingsOfCudaMma) {
  const Backend& mma = find_backend("cuda-mma");
  ASSERT_TRUE(mma.availability()) << mma.availability().reason;
  const GemmProblem problem = decode_problem(16);
  const GemmOperands operands = random_operands(problem, kSeed);
  for (TimingMethod method : {TimingMethod::graph, TimingMethod::stream, TimingMethod::single}) {
    RunSet set = prepare_runs(mma, operands, CacheState::hot, gemm_bytes(problem, mma.encoding()));
    const Timing t = time_gemm(set, quick(method));
    SCOPED_TRACE(std::string(to_string(method)));
    EXPECT_EQ(t.method, method);
    EXPECT_EQ(t.note, "");
    EXPECT_EQ(t.timer, "cuda-events");
    EXPECT_EQ(t.cache, CacheState::hot);
    EXPECT_EQ(t.rotations, 1);
    EXPECT_GT(t.median_s, 0);
    EXPECT_LE(t.p10_s, t.median_s);
    EXPECT_LE(t.median_s, t.p90_s);
    EXPECT_GE(t.samples, 1);
    if (method == TimingMethod::single) {
      EXPECT_EQ(t.calls_per_sample, 1);
    }
  }
  EXPECT_EQ(measure_launch_overhead(TimingMethod::graph, quick(TimingMethod::graph)), 0);
  for (TimingMethod method : {TimingMethod::stream, TimingMethod::single}) {
    const double overhead = measure_launch_overhead(method, quick(method));
    EXPECT_GT(overhead, 0) << to_string(method);
    EXPECT_LT(overhead, 100e-6) << to_string(method);  // an empty kernel, not a stall
  }
}

TEST_F(GpuTiming, EveryGpuBackendIsCapturedIntoAGraph) {
  const GemmProblem problem = decode_problem(16);
  const GemmOperands operands = random_operands(problem, kSeed);
  // Our kernel families tell their launch plan (bench's "plan" field); auto tells its kernel's.
  const std::set<std::string_view> planned = {"cuda-mma", "cuda-decode", "cuda-wgmma", "cuda-fp8-lossy", "auto"};
  int timed = 0;
  for (const auto& backend : all_backends()) {
    if (backend->device() != DeviceKind::cuda || !backend->availability() || !backend->can_implement(problem))
      continue;
    RunSet set = prepare_runs(*backend, operands, CacheState::hot, gemm_bytes(problem, backend->encoding()));
    if (planned.contains(backend->name())) {
      EXPECT_NE(set.runs.front()->plan(), "") << backend->name();
    }
    const Timing t = time_gemm(set, quick(TimingMethod::graph));
    EXPECT_EQ(t.method, TimingMethod::graph) << backend->name() << ": " << t.note;
    EXPECT_GT(t.median_s, 0) << backend->name();
    ++timed;
  }
  EXPECT_GE(timed, 1);
}

TEST_F(GpuTiming, ColdRotationsComputeWhatHotRunsDo) {
  const Backend& mma = find_backend("cuda-mma");
  ASSERT_TRUE(mma.availability()) << mma.availability().reason;
  const GemmProblem problem = decode_problem(1);  // 2.7 MB of operands: R = ceil(3 L2 / 2.7 MB)
  const GemmOperands operands = random_operands(problem, kSeed);
  RunSet cold = prepare_runs(mma, operands, CacheState::cold, gemm_bytes(problem, mma.encoding()));
  ASSERT_GT(cold.runs.size(), 1u) << cold.note;
  for (const auto& run : cold.runs) {  // every output must be written by the timed calls
    run->poison_output();
    run->synchronize();
  }
  const Timing t = time_gemm(cold, quick(TimingMethod::graph));
  EXPECT_EQ(t.method, TimingMethod::graph) << t.note;
  EXPECT_EQ(t.cache, CacheState::cold);
  EXPECT_EQ(t.rotations, int(cold.runs.size()));
  EXPECT_EQ(t.calls_per_sample % t.rotations, 0);
  EXPECT_GT(t.median_s, 0);
  auto hot = mma.prepare(operands);
  hot->run();
  hot->synchronize();
  const std::vector<float> expected = hot->output();
  ASSERT_TRUE(std::any_of(expected.begin(), expected.end(), [](float v) { return v != 0.0f; }));
  // Every copy, called in turn inside the graph, bit for bit: same kernel, same plan, split-K
  // summed in a fixed order.
  for (std::size_t r = 0; r < cold.runs.size(); ++r) EXPECT_EQ(cold.runs[r]->output(), expected) << "copy " << r;
}

}  // namespace
}  // namespace fp4gemm
