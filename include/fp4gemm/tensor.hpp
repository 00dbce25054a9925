#pragma once
// Block-scaled FP4 tensors (NVFP4, MXFP4) and their scale layouts.
//
// A tensor of `rows` x `cols` elements (cols = K, the reduction dimension) is stored K-major:
//   data    rows x cols/2 bytes, element 2i of a row in the low nibble of byte i (E2M1 codes);
//   scales  one byte per block of block_size(format) consecutive elements along K:
//           NVFP4: E4M3fn per 16 elements, MXFP4: UE8M0 per 32 elements;
//           stored in `scale_layout` (linear: rows x cols/block row-major; swizzled: the
//           128x4 layout of cuBLASLt/CUTLASS/FlashInfer, see layout.hpp);
//   scale_2 the FP32 per-tensor scale (NVFP4; 1 for MXFP4), so that
//           x[r][k] ~= e2m1(q[r][k]) * scale(r, k/block) * scale_2.
#include <cstdint>
#include <string_view>
#include <vector>

namespace fp4gemm {

enum class Fp4Format { nvfp4, mxfp4 };
enum class ScaleLayout { linear, swizzled };

// Elements per scale block along K: 16 for NVFP4, 32 for MXFP4.
constexpr int block_size(Fp4Format f) { return f == Fp4Format::nvfp4 ? 16 : 32; }
std::string_view to_string(Fp4Format f);   // "nvfp4", "mxfp4" (as the CLI spells them)
std::string_view display_name(Fp4Format f);  // "NVFP4", "MXFP4" (in messages)
// The one K rule of the formats: InvalidArgument "K = 100 is not a multiple of 16 (the NVFP4
// block size)" unless k is a positive multiple of block_size(f).
void require_block_multiple(std::int64_t k, Fp4Format f);
std::string_view to_string(ScaleLayout l);
// Parse "nvfp4" / "mxfp4" and "linear" / "swizzled"; InvalidArgument names `argument`.
Fp4Format parse_fp4_format(std::string_view text, std::string_view argument = "--format");
ScaleLayout parse_scale_layout(std::string_view text, std::string_view argument = "--scale-layout");

// Decoded value of one scale byte (E4M3fn for NVFP4, UE8M0 for MXFP4).
float decode_scale(Fp4Format f, std::uint8_t code);

struct Fp4Tensor {
  Fp4Format format = Fp4Format::nvfp4;
  ScaleLayout scale_layout = ScaleLayout::linear;
  std::int64_t rows = 0;
  std::int64_t cols = 0;               // K; a multiple of block_size(format)
  std::vector<std::uint8_t> data;      // rows * cols / 2
  std::vector<std::uint8_t> scales;    // scale_bytes(format, layout, rows, cols)
  float scale_2 = 1.0f;                // per-tensor scale; 1 for MXFP4

  std::int64_t scale_cols() const { return cols / block_size(format); }
  // Code (0..15) of element (r, k) and the byte of its block scale, in any layout.
  std::uint8_t code(std::int64_t r, std::int64_t k) const;
  std::uint8_t scale_code(std::int64_t r, std::int64_t k_block) const;
  // q * scale without scale_2 (exact in fp32, and in bf16 for NVFP4), and with it.
  float block_value(std::int64_t r, std::int64_t k) const;
  // Throws InvalidArgument if sizes and fields disagree.
  void validate() const;
};

// Every element's block_value times `factor`, rows x cols row-major fp32 (with factor 1 exact;
// scale_2 left out unless it is the factor: dequantize).
std::vector<float> block_values(const Fp4Tensor& t, float factor = 1.0f);

}  // namespace fp4gemm
