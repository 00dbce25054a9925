// GPU queries of a build without CUDA: there is never a device, and the reason says why.
#include "fp4gemm/device.hpp"

namespace fp4gemm {

std::vector<GpuInfo> query_gpus(std::string* why_none) {
  if (why_none) *why_none = "this build of fp4gemm has no CUDA support (configured with FP4GEMM_CUDA=OFF)";
  return {};
}

bool cuda_device_present() { return false; }

GpuMemory current_gpu_memory() { return {}; }

}  // namespace fp4gemm
