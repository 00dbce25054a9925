#pragma once
// FP8 E4M3 with one power-of-two fp32 scale per block: the lossy re-expression of FP4 weights
// and of activations that cuda-fp8-lossy feeds to Hopper's FP8 tensor cores.
//
// A block of values x (128 x 128 of the weights, 1 x 128 of a token's activations) gets the
// scale s = 2^e, e the smallest exponent with amax(|x|) / s <= 448 (E4M3's largest finite value;
// s = 1 for an all-zero block; e clamped to -126..126 so that s and 1/s are fp32 normals), and
// codes q = e4m3_rne(x / s). Dividing by a power of two is exact, so E4M3's round-to-nearest is
// the only error:
//   |q s - x| <= 2^-4 |x|        where |x| / s >= 2^-6 (E4M3 normals: 3 mantissa bits),
//   |q s - x| <= 2^-10 s         below (subnormal step 2^-9), i.e. at most amax * 2^-17.8,
// and the product of two scales (the GEMM's per-block promotion) is exact as well. Since
// amax / s > 224 (e is the smallest, unless clamped), the block's largest value uses E4M3's top binade.
// K is padded with zero codes to a multiple of 128 (kFp8Block), so every block is whole.
#include <cstdint>
#include <vector>

#include "fp4gemm/codecs.hpp"
#include "fp4gemm/host_device.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm {

inline constexpr int kFp8Block = 128;  // K elements per scale; also the weights' rows per scale

// The exponent e of the block scale 2^e of a block whose largest magnitude is `amax` (see above).
FP4GEMM_HD int fp8_scale_exponent(float amax) {
  const std::uint32_t bits = float_bits(amax) & 0x7FFFFFFFu;
  if (bits == 0) return 0;
  const int field = int(bits >> 23);
  if (field == 0) return -126;  // an fp32 subnormal amax: the smallest normal scale
  // amax = m 2^E, m in [1, 2): amax / 2^(E-8) = m 2^8 <= 448 iff m <= 1.75 (mantissa 0x600000).
  const int e = field - 127 - 8 + ((bits & 0x7FFFFFu) > 0x600000u ? 1 : 0);
  return e < -126 ? -126 : (e > 126 ? 126 : e);
}
// 2^e for e in -126..126, exactly.
FP4GEMM_HD float fp8_power_of_two(int e) { return float_from_bits(std::uint32_t(e + 127) << 23); }

inline std::int64_t fp8_padded_k(std::int64_t k) { return (k + kFp8Block - 1) / kFp8Block * kFp8Block; }

// rows x padded_cols E4M3 codes (row-major, zero codes past `cols`) and one scale per block of
// block_rows x 128: scales[(r / block_rows) * k_blocks + k / 128].
struct Fp8BlockTensor {
  std::int64_t rows = 0, cols = 0, padded_cols = 0;
  int block_rows = kFp8Block;
  std::int64_t k_blocks = 0;        // padded_cols / 128
  std::vector<std::uint8_t> codes;  // rows x padded_cols
  std::vector<float> scales;        // ceil(rows / block_rows) x k_blocks, powers of two

  float scale(std::int64_t r, std::int64_t k) const {
    return scales[std::size_t((r / block_rows) * k_blocks + k / kFp8Block)];
  }
  // The value q * s that stands for element (r, k).
  float value(std::int64_t r, std::int64_t k) const {
    return e4m3_to_float(codes[std::size_t(r * padded_cols + k)]) * scale(r, k);
  }
};

// The block values of `t` (E2M1 x block scale; the tensor scale scale_2 left out as everywhere)
// in FP8 blocks of block_rows x 128 (block_rows >= 1). Throws InvalidArgument naming the rule
// if `t` is invalid or block_rows < 1. Runs on the host's threads.
Fp8BlockTensor fp8_blocks_of(const Fp4Tensor& t, int block_rows = kFp8Block);

}  // namespace fp4gemm
