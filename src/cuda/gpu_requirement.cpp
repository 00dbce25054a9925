#include "cuda/gpu_requirement.hpp"

#include <cuda_runtime.h>

#include <fmt/format.h>

#include "cuda/cuda_check.hpp"
#include "fp4gemm/device.hpp"

namespace fp4gemm::cuda {
namespace {

// Yes when `accept` takes the current device's sm (10 * major + minor); else why not.
template <class Accept>
Verdict require_device_sm(Accept accept, std::string_view need) {
  std::string why_none;
  const std::vector<GpuInfo> gpus = query_gpus(&why_none);
  if (gpus.empty()) return Verdict::no(why_none);
  int device = 0;
  FP4GEMM_CUDA_CHECK(cudaGetDevice(&device));
  const GpuInfo& gpu = gpus.at(std::size_t(device));
  if (accept(gpu.sm_major * 10 + gpu.sm_minor)) return Verdict::yes();
  return Verdict::no(fmt::format("{}; this GPU is sm_{}{}", need, gpu.sm_major, gpu.sm_minor));
}

}  // namespace

Verdict require_sm(int min_sm, std::string_view need) {
  return require_device_sm([min_sm](int sm) { return sm >= min_sm; }, need);
}

Verdict require_sm_exactly(int sm, std::string_view need) {
  return require_device_sm([sm](int device_sm) { return device_sm == sm; }, need);
}

Verdict kernel_image_present(const void* kernel, std::string_view backend) {
  cudaFuncAttributes attributes{};
  const cudaError_t status = cudaFuncGetAttributes(&attributes, kernel);
  if (status == cudaSuccess) return Verdict::yes();
  cudaGetLastError();  // clear it: this is an answer, not a failure
  return Verdict::no(fmt::format("this build has no {} machine code for this GPU ({}); it covers "
                                 "sm_80, sm_90a, sm_100a, sm_120a", backend, cudaGetErrorName(status)));
}

int current_device_attribute(cudaDeviceAttr attribute) {
  int device = 0, value = 0;
  FP4GEMM_CUDA_CHECK(cudaGetDevice(&device));
  FP4GEMM_CUDA_CHECK(cudaDeviceGetAttribute(&value, attribute, device));
  return value;
}

void allow_dynamic_smem(const void* kernel, int bytes, std::string_view what) {
  const int optin = current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  if (bytes > optin)
    throw Error(fmt::format("{} needs {} B of shared memory, this GPU allows {} B per block", what,
                            bytes, optin));
  cudaFuncAttributes attributes{};
  FP4GEMM_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  if (attributes.maxDynamicSharedSizeBytes < bytes)
    FP4GEMM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
}

int resident_ctas_per_sm(const void* kernel, int threads, int smem_bytes, std::string_view what) {
  allow_dynamic_smem(kernel, smem_bytes, what);
  int ctas = 0;
  FP4GEMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, kernel, threads, std::size_t(smem_bytes)));
  return ctas;
}

int current_device_sm() {
  return current_device_attribute(cudaDevAttrComputeCapabilityMajor) * 10 +
         current_device_attribute(cudaDevAttrComputeCapabilityMinor);
}

}  // namespace fp4gemm::cuda
