#pragma once
// Device primitives shared by the CUDA FP4 kernels (cuda-mma, cuda-decode, cuda-wgmma): PTX wrappers
// (cp.async, prmt, bf16x2 multiply, the bf16 m16n8k16 MMA) and the exact in-register
// dequantization of E2M1 codes and E4M3 / UE8M0 scales to bf16.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "fp4gemm/codecs.hpp"

namespace fp4gemm::cuda::mma {

// One FP4 operand as the kernel reads it (rows x k codes, scales in `layout`).
struct Fp4View {
  const std::uint8_t* data = nullptr;    // rows x k/2 bytes
  const std::uint8_t* scales = nullptr;  // scale_bytes(layout, rows, scale_cols)
  std::int64_t scale_bytes = 0;
};

// ------------------------------------------------------------------ PTX wrappers
__device__ __forceinline__ std::uint32_t smem_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}
// Asynchronous global -> shared copies of 16/8/4 bytes; bytes past `src_bytes` are zero-filled
// and nothing is read when src_bytes = 0.
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(dst)), "l"(src),
               "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_8(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_address(dst)), "l"(src),
               "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_4(void* dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_address(dst)), "l"(src),
               "r"(src_bytes)
               : "memory");
}
// The same copies with every byte read (no zero-fill operand: fewer instructions).
__device__ __forceinline__ void cp_async_16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_address(dst)), "l"(src)
               : "memory");
}
__device__ __forceinline__ void cp_async_4(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_address(dst)), "l"(src)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// The aligned 4-byte word of `src`'s scale array that holds byte `offset`, copied to `dst` by
// cp.async. The last word of an array whose size is not a multiple of 4 (linear layout) is read
// byte by byte instead: a 4-byte cp.async would read past the allocation (even with src-size < 4,
// compute-sanitizer counts all 4 bytes). That plain store is published by whatever publishes the
// asynchronous copies (a barrier after cp.async.wait, or an mbarrier arrive after __syncwarp).
__device__ __forceinline__ void copy_scale_word(std::uint32_t* dst, const Fp4View& src,
                                                std::int64_t offset) {
  const std::int64_t word = offset & ~std::int64_t(3);
  if (word + 4 <= src.scale_bytes) {
    cp_async_4(dst, src.scales + word, 4);
    return;
  }
  std::uint32_t w = 0;
  for (int i = 0; i < int(src.scale_bytes - word); ++i) w |= std::uint32_t(src.scales[word + i]) << (8 * i);
  *dst = w;
}

// prmt.b32 (default mode): byte i of the result is byte sel[4i+2:4i] of {b, a}; when sel bit
// 4i+3 is set it is that byte's sign bit replicated (0x00 or 0xFF).
__device__ __forceinline__ std::uint32_t prmt(std::uint32_t a, std::uint32_t b, std::uint32_t sel) {
  std::uint32_t d;
  asm("prmt.b32 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
  return d;
}

// a * b per bf16 lane (fma with -0 keeps +0 products +0). Exact when the product is a bf16.
__device__ __forceinline__ std::uint32_t bf16x2_mul(std::uint32_t a, std::uint32_t b) {
  std::uint32_t d;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;\n" : "=r"(d) : "r"(a), "r"(b), "r"(0x80008000u));
  return d;
}

// acc += A (16x16, row) * B (16x8, col), bf16 inputs, fp32 accumulators.
__device__ __forceinline__ void mma_bf16_16816(float (&acc)[4], const std::uint32_t (&a)[4],
                                               const std::uint32_t (&b)[2]) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// ------------------------------------------------------------------ dequantization
// Four E2M1 codes (bits 4i..4i+3 of `codes`, i = 0..3; higher bits ignored) times the bf16x2
// scale -> bf16 pairs (c0, c1) and (c2, c3), the lower k in the low half.
// bf16 of the magnitudes {0, .5, 1, 1.5, 2, 3, 4, 6} is 0x0000 0x3F00 0x3F80 0x3FC0 0x4000 0x4040
// 0x4080 0x40C0: one prmt looks up the low bytes, one the high bytes, one makes the sign bytes.
__device__ __forceinline__ void e2m1x4_to_bf16(std::uint32_t codes, std::uint32_t scale2,
                                               std::uint32_t& pair01, std::uint32_t& pair23) {
  const std::uint32_t mag = codes & 0x7777u;
  const std::uint32_t lo = prmt(0xC0800000u, 0xC0804000u, mag);
  const std::uint32_t hi = prmt(0x3F3F3F00u, 0x40404040u, mag);
  // Sign of code i: bit 7 of byte 0/1 of (codes << 4) for i = 0/2, of codes for i = 1/3.
  const std::uint32_t sign = prmt(codes << 4, codes, 0xD9C8u);
  const std::uint32_t hi_signed = hi | (sign & 0x80808080u);
  pair01 = bf16x2_mul(prmt(lo, hi_signed, 0x5140u), scale2);
  pair23 = bf16x2_mul(prmt(lo, hi_signed, 0x7362u), scale2);
}

// A scale byte as bf16x2 (both lanes), branch-free (lanes of a warp hold different codes) and
// with no subnormal arithmetic:
//   UE8M0: 2^(code - 127) is the bf16 with exponent field `code` (code 0: the subnormal 2^-127,
//          0x0040; 0xFF: NaN).
//   E4M3:  normal codes keep exponent and mantissa bits, rebiased (7 -> 127: + 120 << 7);
//          subnormal codes m * 2^-9 are computed exactly in fp32 (a normal number); 0x7F: NaN.
// Matches ue8m0_to_float / e4m3_to_float on all 256 codes.
__device__ __forceinline__ std::uint32_t scale_to_bf16x2(bool mxfp4, std::uint32_t code) {
  std::uint32_t h;
  if (mxfp4) {
    h = code << 7;
    h = code == 0 ? 0x0040u : h;
    h = code == 0xFF ? 0x7FC0u : h;
  } else {
    const std::uint32_t mag = code & 0x7F;
    const std::uint32_t subnormal = float_bits(float(mag & 7) * 0x1p-9f) >> 16;
    h = (mag >> 3) == 0 ? subnormal : (mag << 4) + 0x3C00u;
    h = mag == 0x7F ? 0x7FC0u : h;
    h |= (code & 0x80) << 8;
  }
  return h | (h << 16);
}

// ------------------------------------------------------------------ bit-placement dequantization
// An E2M1 code s.e1e0.m placed in a bf16 as s << 15 | e1e0m << 6 is the bf16 of E2M1 x 2^-126,
// exactly, the +-0.5 codes included (they land on the bf16 subnormal 2^-127): a bf16 exponent
// field e1e0 with mantissa m is 2^(e - 127)(1 + m/2) = 2^-126 * 2^(e - 1)(1 + m/2), and e = 0
// gives m * 2^-127 = 2^-126 * m/2. No lookup; the 2^126 goes into the scale
// (nvfp4_scale_x2_to_bf16x2, e2m1_bits_to_bf16_times_2_126). The codes come re-packed by
// prepare() so that the placement is rotations and masks only, pairs in k order
// (format/placed_codes.hpp: placed_codes_to_bf16_bits, shared with the host tests).

// The NVFP4 scale factor of bit-placed codes: (E2M1 x 2^-126) x (scale x 2^(126 - kNvfp4Shift))
// = E2M1 x scale x 2^-kNvfp4Shift, exact in bf16 (at most 5 significant bits, 2^-18 .. 10.5);
// the kernel multiplies its fp32 result by 2^kNvfp4Shift. 2^118 keeps scale x 2^118 finite in
// bf16 for every E4M3 code (448 x 2^118 < 2^127).
inline constexpr int kNvfp4Shift = 8;

// Two E4M3 scale codes (bits 0..7 and 8..15 of `codes`) as floats, exactly: cvt.rn.f16x2.e4m3x2
// (sm_89+) decodes both (every E4M3 value is a normal f16; NaN stays NaN).
__device__ __forceinline__ float2 e4m3x2_to_float2(std::uint32_t codes) {
#if __CUDA_ARCH__ >= 890
  std::uint32_t h2;
  asm("{\n .reg .b16 c;\n cvt.u16.u32 c, %1;\n cvt.rn.f16x2.e4m3x2 %0, c;\n}\n"
      : "=r"(h2)
      : "r"(codes));
  return make_float2(__half2float(__ushort_as_half(std::uint16_t(h2 & 0xFFFF))),
                     __half2float(__ushort_as_half(std::uint16_t(h2 >> 16))));
#else  // sm_80: no FP8 conversion instruction; the bf16 decode of scale_to_bf16x2, widened
  return make_float2(__uint_as_float(scale_to_bf16x2(false, codes & 0xFF) << 16),
                     __uint_as_float(scale_to_bf16x2(false, (codes >> 8) & 0xFF) << 16));
#endif
}

// Two E4M3 scale codes (bits 0..7 and 8..15 of `codes`) -> {s0 x 2^118 in both halves,
// s1 x 2^118 in both halves}: fp32 arithmetic on exact values.
__device__ __forceinline__ void nvfp4_scale_x2_to_bf16x2(std::uint32_t codes, std::uint32_t& s0,
                                                        std::uint32_t& s1) {
  const float2 f = e4m3x2_to_float2(codes);
  s0 = prmt(__float_as_uint(f.x * 0x1p118f), 0, 0x3232u);
  s1 = prmt(__float_as_uint(f.y * 0x1p118f), 0, 0x3232u);
}

// A UE8M0 scale code as a float, 2^(code - 127) (code 0: the subnormal 2^-127; 0xFF: NaN).
__device__ __forceinline__ float ue8m0_scale_to_float(std::uint32_t code) {
  return __uint_as_float(scale_to_bf16x2(true, code) << 16);
}

// Bit-placed codes times 2^126: the bf16 of the E2M1 values themselves (exact; the MXFP4 path,
// whose UE8M0 scales span 2^-127 .. 2^127 and so cannot absorb the 2^126).
__device__ __forceinline__ std::uint32_t e2m1_bits_to_bf16_times_2_126(std::uint32_t bits) {
  return bf16x2_mul(bits, 0x7E807E80u);  // bf16 2^126 = exponent field 253
}

}  // namespace fp4gemm::cuda::mma
