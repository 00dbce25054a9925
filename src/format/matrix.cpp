#include "fp4gemm/matrix.hpp"

#include "fp4gemm/codecs.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {

std::string_view to_string(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
  }
  return "?";
}

DType parse_dtype(std::string_view text, std::string_view argument) {
  if (text == "f32" || text == "fp32") return DType::f32;
  if (text == "bf16") return DType::bf16;
  if (text == "f16" || text == "fp16") return DType::f16;
  throw InvalidArgument(
      fmt::format("{} = '{}' is not a dtype: use f32, bf16 or f16", argument, text));
}

HostMatrix HostMatrix::from_f32(std::int64_t rows, std::int64_t cols, std::vector<float> values) {
  require(std::int64_t(values.size()) == rows * cols, "matrix of {} x {} given {} values", rows,
          cols, values.size());
  HostMatrix m;
  m.dtype = DType::f32;
  m.rows = rows;
  m.cols = cols;
  m.f32 = std::move(values);
  return m;
}

HostMatrix HostMatrix::from_half(DType dtype, std::int64_t rows, std::int64_t cols,
                                 std::vector<std::uint16_t> codes) {
  require(dtype != DType::f32, "from_half needs bf16 or f16");
  require(std::int64_t(codes.size()) == rows * cols, "matrix of {} x {} given {} values", rows,
          cols, codes.size());
  HostMatrix m;
  m.dtype = dtype;
  m.rows = rows;
  m.cols = cols;
  m.half = std::move(codes);
  return m;
}

float HostMatrix::at(std::int64_t r, std::int64_t c) const {
  const std::int64_t i = r * cols + c;
  switch (dtype) {
    case DType::f32: return f32[i];
    case DType::bf16: return bf16_to_float(half[i]);
    case DType::f16: return fp16_to_float(half[i]);
  }
  return 0.0f;
}

std::vector<float> HostMatrix::to_f32() const {
  if (dtype == DType::f32) return f32;
  std::vector<float> out(half.size());
  for (std::size_t i = 0; i < half.size(); ++i)
    out[i] = dtype == DType::bf16 ? bf16_to_float(half[i]) : fp16_to_float(half[i]);
  return out;
}

HostMatrix HostMatrix::converted(DType target) const {
  if (target == dtype) return *this;
  std::vector<float> values = to_f32();
  if (target == DType::f32) return from_f32(rows, cols, std::move(values));
  std::vector<std::uint16_t> codes(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    codes[i] = target == DType::bf16 ? bf16_from_float(values[i]) : fp16_from_float(values[i]);
  return from_half(target, rows, cols, std::move(codes));
}

}  // namespace fp4gemm
