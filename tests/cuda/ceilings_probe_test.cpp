// `fp4gemm ceilings`' measurements on the GPU: positive numbers, read bandwidth 50-110% of the
// datasheet on a GPU the table knows, tensor throughput below the datasheet peak (plus 10%),
// and "none" for the tensor paths the GPU lacks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bench/ceilings_cache.hpp"
#include "bench/ceilings_probe.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm {
namespace {

using ::testing::StartsWith;

TEST(CeilingsProbe, MeasuresThisGpu) {
  std::string why_none;
  const std::vector<GpuInfo> gpus = query_gpus(&why_none);
  if (gpus.empty()) GTEST_SKIP() << why_none;
  const GpuInfo& gpu = gpus.front();
  CeilingsProbeOptions options;
  options.gemm_size = 4096;  // enough to reach the tensor peak within tens of percent, and quick
  options.warmup = 3;
  options.repetitions = 10;
  const MeasuredCeilings m = measure_ceilings(gpu, ceilings_key(gpu), options);
  EXPECT_EQ(m.key.gpu, gpu.name);
  EXPECT_GT(m.read_gbps.value, 0) << m.read_gbps.method;
  EXPECT_GT(m.copy_gbps.value, 0) << m.copy_gbps.method;
  EXPECT_GT(m.bf16_tflops.value, 0) << m.bf16_tflops.method;
  const int sm = gpu.sm_major * 10 + gpu.sm_minor;
  if (sm >= 89) {
    EXPECT_GT(m.fp8_tflops.value, 0) << m.fp8_tflops.method;
  }
  if (sm < 100) {
    EXPECT_EQ(m.fp4_tflops.value, 0);
    EXPECT_THAT(m.fp4_tflops.method, StartsWith("none: no FP4 tensor cores"));
  }
  const Ceilings datasheet = lookup_ceilings(gpu.name);
  if (!datasheet.known()) return;
  const double read_share = m.read_gbps.value / datasheet.memory_gbps;
  EXPECT_GT(read_share, 0.5) << m.read_gbps.value << " GB/s against " << datasheet.describe();
  EXPECT_LT(read_share, 1.1) << m.read_gbps.value << " GB/s against " << datasheet.describe();
  EXPECT_LT(m.bf16_tflops.value, 1.1 * datasheet.bf16_tflops) << datasheet.describe();
  if (datasheet.fp8_tflops > 0) {
    EXPECT_LT(m.fp8_tflops.value, 1.1 * datasheet.fp8_tflops);
  }
}

}  // namespace
}  // namespace fp4gemm
