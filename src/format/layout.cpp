// Scale layout conversion (layout.hpp): every scale byte of the rows x scale_cols grid is moved
// from its offset in the source layout to its offset in the target layout, over a zeroed array,
// so padding bytes (swizzled: rows up to a multiple of 128, scale columns up to 4) are zero.
#include "fp4gemm/layout.hpp"

namespace fp4gemm {

Fp4Tensor with_scale_layout(const Fp4Tensor& t, ScaleLayout layout) {
  t.validate();
  if (t.scale_layout == layout) return t;
  Fp4Tensor out;
  out.format = t.format;
  out.scale_layout = layout;
  out.rows = t.rows;
  out.cols = t.cols;
  out.data = t.data;
  out.scale_2 = t.scale_2;
  const std::int64_t scale_cols = t.scale_cols();
  out.scales.assign(std::size_t(scale_bytes(layout, t.rows, scale_cols)), 0);
  for (std::int64_t r = 0; r < t.rows; ++r)
    for (std::int64_t kb = 0; kb < scale_cols; ++kb)
      out.scales[std::size_t(scale_offset(layout, r, kb, scale_cols))] = t.scale_code(r, kb);
  return out;
}

}  // namespace fp4gemm
