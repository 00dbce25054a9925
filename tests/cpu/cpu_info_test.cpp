// query_cpu(): the SIMD flags must agree with what the Linux kernel reports in /proc/cpuinfo
// (which lists a feature only when the CPU has it and the OS enabled its register state, the
// same rule query_cpu applies through cpuid + xgetbv), and simd_in_use must name the path
// cpu-fast takes.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "cpu/fast_gemm.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm::test {
namespace {

// The "flags" of the first processor in /proc/cpuinfo; empty if there is no such file.
std::set<std::string> proc_cpuinfo_flags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

TEST(CpuInfo, DescribesThisMachine) {
  const CpuInfo cpu = query_cpu();
  EXPECT_FALSE(cpu.model.empty());
  EXPECT_EQ(cpu.logical_cores, std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(cpu.simd_in_use, cpu::to_string(cpu::best_isa(cpu)));
  EXPECT_TRUE(!cpu.avx512bw || cpu.avx512f) << "AVX-512BW without AVX-512F";
}

TEST(CpuInfo, FlagsAgreeWithProcCpuinfo) {
  const std::set<std::string> flags = proc_cpuinfo_flags();
  if (flags.empty()) GTEST_SKIP() << "no flags line in /proc/cpuinfo on this system";
  const CpuInfo cpu = query_cpu();
  EXPECT_EQ(cpu.avx2, flags.count("avx2") == 1);
  EXPECT_EQ(cpu.fma, flags.count("fma") == 1);
  EXPECT_EQ(cpu.avx512f, flags.count("avx512f") == 1);
  EXPECT_EQ(cpu.avx512bw, flags.count("avx512bw") == 1);
}

TEST(CpuInfo, BestIsaFollowsTheFlags) {
  CpuInfo cpu;
  EXPECT_EQ(cpu::best_isa(cpu), cpu::Isa::scalar);
  EXPECT_FALSE(cpu::isa_support(cpu::Isa::avx2, cpu)) << "AVX2 kernels on a CPU without AVX2";
  cpu.fma = true;
  EXPECT_EQ(cpu::best_isa(cpu), cpu::Isa::scalar) << "FMA alone is not the AVX2 path";
  cpu.avx2 = true;
  EXPECT_EQ(cpu::best_isa(cpu), cpu::Isa::avx2);
  cpu.avx512f = true;
  EXPECT_EQ(cpu::best_isa(cpu), cpu::Isa::avx512);
  EXPECT_TRUE(cpu::isa_support(cpu::Isa::scalar, CpuInfo{}));
}

}  // namespace
}  // namespace fp4gemm::test
