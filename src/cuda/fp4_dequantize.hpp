#pragma once
// FP4 (NVFP4 / MXFP4, either scale layout) -> bf16 on the GPU, exact: E2M1 x block scale is
// rebuilt in bf16 as the FP4 kernels do in registers (mma_primitives.cuh); the tensor scale
// (scale_2) is not applied (the GEMM's alpha carries it). cuda-dequant-cublas runs it on B in every
// call (and on A for w4a4); cuda-fp8-lossy's w4a4 path on the activations;
// cuda-grouped's w4a4 path on the experts' activations (the grouped form).
#include <cuda_runtime.h>

#include <cstdint>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm::cuda {

// Whether this build holds machine code of the kernel for the current device (`backend` names the
// caller in the reason).
Verdict dequantize_kernel_image_present(std::string_view backend);

// out (rows x cols bf16 codes, row-major) = codes x block scales of `data` / `scales` (a
// rows x cols FP4 tensor of `format` with scales in `layout`, scale_bytes long). cols is a
// multiple of the block size; `data` and `out` are 16-byte aligned. Enqueued on `stream` only.
void dequantize_fp4_to_bf16(const std::uint8_t* data, const std::uint8_t* scales,
                            Fp4Format format, ScaleLayout layout, std::int64_t rows,
                            std::int64_t cols, std::uint16_t* out, cudaStream_t stream);

// The same for the activations of a grouped GEMM (fp4gemm/grouped.hpp): `data` holds T_total rows
// of cols FP4 values, expert e's rows offsets[e] .. offsets[e + 1] - 1 (`offsets`: E + 1 int32 or
// int64 on the device, read there), `scales` the experts' scale blocks one after another (linear:
// M_e rows each; swizzled: round_up(M_e, 128) rows each). out: T_total x cols bf16. Rows are
// spread over min(max_rows_per_expert, 32) CTAs per expert and chunk block (every row is written,
// also past the bound). A programmatic dependent launch on sm_90+ (it waits for the previous
// kernel before reading anything).
void dequantize_grouped_fp4_to_bf16(const std::uint8_t* data, const std::uint8_t* scales, Fp4Format format,
                                    ScaleLayout layout, const void* offsets, bool offsets_int64, int experts,
                                    std::int64_t max_rows_per_expert, std::int64_t cols, std::uint16_t* out,
                                    cudaStream_t stream);

}  // namespace fp4gemm::cuda
