#pragma once
// What cublas-bf16 and its per-expert loop (cublas-bf16-loop) share: the operands as exact
// 16-bit values, the rule of which problems they take, a cuBLAS handle set up for exact
// results, and one GEMM call.
//
// cublasGemmEx with CUBLAS_COMPUTE_32F writes bf16 or f32 from bf16 inputs, never f16. For an
// f16 output the operands are FP16 instead: NVFP4 block values (q * e4m3, at most 6 significant
// bits, magnitudes 2^-10 .. 2688) are FP16 numbers, but MXFP4's (q * 2^e) and bf16 activations
// can lie outside FP16's range, so f16 output is offered for NVFP4 w4a4 only.
#include <cstdint>
#include <vector>

#include "baselines/cublas_objects.hpp"
#include "cuda/device_buffer.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm::baselines {

// Values in the 16-bit type `t` (bf16 or f16); InvalidArgument naming the first value the type
// does not hold exactly, so that the backend never silently changes an operand.
std::vector<std::uint16_t> exact_16bit(const std::vector<float>& values, DType t, const char* operand);

// int dimensions, and f16 output only for NVFP4 w4a4 (see above).
Verdict cublas_16bit_can_implement(const GemmProblem& problem);
// Exact: bf16 (or f16) block values, fp32 accumulation.
Accuracy cublas_16bit_accuracy();
// f16 for an f16 output, else bf16.
DType cublas_operand_dtype(const GemmProblem& problem);

// Points `handle` at `stream` and `workspace` (after a stream change too: cublasSetStream resets
// the workspace), so that its calls allocate nothing and can be captured into a CUDA graph.
void bind_cublas_stream(cublasHandle_t handle, cudaStream_t stream,
                        cuda::DeviceBuffer<std::uint8_t>& workspace);
// A handle on `stream` with `workspace` (kWorkspaceBytes) and reductions kept in fp32.
CublasHandle make_exact_cublas_handle(cudaStream_t stream, cuda::DeviceBuffer<std::uint8_t>& workspace);

// D (M x N, out_dtype) = alpha * A B^T with A (M x K) and B (N x K) row-major 16-bit operands
// of `operand_dtype`, enqueued on the handle's stream.
void cublas_gemm_16bit(cublasHandle_t handle, const GemmShape& shape, DType operand_dtype,
                       const std::uint16_t* a, const std::uint16_t* b, float alpha, void* d,
                       DType out_dtype);

}  // namespace fp4gemm::baselines
