#include "format/fp8_blocks.hpp"

#include <algorithm>
#include <cmath>

#include "cpu/parallel_for.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {

Fp8BlockTensor fp8_blocks_of(const Fp4Tensor& t, int block_rows) {
  t.validate();
  require(block_rows >= 1, "block_rows = {} must be at least 1", block_rows);
  Fp8BlockTensor out;
  out.rows = t.rows;
  out.cols = t.cols;
  out.padded_cols = fp8_padded_k(t.cols);
  out.block_rows = block_rows;
  out.k_blocks = out.padded_cols / kFp8Block;
  const std::int64_t row_blocks = (t.rows + block_rows - 1) / block_rows;
  out.codes.assign(std::size_t(t.rows * out.padded_cols), 0);
  out.scales.assign(std::size_t(row_blocks * out.k_blocks), 1.0f);
  // One task per block row: its blocks' amax, then their codes (each element decoded twice,
  // which is cheaper than holding the fp32 values of a whole weight matrix).
  cpu::parallel_for(row_blocks, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t rb = first; rb < last; ++rb) {
      const std::int64_t r0 = rb * block_rows, r1 = std::min(t.rows, r0 + block_rows);
      for (std::int64_t kb = 0; kb < out.k_blocks; ++kb) {
        const std::int64_t k0 = kb * kFp8Block, k1 = std::min(t.cols, k0 + kFp8Block);
        float amax = 0.0f;
        for (std::int64_t r = r0; r < r1; ++r)
          for (std::int64_t k = k0; k < k1; ++k) amax = std::fmax(amax, std::fabs(t.block_value(r, k)));
        const int e = fp8_scale_exponent(amax);
        const float inverse = fp8_power_of_two(-e);
        out.scales[std::size_t(rb * out.k_blocks + kb)] = fp8_power_of_two(e);
        for (std::int64_t r = r0; r < r1; ++r)
          for (std::int64_t k = k0; k < k1; ++k)
            out.codes[std::size_t(r * out.padded_cols + k)] = e4m3_from_float(t.block_value(r, k) * inverse);
      }
    }
  });
  return out;
}

}  // namespace fp4gemm
