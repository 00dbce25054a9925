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
// the cuda-decode kernels (decode_gemm.cuh: weight copies before the wait), the cuda-grouped kernel
// and the GPU quantizer (grouped_gemm.cuh, quantize_kernel.cuh: they wait first, so only their
// launch overlaps; a w4a4 call is quantize then decode, both dependent launches).
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

// The configuration of launch_kernel_in_clusters (and of occupancy queries of such a launch):
// `cluster` CTAs per thread-block cluster (1 x 1 x 1: no cluster attribute), a programmatic
// dependent launch when `dependent`. `attributes` holds what config.attrs points to.
inline cudaLaunchConfig_t launch_config(dim3 grid, dim3 cluster, int threads, int smem_bytes, bool dependent,
                                        cudaStream_t stream, cudaLaunchAttribute (&attributes)[2]) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(unsigned(threads));
  config.dynamicSmemBytes = std::size_t(smem_bytes);
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = 0;
  if (dependent) {
    attributes[config.numAttrs] = {};
    attributes[config.numAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[config.numAttrs].val.programmaticStreamSerializationAllowed = 1;
    ++config.numAttrs;
  }
  if (cluster.x * cluster.y * cluster.z > 1) {
    attributes[config.numAttrs] = {};
    attributes[config.numAttrs].id = cudaLaunchAttributeClusterDimension;
    attributes[config.numAttrs].val.clusterDim.x = cluster.x;
    attributes[config.numAttrs].val.clusterDim.y = cluster.y;
    attributes[config.numAttrs].val.clusterDim.z = cluster.z;
    ++config.numAttrs;
  }
  return config;
}

// Launches kernel<<<grid, threads, smem_bytes, stream>>>(args...) in thread-block clusters of
// `cluster` CTAs (sm_90+; the grid a multiple of it in each dimension; more than 8 CTAs need the
// kernel's cudaFuncAttributeNonPortableClusterSizeAllowed), as a programmatic dependent launch when
// `dependent` (callers pass dependent_launch_supported()).
template <class... Params, class... Args>
void launch_kernel_in_clusters(void (*kernel)(Params...), dim3 grid, dim3 cluster, int threads, int smem_bytes,
                               bool dependent, cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attributes[2];
  const cudaLaunchConfig_t config = launch_config(grid, cluster, threads, smem_bytes, dependent, stream, attributes);
  FP4GEMM_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

// The same without clusters.
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, int threads, int smem_bytes, bool dependent,
                   cudaStream_t stream, Args&&... args) {
  launch_kernel_in_clusters(kernel, grid, dim3(1, 1, 1), threads, smem_bytes, dependent, stream,
                            std::forward<Args>(args)...);
}

}  // namespace fp4gemm::cuda
