// The GPU activation quantizer of cuda-fp8-lossy (fp8_quantize.hpp): one 128-element block per 16
// threads, 8 elements (one 16-byte load, one 8-byte store) per thread; the block's amax by
// shuffles inside each half-warp; conversion by the hardware's cvt.rn.satfinite.e4m3x2.f32 (sm_89+;
// cuda_fp8.h's software conversion elsewhere), round-to-nearest-even saturating at 448 as
// e4m3_from_float does on the host.
#include "cuda/fp8_quantize.hpp"

#include <cuda_fp8.h>

#include "cuda/cuda_check.hpp"
#include "fp4gemm/codecs.hpp"
#include "format/fp8_blocks.hpp"

namespace fp4gemm::cuda {
namespace {

constexpr int kThreadsPerBlock = kFp8Block / 8;  // 16 threads x 8 elements
constexpr int kCtaThreads = 256;

__global__ void __launch_bounds__(kCtaThreads)
    quantize_fp8_blocks_kernel(const std::uint16_t* __restrict__ in, std::int64_t rows,
                               std::int64_t cols, std::uint8_t* __restrict__ codes,
                               std::int64_t padded_cols, float* __restrict__ scales,
                               std::int64_t scale_stride) {
  const std::int64_t k_blocks = padded_cols / kFp8Block;
  const std::int64_t thread = std::int64_t(blockIdx.x) * kCtaThreads + threadIdx.x;
  const std::int64_t unit = thread / kThreadsPerBlock;  // (row, k block)
  const int part = int(thread % kThreadsPerBlock);
  const bool valid = unit < rows * k_blocks;  // every lane takes part in the shuffles below
  const std::int64_t row = valid ? unit / k_blocks : 0, kb = valid ? unit % k_blocks : 0;
  const std::int64_t k = kb * kFp8Block + part * 8;

  float v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  if (valid && k < cols) {  // cols % 8 == 0: a thread's 8 elements are all inside or all past K
    const uint4 raw = *reinterpret_cast<const uint4*>(in + row * cols + k);
    const std::uint32_t words[4] = {raw.x, raw.y, raw.z, raw.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      v[2 * i] = bf16_to_float(std::uint16_t(words[i] & 0xFFFF));
      v[2 * i + 1] = bf16_to_float(std::uint16_t(words[i] >> 16));
    }
  }
  float amax = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i) amax = fmaxf(amax, fabsf(v[i]));
#pragma unroll
  for (int offset = kThreadsPerBlock / 2; offset > 0; offset /= 2)  // inside each half-warp
    amax = fmaxf(amax, __shfl_xor_sync(0xFFFFFFFFu, amax, offset));
  if (!valid) return;
  const int e = fp8_scale_exponent(amax);
  const float inverse = fp8_power_of_two(-e);  // x * 2^-e is exact
  std::uint32_t packed[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const __nv_fp8x2_storage_t lo = __nv_cvt_float2_to_fp8x2(
        make_float2(v[4 * h] * inverse, v[4 * h + 1] * inverse), __NV_SATFINITE, __NV_E4M3);
    const __nv_fp8x2_storage_t hi = __nv_cvt_float2_to_fp8x2(
        make_float2(v[4 * h + 2] * inverse, v[4 * h + 3] * inverse), __NV_SATFINITE, __NV_E4M3);
    packed[h] = std::uint32_t(lo) | (std::uint32_t(hi) << 16);
  }
  *reinterpret_cast<uint2*>(codes + row * padded_cols + k) = make_uint2(packed[0], packed[1]);
  if (part == 0) scales[kb * scale_stride + row] = fp8_power_of_two(e);
}

}  // namespace

void quantize_bf16_to_fp8_blocks(const std::uint16_t* in, std::int64_t rows, std::int64_t cols,
                                 std::uint8_t* codes, std::int64_t padded_cols, float* scales,
                                 std::int64_t scale_stride, cudaStream_t stream) {
  const std::int64_t threads = rows * (padded_cols / kFp8Block) * kThreadsPerBlock;
  const std::int64_t ctas = (threads + kCtaThreads - 1) / kCtaThreads;
  quantize_fp8_blocks_kernel<<<unsigned(ctas), kCtaThreads, 0, stream>>>(in, rows, cols, codes,
                                                                         padded_cols, scales, scale_stride);
  FP4GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace fp4gemm::cuda
