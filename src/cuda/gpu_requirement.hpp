#pragma once
// What every CUDA backend's availability() and plan ask of the current device: the
// compute-capability gate, whether this build holds a kernel's machine code, and attributes.
#include <cuda_runtime.h>

#include <string_view>

#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

// Yes when the current CUDA device is at least sm_`min_sm` (10 * major + minor); otherwise why
// not: "<need>; this GPU is sm_90", or the runtime's reason when there is no device at all.
Verdict require_sm(int min_sm, std::string_view need);

// Yes when the current CUDA device is exactly sm_`sm` (kernels of architecture-specific features,
// e.g. sm_90a's wgmma, which sm_100 lacks); otherwise why not, as require_sm says it.
Verdict require_sm_exactly(int sm, std::string_view need);

// Yes when this build holds machine code of `kernel` for the current device (the fatbinary
// covers sm_80, 90a, 100a, 120a; e.g. sm_103 has none); otherwise why not, naming `backend`.
Verdict kernel_image_present(const void* kernel, std::string_view backend);

// Lets `kernel` launch with `bytes` of dynamic shared memory on the current device: raises its
// limit (cudaFuncAttributeMaxDynamicSharedMemorySize) to `bytes` when lower and never lowers it,
// so that plans of one kernel with different needs may all be prepared before any of them runs
// (a layer's GEMMs in `plan --measure`; a plan that set the limit down made the launches of
// earlier, larger plans fail with "invalid argument"). Throws Error "<what> needs N B of shared
// memory, this GPU allows M B per block" when the device allows less.
void allow_dynamic_smem(const void* kernel, int bytes, std::string_view what);

// CTAs of `threads` threads with smem_bytes of dynamic shared memory of `kernel` resident per SM
// of the current device (0 when none fits), after allow_dynamic_smem(kernel, smem_bytes, what).
int resident_ctas_per_sm(const void* kernel, int threads, int smem_bytes, std::string_view what);

// The current device's architecture, 10 * major + minor (throws Error without a device).
int current_device_sm();

// An attribute of the current device (throws Error with the runtime's reason).
int current_device_attribute(cudaDeviceAttr attribute);

}  // namespace fp4gemm::cuda
