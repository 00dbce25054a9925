#pragma once
// Test helpers: Fp4Tensors written code by code (exact, hand-chosen operands), their codes read
// back, and quantizer options.
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "fp4gemm/layout.hpp"
#include "fp4gemm/quantize.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm::test {

// rows x cols tensor from E2M1 codes (row-major, one per element) and scale codes (row-major,
// rows x cols/block), stored with linear scales.
inline Fp4Tensor make_fp4_tensor(Fp4Format format, std::int64_t rows, std::int64_t cols,
                                 const std::vector<std::uint8_t>& codes,
                                 const std::vector<std::uint8_t>& scale_codes, float scale_2) {
  if (std::int64_t(codes.size()) != rows * cols)
    throw std::logic_error("make_fp4_tensor: one code per element needed");
  Fp4Tensor t;
  t.format = format;
  t.rows = rows;
  t.cols = cols;
  t.scale_2 = scale_2;
  t.data.assign(std::size_t(rows * cols / 2), 0);
  for (std::size_t i = 0; i < codes.size(); ++i)
    t.data[i / 2] |= std::uint8_t((codes[i] & 0xF) << (i % 2 ? 4 : 0));
  t.scales = scale_codes;
  t.validate();
  return t;
}

// Options of a quantizer call with the tensor scale measured (no scale_2 / global_sf).
inline QuantizeOptions measured_scale(Fp4Format format, ScaleLayout layout = ScaleLayout::linear) {
  QuantizeOptions o;
  o.format = format;
  o.scale_layout = layout;
  return o;
}

// Every element's code, row-major.
inline std::vector<std::uint8_t> codes_of(const Fp4Tensor& t) {
  std::vector<std::uint8_t> codes;
  for (std::int64_t r = 0; r < t.rows; ++r)
    for (std::int64_t k = 0; k < t.cols; ++k) codes.push_back(t.code(r, k));
  return codes;
}

}  // namespace fp4gemm::test
