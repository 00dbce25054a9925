// The datasheet ceilings table and the roofline verdicts, on synthetic measurements.
#include <gtest/gtest.h>

#include "bench/ceilings.hpp"
#include "bench/roofline.hpp"

namespace fp4gemm {
namespace {

TEST(Ceilings, LooksUpCudaDeviceNames) {
  const Ceilings h200 = lookup_ceilings("NVIDIA H200");
  EXPECT_EQ(h200.source, "datasheet: NVIDIA H200 SXM");
  EXPECT_DOUBLE_EQ(h200.memory_gbps, 4800);
  EXPECT_DOUBLE_EQ(h200.peak_tflops(ComputePath::bf16_tensor), 989);
  EXPECT_DOUBLE_EQ(h200.peak_tflops(ComputePath::fp8_tensor), 1979);
  EXPECT_DOUBLE_EQ(h200.peak_tflops(ComputePath::fp4_tensor), 0);  // Hopper has no FP4
  EXPECT_DOUBLE_EQ(h200.peak_tflops(ComputePath::cpu), 0);
  EXPECT_EQ(h200.describe(),
            "datasheet: NVIDIA H200 SXM (HBM3e 4800 GB/s; dense TFLOPS BF16 989, FP8 1979, FP4 none)");
  // The most specific key wins: variants with other peaks are not read as their sibling.
  EXPECT_EQ(lookup_ceilings("NVIDIA H100 80GB HBM3").source, "datasheet: NVIDIA H100 SXM");
  EXPECT_EQ(lookup_ceilings("NVIDIA H100 PCIe").source, "datasheet: NVIDIA H100 PCIe");
  EXPECT_EQ(lookup_ceilings("NVIDIA H200 NVL").source, "datasheet: NVIDIA H200 NVL");
  EXPECT_EQ(lookup_ceilings("NVIDIA GB200").source, "datasheet: NVIDIA GB200 (per GPU)");
  EXPECT_EQ(lookup_ceilings("NVIDIA B200").source, "datasheet: NVIDIA HGX B200 (per GPU)");
  EXPECT_DOUBLE_EQ(lookup_ceilings("NVIDIA B200").fp4_tflops, 9000);
  EXPECT_EQ(lookup_ceilings("NVIDIA RTX PRO 6000 Blackwell Workstation Edition").memory, "GDDR7");
  EXPECT_DOUBLE_EQ(lookup_ceilings("NVIDIA GeForce RTX 5090").fp4_tflops, 1676);
  EXPECT_DOUBLE_EQ(lookup_ceilings("NVIDIA A100-SXM4-80GB").memory_gbps, 2039);
  EXPECT_DOUBLE_EQ(lookup_ceilings("NVIDIA A100-PCIE-40GB").memory_gbps, 1555);
  EXPECT_DOUBLE_EQ(lookup_ceilings("nvidia l40s").fp8_tflops, 733);  // case-insensitive
}

// Every GPU issue 6 lists, by the name cudaGetDeviceProperties gives it, has a datasheet entry
// with a bandwidth and a BF16 peak.
TEST(Ceilings, TableCoversTheListedGpus) {
  for (const char* name :
       {"NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H200", "NVIDIA B200", "NVIDIA B300 SXM6 AC",
        "NVIDIA GB200", "NVIDIA RTX PRO 6000 Blackwell Server Edition", "NVIDIA GeForce RTX 5090",
        "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "NVIDIA L40S"}) {
    const Ceilings c = lookup_ceilings(name);
    EXPECT_TRUE(c.known()) << name;
    EXPECT_GT(c.bf16_tflops, 0) << name;
    EXPECT_EQ(c.source.rfind("datasheet: NVIDIA ", 0), 0u) << name << ": " << c.source;
  }
  EXPECT_EQ(lookup_ceilings("NVIDIA B300 SXM6 AC").source, "datasheet: NVIDIA HGX B300 (per GPU)");
  EXPECT_DOUBLE_EQ(lookup_ceilings("NVIDIA A100 80GB PCIe").memory_gbps, 1935);
}

TEST(Ceilings, UnknownDevicesAndCpusHaveNone) {
  for (const char* name : {"AMD EPYC 7B13 64-Core Processor", "NVIDIA GeForce GTX 1080", ""}) {
    const Ceilings c = lookup_ceilings(name);
    EXPECT_FALSE(c.known()) << name;
    EXPECT_EQ(c.source, "none known") << name;
    EXPECT_EQ(c.describe(), "none known for " + std::string(name));
  }
}

// The seed's decode GEMM, 1 x 768 x 6144 NVFP4 w4a16 -> bf16 (BenchBytes.SeedDecodeShapeByHand).
constexpr double kDecodeFlops = 2.0 * 768 * 6144;
constexpr double kDecodeBytes = 2668036;

TEST(Roofline, MemoryBoundDecode) {
  const Ceilings h200 = lookup_ceilings("NVIDIA H200");
  const double floor = kDecodeBytes / 4.8e12;  // 0.556 us; compute floor 9.5 ns
  const Roofline r = roofline(kDecodeFlops, kDecodeBytes, floor / 0.83, h200, ComputePath::bf16_tensor);
  EXPECT_DOUBLE_EQ(r.intensity, kDecodeFlops / kDecodeBytes);
  EXPECT_DOUBLE_EQ(r.memory_floor_s, floor);
  EXPECT_DOUBLE_EQ(r.compute_floor_s, kDecodeFlops / 989e12);
  EXPECT_DOUBLE_EQ(r.floor_s, floor);
  EXPECT_NEAR(r.efficiency, 0.83, 1e-12);
  EXPECT_EQ(r.verdict, "memory-bound: 83% of the HBM3e floor");
  // 30 us (cuda-mma once) is not launch-bound, even with a 2.6 us launch overhead in it.
  EXPECT_EQ(roofline(kDecodeFlops, kDecodeBytes, 30e-6, h200, ComputePath::bf16_tensor, {true, 2.6e-6}).verdict,
            "memory-bound: 1.9% of the HBM3e floor");
}

// Stream or single timing with a measured launch overhead of 2.6 us: a time within 2 us of it
// and a floor under 40% of the time is launch-bound.
TEST(Roofline, LaunchBoundOnlyNearTheMeasuredLaunchOverhead) {
  const Ceilings h200 = lookup_ceilings("NVIDIA H200");
  const double bytes = 0.7e-6 * 4.8e12;  // a 0.7 us memory floor
  const LaunchOverhead stream{true, 2.6e-6};
  EXPECT_EQ(roofline(kDecodeFlops, bytes, 3.1e-6, h200, ComputePath::bf16_tensor, stream).verdict,
            "launch-bound: 3.1 us against a 0.7 us floor (launch overhead 2.6 us)");
  EXPECT_EQ(roofline(kDecodeFlops, bytes, 4.5e-6, h200, ComputePath::bf16_tensor, stream).verdict,
            "launch-bound: 4.5 us against a 0.7 us floor (launch overhead 2.6 us)");
  // More than 2 us above the launch overhead: the kernel's own time dominates.
  EXPECT_EQ(roofline(kDecodeFlops, bytes, 4.7e-6, h200, ComputePath::bf16_tensor, stream).verdict,
            "memory-bound: 15% of the HBM3e floor");
  // A larger overhead (single launches) moves the bound with it.
  EXPECT_EQ(roofline(kDecodeFlops, bytes, 6.5e-6, h200, ComputePath::bf16_tensor, {true, 5e-6}).verdict,
            "launch-bound: 6.5 us against a 0.7 us floor (launch overhead 5.0 us)");
  // The floor at 40% of the time or more: judged against the floor, not called launch-bound.
  EXPECT_EQ(roofline(kDecodeFlops, bytes, 1.6e-6, h200, ComputePath::bf16_tensor, stream).verdict,
            "memory-bound: 44% of the HBM3e floor");
}

TEST(Roofline, GraphReplayIsNeverLaunchBound) {
  const Ceilings h200 = lookup_ceilings("NVIDIA H200");
  const double bytes = 0.7e-6 * 4.8e12;
  // Graph replay takes launch overhead out (included = false, the default): 3.1 us is the kernel.
  EXPECT_EQ(roofline(kDecodeFlops, bytes, 3.1e-6, h200, ComputePath::bf16_tensor).verdict,
            "memory-bound: 23% of the HBM3e floor");
  EXPECT_EQ(roofline(kDecodeFlops, bytes, 3.1e-6, h200, ComputePath::bf16_tensor, {false, 2.6e-6}).verdict,
            "memory-bound: 23% of the HBM3e floor");
}

TEST(Roofline, ComputeBoundPrefillOnTheBackendsPeak) {
  const Ceilings h200 = lookup_ceilings("NVIDIA H200");
  const double flops = 2.0 * 4096 * 6144 * 6144, bytes = 60e6;
  const double bf16_floor = flops / 989e12;  // 313 us
  const Roofline r = roofline(flops, bytes, bf16_floor / 0.61, h200, ComputePath::bf16_tensor);
  EXPECT_DOUBLE_EQ(r.floor_s, bf16_floor);
  EXPECT_EQ(r.verdict, "compute-bound: 61% of the BF16 tensor peak");
  // The same time on the FP8 path is judged against the FP8 peak.
  EXPECT_EQ(roofline(flops, bytes, bf16_floor / 0.61, h200, ComputePath::fp8_tensor).verdict,
            "compute-bound: 30% of the FP8 tensor peak");
  const Ceilings b200 = lookup_ceilings("NVIDIA B200");
  EXPECT_DOUBLE_EQ(roofline(flops, bytes, 1e-3, b200, ComputePath::fp4_tensor).compute_floor_s, flops / 9000e12);
}

TEST(Roofline, BeyondTheMemoryFloorSaysCache) {
  const Ceilings h200 = lookup_ceilings("NVIDIA H200");
  const double floor = kDecodeBytes / 4.8e12;
  EXPECT_EQ(roofline(kDecodeFlops, kDecodeBytes, floor / 1.5, h200, ComputePath::bf16_tensor).verdict,
            "memory-bound: 150% of the HBM3e floor (over 100%: operands served from cache)");
}

TEST(Roofline, PathWithoutAPeakUsesTheMemoryFloorAndSaysSo) {
  const Ceilings h200 = lookup_ceilings("NVIDIA H200");
  const double floor = kDecodeBytes / 4.8e12;
  const Roofline r = roofline(kDecodeFlops, kDecodeBytes, floor / 0.5, h200, ComputePath::fp4_tensor);
  EXPECT_DOUBLE_EQ(r.compute_floor_s, 0);
  EXPECT_EQ(r.verdict, "memory-bound: 50% of the HBM3e floor; no FP4 tensor peak on this device");
}

TEST(Roofline, NoCeilingForCpusAndUnknownDevices) {
  const Roofline cpu = roofline(kDecodeFlops, kDecodeBytes, 1e-3, lookup_ceilings("NVIDIA H200"), ComputePath::cpu);
  EXPECT_DOUBLE_EQ(cpu.floor_s, 0);
  EXPECT_DOUBLE_EQ(cpu.efficiency, 0);
  EXPECT_DOUBLE_EQ(cpu.intensity, kDecodeFlops / kDecodeBytes);
  EXPECT_EQ(cpu.verdict, "no ceiling: fp4gemm has no CPU peaks");
  const Roofline unknown =
      roofline(kDecodeFlops, kDecodeBytes, 1e-3, lookup_ceilings("Mystery GPU"), ComputePath::bf16_tensor);
  EXPECT_DOUBLE_EQ(unknown.efficiency, 0);
  EXPECT_EQ(unknown.verdict, "no ceiling known for Mystery GPU");
}

TEST(Roofline, PercentFormat) {
  EXPECT_EQ(format_percent(0.834), "83%");
  EXPECT_EQ(format_percent(0.0186), "1.9%");
  EXPECT_EQ(format_percent(1.5), "150%");
}

}  // namespace
}  // namespace fp4gemm
