// FP4 -> bf16 dequantization kernels (see fp4_dequantize.hpp): a whole matrix, and the rows of a
// grouped GEMM's experts.
//
// Algorithm (both kernels): thread j of x-block b owns the 16-element chunk c = b * kThreads + j
// of its rows: one 8-byte load of its codes, its scale byte, scale_to_bf16x2, four
// e2m1x4_to_bf16, two 16-byte stores (dequantize_chunk). Memory-bound: 9 bytes in, 32 bytes out
// per chunk; a warp reads 256 contiguous code bytes and writes 1 KB.
//  - Matrix: grid (chunk blocks of a row, row slots); rows blockIdx.y, + gridDim.y, ... (no
//    division per chunk); scale of (row, block) at scale_offset(row, block).
//  - Grouped: grid (chunk blocks, row slots, E); CTA (x, y, e) takes rows offsets[e] + y, +
//    gridDim.y, ... below offsets[e + 1] (the offsets are read on the device). Expert e's scales
//    are its own block: linear, from its first row; swizzled, from the 128-padded counts of the
//    experts before it (padded_rows_before); the row inside the block is row - offsets[e]. A
//    programmatic dependent launch: it waits for the previous kernel (the offsets and A may be
//    its) and lets the next one (the grouped GEMM) start its launch.
#include "cuda/fp4_dequantize.hpp"

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/dependent_launch.cuh"
#include "cuda/expert_offsets.cuh"
#include "cuda/gpu_requirement.hpp"
#include "cuda/mma_primitives.cuh"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxGridRows = 65535;  // grid y limit
constexpr int kExpertRowSlots = 32;  // grouped: grid y, rows of an expert dequantized side by side

// The 16 elements of chunk `chunk` (8 code bytes) times its block's scale code, as 16 bf16.
__device__ __forceinline__ void dequantize_chunk(const std::uint8_t* data, std::uint8_t scale_code, bool mxfp4,
                                                 std::int64_t chunk, std::uint16_t* out) {
  const uint2 codes = *reinterpret_cast<const uint2*>(data + chunk * 8);
  const std::uint32_t scale = mma::scale_to_bf16x2(mxfp4, scale_code);
  uint4 lo, hi;
  mma::e2m1x4_to_bf16(codes.x, scale, lo.x, lo.y);
  mma::e2m1x4_to_bf16(codes.x >> 16, scale, lo.z, lo.w);
  mma::e2m1x4_to_bf16(codes.y, scale, hi.x, hi.y);
  mma::e2m1x4_to_bf16(codes.y >> 16, scale, hi.z, hi.w);
  uint4* dst = reinterpret_cast<uint4*>(out + chunk * 16);
  dst[0] = lo;
  dst[1] = hi;
}

__global__ void __launch_bounds__(kThreads) dequantize_kernel(const std::uint8_t* data, const std::uint8_t* scales,
                                                              bool mxfp4, ScaleLayout layout, std::int64_t rows,
                                                              std::int64_t cols, std::uint16_t* out) {
  const std::int64_t chunks_per_row = cols / 16, scale_cols = cols / (mxfp4 ? 32 : 16);
  const std::int64_t c = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (c >= chunks_per_row) return;
  const std::int64_t kb = mxfp4 ? c / 2 : c;
  for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y)
    dequantize_chunk(data, scales[scale_offset(layout, row, kb, scale_cols)], mxfp4, row * chunks_per_row + c, out);
}

__global__ void __launch_bounds__(kThreads)
    dequantize_grouped_kernel(const std::uint8_t* data, const std::uint8_t* scales, bool mxfp4, ScaleLayout layout,
                              ExpertOffsets offsets, std::int64_t cols, std::uint16_t* out) {
  wait_for_prerequisite_grids();
  allow_dependent_grids();
  const int e = int(blockIdx.z);
  const std::int64_t chunks_per_row = cols / 16, scale_cols = cols / (mxfp4 ? 32 : 16);
  const std::int64_t first = offsets[e], end = offsets[e + 1];
  // Every thread reaches the barriers of padded_rows_before (the layout is uniform).
  const std::uint8_t* expert_scales =
      scales + (layout == ScaleLayout::linear ? first * scale_cols
                                              : padded_rows_before<kThreads>(offsets, e) * round_up(scale_cols, 4));
  const std::int64_t c = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (c >= chunks_per_row) return;
  const std::int64_t kb = mxfp4 ? c / 2 : c;
  for (std::int64_t row = first + blockIdx.y; row < end; row += gridDim.y)
    dequantize_chunk(data, expert_scales[scale_offset(layout, row - first, kb, scale_cols)], mxfp4,
                     row * chunks_per_row + c, out);
}

unsigned chunk_blocks(std::int64_t cols) { return unsigned((cols / 16 + kThreads - 1) / kThreads); }

}  // namespace

Verdict dequantize_kernel_image_present(std::string_view backend) {
  return kernel_image_present(reinterpret_cast<const void*>(dequantize_kernel), backend);
}

void dequantize_fp4_to_bf16(const std::uint8_t* data, const std::uint8_t* scales,
                            Fp4Format format, ScaleLayout layout, std::int64_t rows,
                            std::int64_t cols, std::uint16_t* out, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  const dim3 grid(chunk_blocks(cols), unsigned(std::min<std::int64_t>(rows, kMaxGridRows)));
  dequantize_kernel<<<grid, kThreads, 0, stream>>>(data, scales, format == Fp4Format::mxfp4, layout, rows,
                                                   cols, out);
  FP4GEMM_CUDA_CHECK_LAUNCH();
}

void dequantize_grouped_fp4_to_bf16(const std::uint8_t* data, const std::uint8_t* scales, Fp4Format format,
                                    ScaleLayout layout, const void* offsets, bool offsets_int64, int experts,
                                    std::int64_t max_rows_per_expert, std::int64_t cols, std::uint16_t* out,
                                    cudaStream_t stream) {
  if (experts == 0 || max_rows_per_expert == 0 || cols == 0) return;
  const dim3 grid(chunk_blocks(cols), unsigned(std::min<std::int64_t>(max_rows_per_expert, kExpertRowSlots)),
                  unsigned(experts));
  launch_kernel(dequantize_grouped_kernel, grid, kThreads, 0, dependent_launch_supported(), stream, data, scales,
                format == Fp4Format::mxfp4, layout, ExpertOffsets{offsets, offsets_int64}, cols, out);
}

}  // namespace fp4gemm::cuda
