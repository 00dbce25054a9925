#pragma once
// One lane's part of GPU quantization to NVFP4 / MXFP4: E consecutive elements (16, or 4 where the
// quantizer spreads a block over more lanes) loaded and widened to fp32, their max |x|, the
// block's scale code, their E2M1 codes and their block values. Used by the quantization kernels
// (quantize_kernel.cuh: steps 2-6) and by cuda-decode's staging of w4a4 activations
// (decode_gemm.cuh step 1q), so both write the same bytes. Every rounding rule comes from
// format/quantize_rules.hpp and codecs.hpp, which the CPU quantizer calls too. Compile without
// --use_fast_math (IEEE division, no FTZ).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/mma_primitives.cuh"
#include "cuda/quantize_status.hpp"
#include "format/quantize_rules.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm::cuda {

inline constexpr int kElementsPerLane = 16;   // two 16-byte loads of bf16/f16, four of f32
inline constexpr int kSpreadElementsPerLane = 4;  // one 8-byte load of bf16/f16, one 16-byte of f32
inline constexpr std::uint32_t kInfBits = 0x7F800000u;  // |x| bits >= this: NaN or inf

template <DType D>
__device__ __forceinline__ float widen(std::uint32_t code) {
  return D == DType::bf16 ? bf16_to_float(std::uint16_t(code)) : fp16_to_float(std::uint16_t(code));
}

// The E elements of x from index `element` (a multiple of E: 2E- or 4E-byte aligned), as fp32,
// through 16-byte loads (E = 4 of bf16/f16: one 8-byte load).
template <DType D, int E>
__device__ __forceinline__ void load_lane(const void* __restrict__ x, std::int64_t element, float (&v)[E]) {
  static_assert(E == kElementsPerLane || E == kSpreadElementsPerLane, "16 or 4 elements per lane");
  if constexpr (D == DType::f32) {
    const float4* p = static_cast<const float4*>(x) + element / 4;
#pragma unroll
    for (int i = 0; i < E / 4; ++i) {
      const float4 q = p[i];
      v[4 * i] = q.x, v[4 * i + 1] = q.y, v[4 * i + 2] = q.z, v[4 * i + 3] = q.w;
    }
  } else {
    std::uint32_t words[E / 2];  // little-endian: element 2j in the low half of word j
    if constexpr (E == kSpreadElementsPerLane) {
      const uint2 q = *(static_cast<const uint2*>(x) + element / 4);
      words[0] = q.x, words[1] = q.y;
    } else {
#pragma unroll
      for (int i = 0; i < E / 8; ++i) {
        const uint4 q = *(static_cast<const uint4*>(x) + element / 8 + i);
        words[4 * i] = q.x, words[4 * i + 1] = q.y, words[4 * i + 2] = q.z, words[4 * i + 3] = q.w;
      }
    }
#pragma unroll
    for (int j = 0; j < E / 2; ++j) {
      v[2 * j] = widen<D>(words[j] & 0xFFFFu);
      v[2 * j + 1] = widen<D>(words[j] >> 16);
    }
  }
}

// max |v| as fp32 bits (NaN/inf give bits >= kInfBits).
template <int E>
__device__ __forceinline__ std::uint32_t max_abs_bits(const float (&v)[E]) {
  std::uint32_t m = 0;
#pragma unroll
  for (int i = 0; i < E; ++i) m = max(m, float_bits(v[i]) & 0x7FFFFFFFu);
  return m;
}

// Records the first NaN/inf of v, the elements (row, column0 + i). Rare: called only when
// max_abs_bits(v) >= kInfBits.
template <int E>
__device__ __forceinline__ void record_non_finite(const float (&v)[E], std::int64_t row, std::int64_t column0,
                                                  QuantizeStatusWords* status) {
  for (int i = 0; i < E; ++i) {
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

// The lane's E E2M1 codes under the block's scale code, packed little-endian (element i in
// nibble i).
template <Fp4Format F, int E>
__device__ __forceinline__ unsigned long long lane_codes(const float (&v)[E], std::uint8_t scale, float scale_2) {
  const float divisor = block_divisor(F, scale, scale_2);
  unsigned long long packed = 0;
#pragma unroll
  for (int i = 0; i < E; ++i)
    packed |= static_cast<unsigned long long>(fp4_code(v[i], divisor)) << (4 * i);
  return packed;
}

// The lane's E block values, e2m1(code) x block scale (no scale_2; exact in bf16: 2 x 4
// significant bits), as bf16 pairs in element order: pairs[i] = (element 2i, 2i + 1), the lower
// in the low half. By the kernels' own FP4 decode (mma::e2m1x4_to_bf16: byte permutes and one
// bf16x2 multiply per code pair; a decode through e2m1_to_float's table put the table in local
// memory and took the quantizer from 4.5 to 6.8 us at 16 x 6144, notes_decode.md v9).
template <Fp4Format F, int E>
__device__ __forceinline__ void lane_block_values(unsigned long long packed, std::uint8_t scale,
                                                  std::uint32_t (&pairs)[E / 2]) {
  const std::uint32_t scale2 = mma::scale_to_bf16x2(F == Fp4Format::mxfp4, scale);
#pragma unroll
  for (int i = 0; i < E / 4; ++i)
    mma::e2m1x4_to_bf16(std::uint32_t(packed >> (16 * i)), scale2, pairs[2 * i], pairs[2 * i + 1]);
}

}  // namespace fp4gemm::cuda
