// cpu-fast kernels for the baseline ISA: portable C++ over 8-float "vectors" (the compiler may
// use the baseline SIMD, e.g. SSE2, but nothing the CPU might lack). The fallback where neither
// AVX2 nor AVX-512 is present, and the plainest statement of what the vector paths compute.
//
// 1. decode: byte j of the chunk gives lane j of `even` (low nibble) and of `odd` (high nibble):
//    kE2m1Values[code] * scale (exact in fp32).
// 2. micro-tile 2 x 4, streaming 2 activation rows x 4 weight rows (fast_gemm_generic.hpp).
// 3. reduce4 sums lanes as a pairwise tree (3 levels), as the accuracy bound of fast_gemm.cpp
//    assumes.
#include <array>
#include <cstdint>
#include <utility>

#include "cpu/fast_gemm_generic.hpp"
#include "cpu/fast_gemm_kernels.hpp"

namespace fp4gemm::cpu {
namespace {

struct ScalarOps {
  static constexpr int kLanes = 8, kTileM = 2, kTileN = 4;
  static constexpr int kStreamRows = 2, kStreamCols = 4, kStreamMaxM = 2;
  struct Vec {
    float v[kLanes];
  };
  static Vec zero() { return Vec{}; }
  static Vec load(const float* p) {
    Vec r;
    for (int i = 0; i < kLanes; ++i) r.v[i] = p[i];
    return r;
  }
  static void store(float* p, const Vec& x) {
    for (int i = 0; i < kLanes; ++i) p[i] = x.v[i];
  }
  // a * b is exact (at most 8 x 6 significant bits), so a separate add rounds exactly once,
  // like a fused multiply-add.
  static Vec fma(const Vec& a, const Vec& b, const Vec& c) {
    Vec r;
    for (int i = 0; i < kLanes; ++i) r.v[i] = a.v[i] * b.v[i] + c.v[i];
    return r;
  }
  static void reduce4(const Vec (&v)[4], float* out) {
    for (int j = 0; j < 4; ++j) {
      const float* x = v[j].v;
      out[j] = ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]));
    }
  }
  template <int kBlock>
  static void decode(const std::uint8_t* codes, const std::uint8_t* scale_codes,
                     const float* scale_lut, Vec& even, Vec& odd) {
    static_assert(kBlock >= 2 * kLanes, "one scale per chunk");
    const float scale = scale_lut[scale_codes[0]];
    for (int j = 0; j < kLanes; ++j) {
      even.v[j] = kE2m1Values[codes[j] & 0xF] * scale;
      odd.v[j] = kE2m1Values[codes[j] >> 4] * scale;
    }
  }
};

}  // namespace

const KernelTable* scalar_kernels() {
  static constexpr KernelTable table = generic::make_table<ScalarOps>();
  return &table;
}

}  // namespace fp4gemm::cpu
