#pragma once
// Programmatic dependent launch (sm_90+): a kernel launched with it may start while the kernel
// before it in the stream is still running, once every CTA of that kernel has called
// allow_dependent_grids() (or exited). The early part of the new kernel (before
// wait_for_prerequisite_grids) overlaps the old kernel's tail; it may only read memory that no
// kernel of the stream writes (fp4gemm's kernels: the weights uploaded by prepare()) and must not
// write global memory. wait_for_prerequisite_grids() returns when the kernels before it have
// completed and their writes are visible; both calls are no-ops where the kernel was launched
// without the attribute and below sm_90.
//
// A decode step is a chain of GEMMs, each starting as soon as the previous one ends; this is how
// a decode kernel's start-up (CTA launch, the first weight bytes' DRAM latency) leaves the
// critical path. The bench's graph replay of back-to-back calls times exactly that chain. Users:
// the cuda-decode kernels (decode_gemm.cuh: weight copies before the wait) and the GPU quantizer
// (quantize_kernel.cuh: waits first, so only its launch overlaps; a w4a4 call is quantize then
// decode, both dependent launches).
#include <cuda_runtime.h>

#include <utility>

#include "cuda/cuda_check.hpp"
#include "cuda/gpu_requirement.hpp"

namespace fp4gemm::cuda {

__device__ __forceinline__ void wait_for_prerequisite_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_dependent_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// Whether the current device takes the launch attribute (sm_90+).
inline bool dependent_launch_supported() { return current_device_sm() >= 90; }

// Launches kernel<<<grid, threads, smem_bytes, stream>>>(args...), as a programmatic dependent
// launch when `dependent` (callers pass dependent_launch_supported()).
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, int threads, int smem_bytes, bool dependent,
                   cudaStream_t stream, Args&&... args) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(unsigned(threads));
  config.dynamicSmemBytes = std::size_t(smem_bytes);
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = dependent ? 1 : 0;
  FP4GEMM_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace fp4gemm::cuda
