#pragma once
// FP4 (NVFP4 / MXFP4, either scale layout) -> bf16 on the GPU, exact: E2M1 x block scale is
// rebuilt in bf16 as the FP4 kernels do in registers (mma_primitives.cuh); the tensor scale
// (scale_2) is not applied (the GEMM's alpha carries it). cuda-dequant-cublas runs it on B in every
// call (and on A for w4a4); cuda-wgmma's and cuda-fp8-lossy's w4a4 paths on the activations.
#include <cuda_runtime.h>

#include <cstdint>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm::cuda {

// out (rows x cols bf16 codes, row-major) = codes x block scales of `data` / `scales` (a
// rows x cols FP4 tensor of `format` with scales in `layout`, scale_bytes long). cols is a
// multiple of the block size; `data` and `out` are 16-byte aligned. Enqueued on `stream` only.
// Whether this build holds machine code of the kernel for the current device (`backend` names the
// caller in the reason).
Verdict dequantize_kernel_image_present(std::string_view backend);

void dequantize_fp4_to_bf16(const std::uint8_t* data, const std::uint8_t* scales,
                            Fp4Format format, ScaleLayout layout, std::int64_t rows,
                            std::int64_t cols, std::uint16_t* out, cudaStream_t stream);

}  // namespace fp4gemm::cuda
