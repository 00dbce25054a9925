// query_cpu(): the CPU's model, logical cores and the SIMD features cpu-fast can use.
//
// A feature counts only if both the CPU has it (cpuid) and the OS saves its registers on a
// context switch (XCR0 via xgetbv, after checking OSXSAVE): AVX/AVX2/FMA need the SSE and AVX
// state (XCR0 bits 1, 2); AVX-512 also the opmask and both ZMM halves (bits 5, 6, 7).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "cpu/fast_gemm.hpp"
#include "cpu/parallel_for.hpp"
#include "fp4gemm/device.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define FP4GEMM_CPU_X86 1
#endif

namespace fp4gemm {
namespace {

#if defined(FP4GEMM_CPU_X86)

bool bit(unsigned value, int index) { return (value >> index) & 1u; }

std::uint64_t read_xcr0() {
  std::uint32_t low = 0, high = 0;
  __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (std::uint64_t(high) << 32) | low;
}

// The 48-byte brand string of leaves 0x80000002..4, trimmed; empty if the CPU has none.
std::string brand_string() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000004u) return {};
  char text[49] = {};
  for (unsigned leaf = 0; leaf < 3; ++leaf) {
    __cpuid(0x80000002u + leaf, a, b, c, d);
    const unsigned regs[4] = {a, b, c, d};
    std::memcpy(text + 16 * leaf, regs, sizeof regs);
  }
  std::string s(text);
  const auto first = s.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

void detect_features(CpuInfo& info) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf < 1) return;
  __cpuid(1, a, b, c, d);
  const bool fma = bit(c, 12), osxsave = bit(c, 27), avx = bit(c, 28);
  const std::uint64_t xcr0 = osxsave ? read_xcr0() : 0;
  const bool os_avx = (xcr0 & 0x6) == 0x6;     // SSE + AVX state
  const bool os_avx512 = (xcr0 & 0xE6) == 0xE6;  // + opmask, ZMM_Hi256, Hi16_ZMM
  bool avx2 = false, avx512f = false, avx512bw = false;
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    avx2 = bit(b, 5);
    avx512f = bit(b, 16);
    avx512bw = bit(b, 30);
  }
  info.avx2 = avx && avx2 && os_avx;
  info.fma = avx && fma && os_avx;
  info.avx512f = avx512f && os_avx512;
  info.avx512bw = avx512bw && os_avx512;
  info.model = brand_string();
}

#else

void detect_features(CpuInfo&) {}  // no x86 SIMD paths on other architectures

#endif

}  // namespace

CpuInfo query_cpu() {
  CpuInfo info;
  info.logical_cores = cpu::hardware_threads();
  detect_features(info);
  if (info.model.empty()) info.model = "unknown CPU";
  info.simd_in_use = std::string(cpu::to_string(cpu::best_isa(info)));
  return info;
}

}  // namespace fp4gemm
