// cpu-fast kernels for AVX2 + FMA: 8 fp32 lanes, 16 ymm registers. Compiled for that ISA by a
// `#pragma GCC target` region (not per-file flags, so that inline library code shared with other
// files stays baseline) and called only when cpuid says the CPU and OS support it.
//
// 1. decode (one chunk = 16 elements = 8 code bytes, within one scale block):
//    a. vpmovzxbd widens byte j into lane j;
//    b. the 8 E2M1 magnitudes times the block scale (one vmulps per chunk) form a table;
//    c. vpermps looks it up with each lane's low 3 bits (even: the low nibble's magnitude) and,
//       after a shift by 4, the high nibble's magnitude (odd);
//    d. each nibble's sign bit (bit 3 or 7) is shifted to bit 31, masked, and xor-ed in.
//    About 12 instructions per 16 elements, no memory lookups but the scale.
// 2. micro-tile 3 x 4: 12 accumulators + 4 weight vectors live in registers (the compiler
//    keeps one operand of a few FMAs in memory); 12 FMAs per 7 vectors loaded.
// 3. stream: up to 2 activation rows x 4 weight rows: 8 accumulators, 2 decoded vectors.
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <utility>

#include "cpu/fast_gemm_kernels.hpp"

#if defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#include "cpu/fast_gemm_generic.hpp"

namespace fp4gemm::cpu {
namespace {

struct Avx2Ops {
  static constexpr int kLanes = 8, kTileM = 3, kTileN = 4;
  // Streaming up to M = 4 (two passes of 2 rows) beats decoding panels for the blocked kernel;
  // from M = 5 on, the blocked kernel wins (bench/results/cpu_fast_notes.md).
  static constexpr int kStreamRows = 2, kStreamCols = 4, kStreamMaxM = 4;
  using Vec = __m256;
  static Vec zero() { return _mm256_setzero_ps(); }
  static Vec load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, Vec v) { _mm256_storeu_ps(p, v); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
  // out[j] = ((v0 + v1) + (v2 + v3)) + ((v4 + v5) + (v6 + v7)) of v[j]: three horizontal adds
  // build the four 4-lane sums of both halves, one add joins the halves.
  static void reduce4(const Vec (&v)[4], float* out) {
    const __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3]));
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
  }
  template <int kBlock>
  static void decode(const std::uint8_t* codes, const std::uint8_t* scale_codes,
                     const float* scale_lut, Vec& even, Vec& odd) {
    static_assert(kBlock >= 2 * kLanes, "one scale per chunk");
    const __m256i bytes =
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes)));
    const __m256 scale = _mm256_broadcast_ss(scale_lut + scale_codes[0]);
    const __m256 table = _mm256_mul_ps(_mm256_loadu_ps(kE2m1Values), scale);
    const __m256i sign_bit = _mm256_set1_epi32(std::int32_t(0x80000000u));
    const __m256i even_sign = _mm256_and_si256(_mm256_slli_epi32(bytes, 28), sign_bit);
    const __m256i odd_sign = _mm256_and_si256(_mm256_slli_epi32(bytes, 24), sign_bit);
    even = _mm256_xor_ps(_mm256_permutevar8x32_ps(table, bytes), _mm256_castsi256_ps(even_sign));
    odd = _mm256_xor_ps(_mm256_permutevar8x32_ps(table, _mm256_srli_epi32(bytes, 4)),
                        _mm256_castsi256_ps(odd_sign));
  }
};

}  // namespace
}  // namespace fp4gemm::cpu
#pragma GCC pop_options

namespace fp4gemm::cpu {
const KernelTable* avx2_kernels() {
  static constexpr KernelTable table = generic::make_table<Avx2Ops>();
  return &table;
}
}  // namespace fp4gemm::cpu

#else  // not x86-64: no AVX2 kernels in this build

namespace fp4gemm::cpu {
const KernelTable* avx2_kernels() { return nullptr; }
}  // namespace fp4gemm::cpu

#endif
