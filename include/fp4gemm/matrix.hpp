#pragma once
// Dense host matrices of the element types fp4gemm reads and writes (row-major).
#include <cstdint>
#include <string_view>
#include <vector>

namespace fp4gemm {

enum class DType { f32, bf16, f16 };
std::string_view to_string(DType t);
DType parse_dtype(std::string_view text, std::string_view argument = "--out-dtype");
constexpr int dtype_bytes(DType t) { return t == DType::f32 ? 4 : 2; }

// A row-major rows x cols matrix; `bits` holds f32 bit patterns (as floats) or 16-bit codes.
struct HostMatrix {
  DType dtype = DType::f32;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<float> f32;           // dtype == f32
  std::vector<std::uint16_t> half;  // dtype == bf16 or f16 (the raw codes)

  static HostMatrix from_f32(std::int64_t rows, std::int64_t cols, std::vector<float> values);
  static HostMatrix from_half(DType dtype, std::int64_t rows, std::int64_t cols,
                              std::vector<std::uint16_t> codes);
  float at(std::int64_t r, std::int64_t c) const;  // decoded to fp32
  std::vector<float> to_f32() const;
  // The same values rounded (RNE) to `dtype`.
  HostMatrix converted(DType dtype) const;
};

}  // namespace fp4gemm
