// Operand packing of cpu-fast (fast_gemm_pack.hpp).
#include "cpu/fast_gemm_pack.hpp"

#include <algorithm>
#include <array>

#include "cpu/parallel_for.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::cpu {
namespace {

std::array<float, 256> make_scale_lut(Fp4Format format) {
  std::array<float, 256> lut{};
  for (int code = 0; code < 256; ++code)
    lut[std::size_t(code)] = decode_scale(format, std::uint8_t(code));
  return lut;
}

// Position of element k within its row in chunk order: chunk c = k / (2 lanes) holds its even
// elements first, then its odd ones.
std::int64_t chunk_position(std::int64_t k, int lanes) {
  const std::int64_t chunk = 2 * lanes, e = k % chunk;
  return k - e + (e % 2) * lanes + e / 2;
}

// Elements packed per thread: below this a thread costs more to start than it saves.
constexpr std::int64_t kPackElementsPerThread = std::int64_t{1} << 18;

}  // namespace

WeightView PreparedWeights::view() const {
  WeightView w;
  w.codes = codes.data();
  w.scales = scales.data();
  w.scale_lut = scale_lut(format);
  w.rows = rows;
  w.k_padded = k_padded;
  w.block = block_size(format);
  return w;
}

const float* scale_lut(Fp4Format format) {
  static const std::array<float, 256> nvfp4 = make_scale_lut(Fp4Format::nvfp4);
  static const std::array<float, 256> mxfp4 = make_scale_lut(Fp4Format::mxfp4);
  return format == Fp4Format::nvfp4 ? nvfp4.data() : mxfp4.data();
}

PreparedWeights prepare_weights(const Fp4Tensor& b) {
  b.validate();
  PreparedWeights p;
  p.format = b.format;
  p.rows = round_up(b.rows, kRowPad);
  p.k_padded = round_up(b.cols, kKPad);
  const std::int64_t block = block_size(b.format);
  const std::int64_t row_bytes = b.cols / 2, padded_row_bytes = p.k_padded / 2;
  const std::int64_t scale_cols = b.scale_cols(), padded_scale_cols = p.k_padded / block;
  p.codes.assign(std::size_t(p.rows * padded_row_bytes), 0);
  p.scales.assign(std::size_t(p.rows * padded_scale_cols), 0);
  for (std::int64_t r = 0; r < b.rows; ++r) {
    std::copy_n(b.data.begin() + r * row_bytes, row_bytes, p.codes.begin() + r * padded_row_bytes);
    for (std::int64_t kb = 0; kb < scale_cols; ++kb)
      p.scales[std::size_t(r * padded_scale_cols + kb)] = b.scale_code(r, kb);
  }
  return p;
}

void pack_activations(const GemmOperands& ops, int lanes, std::int64_t rows,
                      std::int64_t k_padded, std::vector<float>& out) {
  const GemmShape& s = ops.problem.shape;
  out.assign(std::size_t(rows * k_padded), 0.0f);
  const bool fp4 = ops.problem.mode == Mode::w4a4;
  const std::int64_t block = block_size(ops.problem.format);
  const float* lut = scale_lut(ops.problem.format);
  const unsigned threads = threads_for(s.m * s.k, kPackElementsPerThread);
  parallel_for(
      s.m,
      [&](std::int64_t m_begin, std::int64_t m_end) {
        for (std::int64_t m = m_begin; m < m_end; ++m) {
          float* row = out.data() + m * k_padded;
          if (fp4) {
            const Fp4Tensor& a = ops.a_fp4;
            for (std::int64_t kb = 0; kb < s.k / block; ++kb) {
              const float scale = lut[a.scale_code(m, kb)];
              for (std::int64_t k = kb * block; k < (kb + 1) * block; ++k)
                row[chunk_position(k, lanes)] = e2m1_to_float(a.code(m, k)) * scale;
            }
          } else {
            const std::uint16_t* a = ops.a_bf16.half.data() + m * s.k;
            for (std::int64_t k = 0; k < s.k; ++k)
              row[chunk_position(k, lanes)] = bf16_to_float(a[k]);
          }
        }
      },
      threads);
}

}  // namespace fp4gemm::cpu
