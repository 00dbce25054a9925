// FP4 -> bf16 dequantization kernel (see fp4_dequantize.hpp).
//
// Algorithm: one thread per 16-element chunk (grid-stride): one 8-byte load of its codes, its
// scale byte at scale_offset(row, k / block), scale_to_bf16x2, four e2m1x4_to_bf16, two 16-byte
// stores. Memory-bound: 9 bytes in, 32 bytes out per chunk.
#include "cuda/fp4_dequantize.hpp"

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/mma_primitives.cuh"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::cuda {
namespace {

__global__ void dequantize_kernel(const std::uint8_t* data, const std::uint8_t* scales, bool mxfp4,
                                  ScaleLayout layout, std::int64_t rows, std::int64_t cols,
                                  std::uint16_t* out) {
  const std::int64_t chunks_per_row = cols / 16, chunks = rows * chunks_per_row;
  const int block_shift = mxfp4 ? 5 : 4;
  for (std::int64_t c = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c < chunks;
       c += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t row = c / chunks_per_row, k = (c % chunks_per_row) * 16;
    const uint2 codes = *reinterpret_cast<const uint2*>(data + c * 8);
    const std::uint32_t scale = mma::scale_to_bf16x2(
        mxfp4, scales[scale_offset(layout, row, k >> block_shift, cols >> block_shift)]);
    uint4 lo, hi;
    mma::e2m1x4_to_bf16(codes.x, scale, lo.x, lo.y);
    mma::e2m1x4_to_bf16(codes.x >> 16, scale, lo.z, lo.w);
    mma::e2m1x4_to_bf16(codes.y, scale, hi.x, hi.y);
    mma::e2m1x4_to_bf16(codes.y >> 16, scale, hi.z, hi.w);
    uint4* dst = reinterpret_cast<uint4*>(out + c * 16);
    dst[0] = lo;
    dst[1] = hi;
  }
}

}  // namespace

Verdict dequantize_kernel_image_present(std::string_view backend) {
  return kernel_image_present(reinterpret_cast<const void*>(dequantize_kernel), backend);
}

void dequantize_fp4_to_bf16(const std::uint8_t* data, const std::uint8_t* scales,
                            Fp4Format format, ScaleLayout layout, std::int64_t rows,
                            std::int64_t cols, std::uint16_t* out, cudaStream_t stream) {
  constexpr int kThreads = 256, kMaxBlocks = 4096;
  const std::int64_t chunks = rows * (cols / 16);
  const int blocks = int(std::min<std::int64_t>((chunks + kThreads - 1) / kThreads, kMaxBlocks));
  dequantize_kernel<<<blocks, kThreads, 0, stream>>>(data, scales, format == Fp4Format::mxfp4,
                                                     layout, rows, cols, out);
  FP4GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace fp4gemm::cuda
