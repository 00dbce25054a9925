#pragma once
// Scale layouts.
//
// linear:   offset(r, kb) = r * scale_cols + kb                       (rows x scale_cols bytes)
// swizzled: the "128x4" layout of cuBLASLt, CUTLASS (Sm1xxBlkScaledConfig) and FlashInfer
//           (layout_128x4). Rows are padded to 128 and scale columns to 4; with
//           num_k_tiles = ceil(scale_cols / 4):
//           offset(r, kb) = (r/128)*num_k_tiles*512 + (kb/4)*512 + (r%32)*16 + ((r%128)/32)*4 + kb%4
//           Padding bytes are zero.
#include <cstdint>

#include "fp4gemm/tensor.hpp"

namespace fp4gemm {

constexpr std::int64_t round_up(std::int64_t x, std::int64_t m) { return (x + m - 1) / m * m; }

constexpr std::int64_t swizzled_offset(std::int64_t r, std::int64_t kb, std::int64_t scale_cols) {
  const std::int64_t num_k_tiles = (scale_cols + 3) / 4;
  return (r / 128) * num_k_tiles * 512 + (kb / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 +
         kb % 4;
}

constexpr std::int64_t scale_offset(ScaleLayout layout, std::int64_t r, std::int64_t kb,
                                    std::int64_t scale_cols) {
  return layout == ScaleLayout::linear ? r * scale_cols + kb : swizzled_offset(r, kb, scale_cols);
}

// Bytes of the scale array of a rows x scale_cols grid in `layout` (padding included).
constexpr std::int64_t scale_bytes(ScaleLayout layout, std::int64_t rows, std::int64_t scale_cols) {
  return layout == ScaleLayout::linear ? rows * scale_cols
                                       : round_up(rows, 128) * round_up(scale_cols, 4);
}

// The same tensor with its scales rewritten in `layout` (a copy if already there).
Fp4Tensor with_scale_layout(const Fp4Tensor& t, ScaleLayout layout);

}  // namespace fp4gemm
