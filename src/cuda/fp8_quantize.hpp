#pragma once
// bf16 activations -> FP8 E4M3 in 1 x 128 blocks with power-of-two fp32 scales, on the GPU
// (format/fp8_blocks.hpp states the rule and its error). cuda-fp8-lossy runs it on the
// activations inside every timed call.
#include <cuda_runtime.h>

#include <cstdint>

namespace fp4gemm::cuda {

// in: rows x cols bf16 codes, row-major, 16-byte aligned, cols a multiple of 8.
// codes: rows x padded_cols (padded_cols = fp8_padded_k(cols)); codes past cols are zero.
// scales: [padded_cols / 128][scale_stride] floats (scale_stride >= rows): scales[kb * stride + r]
// is the scale of row r's block kb, the layout the GEMM's TMA reads (a token tile's scales
// contiguous). Enqueued on `stream` only; no allocation.
void quantize_bf16_to_fp8_blocks(const std::uint16_t* in, std::int64_t rows, std::int64_t cols,
                                 std::uint8_t* codes, std::int64_t padded_cols, float* scales,
                                 std::int64_t scale_stride, cudaStream_t stream);

}  // namespace fp4gemm::cuda
