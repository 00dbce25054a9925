#pragma once
// One lane's part of GPU quantization to NVFP4 / MXFP4: 16 consecutive elements loaded and widened
// to fp32, their max |x|, the block's scale code, their E2M1 codes and their block values. Used by
// the quantization kernels (quantize_kernel.cuh: steps 2-6) and by cuda-decode's staging of w4a4
// activations (decode_gemm.cuh step 1q), so both write the same bytes. Every rounding rule comes
// from format/quantize_rules.hpp and codecs.hpp, which the CPU quantizer calls too. Compile
// without --use_fast_math (IEEE division, no FTZ).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/mma_primitives.cuh"
#include "cuda/quantize_status.hpp"
#include "format/quantize_rules.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm::cuda {

inline constexpr int kElementsPerLane = 16;   // two 16-byte loads of bf16/f16, four of f32
inline constexpr std::uint32_t kInfBits = 0x7F800000u;  // |x| bits >= this: NaN or inf

template <DType D>
__device__ __forceinline__ float widen(std::uint32_t code) {
  return D == DType::bf16 ? bf16_to_float(std::uint16_t(code)) : fp16_to_float(std::uint16_t(code));
}

// The kElementsPerLane elements of x from index `element` (a multiple of 16: 16-byte aligned),
// as fp32, through 16-byte loads.
template <DType D>
__device__ __forceinline__ void load_lane(const void* __restrict__ x, std::int64_t element,
                                          float (&v)[kElementsPerLane]) {
  if constexpr (D == DType::f32) {
    const float4* p = static_cast<const float4*>(x) + element / 4;
#pragma unroll
    for (int i = 0; i < kElementsPerLane / 4; ++i) {
      const float4 q = p[i];
      v[4 * i] = q.x, v[4 * i + 1] = q.y, v[4 * i + 2] = q.z, v[4 * i + 3] = q.w;
    }
  } else {
    const uint4* p = static_cast<const uint4*>(x) + element / 8;
#pragma unroll
    for (int i = 0; i < kElementsPerLane / 8; ++i) {
      const uint4 q = p[i];
      const std::uint32_t words[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
      for (int j = 0; j < 4; ++j) {  // little-endian: element 2j in the low half of word j
        v[8 * i + 2 * j] = widen<D>(words[j] & 0xFFFFu);
        v[8 * i + 2 * j + 1] = widen<D>(words[j] >> 16);
      }
    }
  }
}

// max |v| as fp32 bits (NaN/inf give bits >= kInfBits).
__device__ __forceinline__ std::uint32_t max_abs_bits(const float (&v)[kElementsPerLane]) {
  std::uint32_t m = 0;
#pragma unroll
  for (int i = 0; i < kElementsPerLane; ++i) m = max(m, float_bits(v[i]) & 0x7FFFFFFFu);
  return m;
}

// Records the first NaN/inf of v, the elements (row, column0 + i). Rare: called only when
// max_abs_bits(v) >= kInfBits.
__device__ __forceinline__ void record_non_finite(const float (&v)[kElementsPerLane],
                                                  std::int64_t row, std::int64_t column0,
                                                  QuantizeStatusWords* status) {
  for (int i = 0; i < kElementsPerLane; ++i) {
    const std::uint32_t bits = float_bits(v[i]);
    if ((bits & 0x7FFFFFFFu) >= kInfBits) {
      atomicMin(&status->first_non_finite, non_finite_key(row, column0 + i, bits));
      return;
    }
  }
}

// The scale code of a block whose max |x| is block_amax (quantize_rules.hpp).
template <Fp4Format F>
__device__ __forceinline__ std::uint8_t block_scale_code(float block_amax, float scale_2) {
  return F == Fp4Format::nvfp4 ? nvfp4_block_scale_code(block_amax, scale_2) : mxfp4_block_scale_code(block_amax);
}

// The lane's 16 E2M1 codes under the block's scale code, packed little-endian (element i in
// nibble i).
template <Fp4Format F>
__device__ __forceinline__ unsigned long long lane_codes(const float (&v)[kElementsPerLane], std::uint8_t scale,
                                                         float scale_2) {
  const float divisor = block_divisor(F, scale, scale_2);
  unsigned long long packed = 0;
#pragma unroll
  for (int i = 0; i < kElementsPerLane; ++i)
    packed |= static_cast<unsigned long long>(fp4_code(v[i], divisor)) << (4 * i);
  return packed;
}

// The lane's 16 block values, e2m1(code) x block scale (no scale_2; exact in bf16: 2 x 4
// significant bits), as bf16 in element order: elements 0..7 in `low`, 8..15 in `high`. By the
// kernels' own FP4 decode (mma::e2m1x4_to_bf16: byte permutes and one bf16x2 multiply per code
// pair; a decode through e2m1_to_float's table put the table in local memory and took the
// quantizer from 4.5 to 6.8 us at 16 x 6144, notes_decode.md v9).
template <Fp4Format F>
__device__ __forceinline__ void lane_block_values(unsigned long long packed, std::uint8_t scale, uint4& low,
                                                  uint4& high) {
  const std::uint32_t scale2 = mma::scale_to_bf16x2(F == Fp4Format::mxfp4, scale);
  std::uint32_t pairs[kElementsPerLane / 2];  // (element 2i, 2i + 1), the lower in the low half
#pragma unroll
  for (int i = 0; i < kElementsPerLane / 4; ++i)
    mma::e2m1x4_to_bf16(std::uint32_t(packed >> (16 * i)), scale2, pairs[2 * i], pairs[2 * i + 1]);
  low = make_uint4(pairs[0], pairs[1], pairs[2], pairs[3]);
  high = make_uint4(pairs[4], pairs[5], pairs[6], pairs[7]);
}

}  // namespace fp4gemm::cuda
