#pragma once
// What hardware is present: the CPU (always) and CUDA GPUs (in CUDA builds, when a driver and
// a device exist). Used by `fp4gemm devices`, by backends' availability() and by bench/check
// to pick the best device.
#include <string>
#include <vector>

namespace fp4gemm {

struct CpuInfo {
  std::string model;
  unsigned logical_cores = 0;
  bool avx2 = false, fma = false, avx512f = false, avx512bw = false;
  std::string simd_in_use;  // the ISA the fast CPU backend dispatches to here
};

struct GpuInfo {
  int index = 0;
  std::string name;
  int sm_major = 0, sm_minor = 0;
  int multiprocessors = 0;
  double memory_gib = 0;
  int smem_per_block_optin = 0;  // bytes
  int l2_bytes = 0;
  int sm_clock_mhz = 0, memory_clock_mhz = 0;  // maximum clocks
  int memory_bus_bits = 0;
  std::string driver;           // e.g. "13.0"
};

CpuInfo query_cpu();
// Every CUDA device; empty (not an error) with `why_none` set when there is none.
std::vector<GpuInfo> query_gpus(std::string* why_none = nullptr);
bool cuda_device_present();

// The current CUDA device's L2 size (cudaDevAttrL2CacheSize) and free memory (cudaMemGetInfo),
// which size the operand rotation of cold timings; zeros when there is no device.
struct GpuMemory {
  double l2_bytes = 0, free_bytes = 0;
};
GpuMemory current_gpu_memory();

}  // namespace fp4gemm
