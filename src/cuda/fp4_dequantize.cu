// FP4 -> bf16 dequantization kernel (see fp4_dequantize.hpp).
//
// Algorithm: grid (chunk blocks of a row, rows); thread j of x-block b owns the 16-element chunk
// c = b * kThreads + j of the rows blockIdx.y, blockIdx.y + gridDim.y, ... (no division per
// chunk): one 8-byte load of its codes, its scale byte at scale_offset(row, c * 16 / block),
// scale_to_bf16x2, four e2m1x4_to_bf16, two 16-byte stores. Memory-bound: 9 bytes in, 32 bytes
// out per chunk; a warp reads 256 contiguous code bytes and writes 1 KB.
#include "cuda/fp4_dequantize.hpp"

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/mma_primitives.cuh"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxGridRows = 65535;  // grid y limit

__global__ void __launch_bounds__(kThreads) dequantize_kernel(const std::uint8_t* data, const std::uint8_t* scales,
                                                              bool mxfp4, ScaleLayout layout, std::int64_t rows,
                                                              std::int64_t cols, std::uint16_t* out) {
  const std::int64_t chunks_per_row = cols / 16, scale_cols = cols / (mxfp4 ? 32 : 16);
  const std::int64_t c = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (c >= chunks_per_row) return;
  const std::int64_t kb = mxfp4 ? c / 2 : c;
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const std::int64_t chunk = row * chunks_per_row + c;
    const uint2 codes = *reinterpret_cast<const uint2*>(data + chunk * 8);
    const std::uint32_t scale = mma::scale_to_bf16x2(mxfp4, scales[scale_offset(layout, row, kb, scale_cols)]);
    uint4 lo, hi;
    mma::e2m1x4_to_bf16(codes.x, scale, lo.x, lo.y);
    mma::e2m1x4_to_bf16(codes.x >> 16, scale, lo.z, lo.w);
    mma::e2m1x4_to_bf16(codes.y, scale, hi.x, hi.y);
    mma::e2m1x4_to_bf16(codes.y >> 16, scale, hi.z, hi.w);
    uint4* dst = reinterpret_cast<uint4*>(out + chunk * 16);
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
  if (rows == 0 || cols == 0) return;
  const std::int64_t chunks_per_row = cols / 16;
  const dim3 grid(unsigned((chunks_per_row + kThreads - 1) / kThreads),
                  unsigned(std::min<std::int64_t>(rows, kMaxGridRows)));
  dequantize_kernel<<<grid, kThreads, 0, stream>>>(data, scales, format == Fp4Format::mxfp4, layout, rows,
                                                   cols, out);
  FP4GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace fp4gemm::cuda
