#include "fp4gemm/tensor.hpp"

#include "cpu/parallel_for.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm {

std::string_view to_string(Fp4Format f) { return f == Fp4Format::nvfp4 ? "nvfp4" : "mxfp4"; }
std::string_view display_name(Fp4Format f) { return f == Fp4Format::nvfp4 ? "NVFP4" : "MXFP4"; }

void require_block_multiple(std::int64_t k, Fp4Format f) {
  require(k >= 1, "K = {} must be at least 1", k);
  require(k % block_size(f) == 0, "K = {} is not a multiple of {} (the {} block size)", k,
          block_size(f), display_name(f));
}
std::string_view to_string(ScaleLayout l) {
  return l == ScaleLayout::linear ? "linear" : "swizzled";
}

Fp4Format parse_fp4_format(std::string_view text, std::string_view argument) {
  if (text == "nvfp4") return Fp4Format::nvfp4;
  if (text == "mxfp4") return Fp4Format::mxfp4;
  throw InvalidArgument(fmt::format("{} = '{}': use nvfp4 or mxfp4", argument, text));
}

ScaleLayout parse_scale_layout(std::string_view text, std::string_view argument) {
  if (text == "linear") return ScaleLayout::linear;
  if (text == "swizzled") return ScaleLayout::swizzled;
  throw InvalidArgument(fmt::format("{} = '{}': use linear or swizzled", argument, text));
}

float decode_scale(Fp4Format f, std::uint8_t code) {
  return f == Fp4Format::nvfp4 ? e4m3_to_float(code) : ue8m0_to_float(code);
}

std::uint8_t Fp4Tensor::code(std::int64_t r, std::int64_t k) const {
  const std::uint8_t byte = data[std::size_t(r * (cols / 2) + k / 2)];
  return (k & 1) ? byte >> 4 : byte & 0xF;
}

std::uint8_t Fp4Tensor::scale_code(std::int64_t r, std::int64_t k_block) const {
  return scales[std::size_t(scale_offset(scale_layout, r, k_block, scale_cols()))];
}

float Fp4Tensor::block_value(std::int64_t r, std::int64_t k) const {
  return e2m1_to_float(code(r, k)) * decode_scale(format, scale_code(r, k / block_size(format)));
}

std::vector<float> block_values(const Fp4Tensor& t, float factor) {
  const int block = block_size(t.format);
  std::vector<float> v(std::size_t(t.rows * t.cols));
  // Rows on the hardware threads, a thread per 2^16 elements at least (a grouped bench's
  // baselines decode every expert in prepare(): 32 x 4096 x 6144 elements).
  cpu::parallel_for(
      t.rows,
      [&](std::int64_t row_begin, std::int64_t row_end) {
        for (std::int64_t r = row_begin; r < row_end; ++r)
          for (std::int64_t kb = 0; kb < t.scale_cols(); ++kb) {
            const float scale = decode_scale(t.format, t.scale_code(r, kb));
            for (std::int64_t k = kb * block; k < (kb + 1) * block; ++k)  // (q * scale) is exact
              v[std::size_t(r * t.cols + k)] = e2m1_to_float(t.code(r, k)) * scale * factor;
          }
      },
      cpu::threads_for(t.rows * t.cols, cpu::kElementwiseGrain));
  return v;
}

void Fp4Tensor::validate() const {
  require(rows >= 1, "tensor rows = {} must be at least 1", rows);
  require_block_multiple(cols, format);
  require(std::int64_t(data.size()) == rows * cols / 2,
          "tensor data has {} bytes; {} x {} FP4 elements need {}", data.size(), rows, cols,
          rows * cols / 2);
  const std::int64_t want = scale_bytes(scale_layout, rows, scale_cols());
  require(std::int64_t(scales.size()) == want,
          "tensor scales have {} bytes; {} layout of {} x {} needs {}", scales.size(),
          to_string(scale_layout), rows, scale_cols(), want);
  require(format == Fp4Format::nvfp4 || scale_2 == 1.0f,
          "an MXFP4 tensor has no tensor scale (scale_2 = {})", scale_2);
}

}  // namespace fp4gemm
