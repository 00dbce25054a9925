// cpu-fast kernels for AVX-512F: 16 fp32 lanes, 32 zmm registers. Compiled for that ISA by a
// `#pragma GCC target` region (not per-file flags, so that inline library code shared with other
// files stays baseline) and called only when cpuid says the CPU and OS support it.
//
// 1. decode (one chunk = 32 elements = 16 code bytes: two NVFP4 blocks or one MXFP4 block):
//    a. vpmovzxbd widens byte j into lane j;
//    b. the 16 signed E2M1 values times a block scale form a 16-entry table (one vmulps);
//    c. MXFP4 (one scale): vpermps looks the table up with each lane's low 4 bits (even: the
//       low nibble, sign included) and, after a shift by 4, the high nibble (odd);
//       NVFP4 (two scales): two tables, one per block; vpermt2ps takes index bit 4 as the table
//       select, so lanes 8..15 (bytes of the second block) get bit 4 set; the low nibble is
//       masked to 4 bits first, the high nibble needs only the shift.
// 2. micro-tile 6 x 4: 24 accumulators + 4 weight vectors + 1 activation vector = 29 registers.
// 3. stream: up to 4 activation rows x 4 weight rows: 16 accumulators.
// Nothing beyond AVX-512F is used (no BW/DQ/VL instructions), so isa_support asks for F alone.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
// GCC 12's avx512fintrin.h builds "undefined" vectors by self-initialization, which its own
// -Wuninitialized then reports wherever an intrinsic is inlined (GCC bug 105593, fixed in 13).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <array>
#include <cstdint>
#include <utility>

#include "cpu/fast_gemm_kernels.hpp"

#if defined(__x86_64__)
#pragma GCC push_options
#pragma GCC target("avx512f")
#include "cpu/fast_gemm_generic.hpp"

namespace fp4gemm::cpu {
namespace {

struct Avx512Ops {
  static constexpr int kLanes = 16, kTileM = 6, kTileN = 4;
  // Streaming (passes of 4 rows) beat decoding panels up to M = 16 on a Xeon with AVX-512
  // (bench/results/cpu_fast_notes.md).
  static constexpr int kStreamRows = 4, kStreamCols = 4, kStreamMaxM = 16;
  using Vec = __m512;
  static Vec zero() { return _mm512_setzero_ps(); }
  static Vec load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, Vec v) { _mm512_storeu_ps(p, v); }
  static Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
  // out[j] = the lanes of v[j] summed as a tree of 4 levels: the two 8-lane halves first, then
  // the AVX2 scheme (three horizontal adds, one add of 128-bit halves).
  static void reduce4(const Vec (&v)[4], float* out) {
    __m256 half[4];
    for (int j = 0; j < 4; ++j)
      half[j] = _mm256_add_ps(_mm512_castps512_ps256(v[j]),
                              _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v[j]), 1)));
    const __m256 h =
        _mm256_hadd_ps(_mm256_hadd_ps(half[0], half[1]), _mm256_hadd_ps(half[2], half[3]));
    _mm_storeu_ps(out, _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)));
  }
  template <int kBlock>
  static void decode(const std::uint8_t* codes, const std::uint8_t* scale_codes,
                     const float* scale_lut, Vec& even, Vec& odd) {
    static_assert(kBlock == 16 || kBlock == 32, "NVFP4 or MXFP4 blocks");
    const __m512i bytes =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(codes)));
    const __m512i high = _mm512_srli_epi32(bytes, 4);
    const __m512 values = _mm512_loadu_ps(kE2m1Values);
    const __m512 first = _mm512_mul_ps(values, _mm512_set1_ps(scale_lut[scale_codes[0]]));
    if constexpr (kBlock == 32) {
      even = _mm512_permutexvar_ps(bytes, first);
      odd = _mm512_permutexvar_ps(high, first);
    } else {
      const __m512 second = _mm512_mul_ps(values, _mm512_set1_ps(scale_lut[scale_codes[1]]));
      const __m512i block_bit = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0,  //
                                                  16, 16, 16, 16, 16, 16, 16, 16);
      const __m512i low = _mm512_and_si512(bytes, _mm512_set1_epi32(0xF));
      even = _mm512_permutex2var_ps(first, _mm512_or_si512(low, block_bit), second);
      odd = _mm512_permutex2var_ps(first, _mm512_or_si512(high, block_bit), second);
    }
  }
};

}  // namespace
}  // namespace fp4gemm::cpu
#pragma GCC pop_options

namespace fp4gemm::cpu {
const KernelTable* avx512_kernels() {
  static constexpr KernelTable table = generic::make_table<Avx512Ops>();
  return &table;
}
}  // namespace fp4gemm::cpu

#else  // not x86-64: no AVX-512 kernels in this build

namespace fp4gemm::cpu {
const KernelTable* avx512_kernels() { return nullptr; }
}  // namespace fp4gemm::cpu

#endif
