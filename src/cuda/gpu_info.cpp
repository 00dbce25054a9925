// GPU queries of a CUDA build: every device the runtime sees, with the figures bench and the
// backends' availability() need. No driver or no device is not an error: the list is empty and
// `why_none` carries the runtime's reason. A failure after a device was found throws CudaError.
#include <cuda_runtime.h>

#include <fmt/format.h>

#include "cuda/cuda_check.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm {
namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  FP4GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

GpuInfo describe(int device, const std::string& driver) {
  cudaDeviceProp p{};
  FP4GEMM_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
  GpuInfo g;
  g.index = device;
  g.name = p.name;
  g.sm_major = p.major;
  g.sm_minor = p.minor;
  g.multiprocessors = p.multiProcessorCount;
  g.memory_gib = double(p.totalGlobalMem) / double(1ull << 30);
  g.smem_per_block_optin = int(p.sharedMemPerBlockOptin);
  g.l2_bytes = p.l2CacheSize;
  // CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes give peak clocks in kHz.
  g.sm_clock_mhz = attribute(cudaDevAttrClockRate, device) / 1000;
  g.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, device) / 1000;
  g.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, device);
  g.driver = driver;
  return g;
}

// Number of devices, or 0 with the runtime's reason (no driver, driver too old, no device).
int device_count(std::string* why_none) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaSuccess && count > 0) return count;
  // The failed call is also recorded as the runtime's last error; clear it so that the next
  // FP4GEMM_CUDA_CHECK_LAUNCH() does not report it against an unrelated kernel.
  cudaGetLastError();
  if (why_none) {
    *why_none = status == cudaSuccess
                    ? std::string("no CUDA device (cudaGetDeviceCount: 0 devices)")
                    : fmt::format("no CUDA device (cudaGetDeviceCount: {}: {})",
                                  cudaGetErrorName(status), cudaGetErrorString(status));
  }
  return 0;
}

}  // namespace

std::vector<GpuInfo> query_gpus(std::string* why_none) {
  const int count = device_count(why_none);
  if (count == 0) return {};
  if (why_none) why_none->clear();
  int version = 0;  // 1000 * major + 10 * minor, e.g. 13000
  FP4GEMM_CUDA_CHECK(cudaDriverGetVersion(&version));
  const std::string driver = fmt::format("{}.{}", version / 1000, version % 1000 / 10);
  std::vector<GpuInfo> gpus;
  for (int device = 0; device < count; ++device) gpus.push_back(describe(device, driver));
  return gpus;
}

bool cuda_device_present() { return device_count(nullptr) > 0; }

GpuMemory current_gpu_memory() {
  if (!cuda_device_present()) return {};
  int device = 0;
  FP4GEMM_CUDA_CHECK(cudaGetDevice(&device));
  std::size_t free_bytes = 0, total_bytes = 0;
  FP4GEMM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return {double(attribute(cudaDevAttrL2CacheSize, device)), double(free_bytes)};
}

}  // namespace fp4gemm
