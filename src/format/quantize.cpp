// CPU quantizer and dequantizer (quantize.hpp) on top of the shared rules of quantize_rules.hpp.
//
// quantize(x), x rows x cols (K = cols, a multiple of the block size):
//   1. validate shape and options;
//   2. pass 1 over x: amax(|x|) and the first non-finite element (rejected with its position);
//   3. scale_2: given (scale_2, or 1 / global_sf) or nvfp4_scale_2_from_amax(amax); 1 for MXFP4;
//   4. pass 2, per row and block: block amax -> scale code -> divisor -> one E2M1 code per element,
//      two per byte (element 2i in the low nibble); scale bytes written in the requested layout
//      over a zeroed array, so padding bytes are zero.
// Rows are split across threads in both passes; max is order-independent and each row's codes
// depend on that row only, so the result does not depend on the thread count.
#include "fp4gemm/quantize.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include "cpu/parallel_for.hpp"
#include "format/quantize_rules.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm {
namespace {

// Rows of a HostMatrix as fp32: f32 rows in place, bf16/f16 rows widened (exactly) into a
// caller-owned buffer of `cols` floats.
class RowReader {
 public:
  explicit RowReader(const HostMatrix& x) : x_(x), buffer_(x.dtype == DType::f32 ? 0 : x.cols) {}

  const float* row(std::int64_t r) {
    const std::size_t begin = std::size_t(r * x_.cols);
    if (x_.dtype == DType::f32) return x_.f32.data() + begin;
    const std::uint16_t* codes = x_.half.data() + begin;
    for (std::size_t c = 0; c < buffer_.size(); ++c)
      buffer_[c] = x_.dtype == DType::bf16 ? bf16_to_float(codes[c]) : fp16_to_float(codes[c]);
    return buffer_.data();
  }

 private:
  const HostMatrix& x_;
  std::vector<float> buffer_;
};

void validate_input(const HostMatrix& x, Fp4Format format) {
  require(x.rows >= 1, "rows = {} must be at least 1", x.rows);
  require_block_multiple(x.cols, format);
  const std::size_t stored = x.dtype == DType::f32 ? x.f32.size() : x.half.size();
  require(std::int64_t(stored) == x.rows * x.cols, "input holds {} {} values; {} x {} needs {}",
          stored, to_string(x.dtype), x.rows, x.cols, x.rows * x.cols);
}

// The tensor scale fixed by `options` (given, or 1 for MXFP4), validated; nullopt when it is to be
// measured from the data.
std::optional<float> given_scale_2(const QuantizeOptions& options) {
  if (options.format == Fp4Format::mxfp4) {
    require(!options.scale_2 && !options.global_sf,
            "scale_2 / global_sf are NVFP4 options: MXFP4 has no tensor scale");
    return 1.0f;
  }
  require(!(options.scale_2 && options.global_sf),
          "give scale_2 or global_sf (= 1 / scale_2), not both");
  if (options.scale_2) {
    const float s = *options.scale_2;
    require(std::isfinite(s) && s > 0.0f, "scale_2 = {} must be positive and finite", s);
    return s;
  }
  if (options.global_sf) {
    const float g = *options.global_sf;
    require(std::isfinite(g) && g > 0.0f, "global_sf = {} must be positive and finite", g);
    const float s = 1.0f / g;
    require(std::isfinite(s), "global_sf = {} is too small: scale_2 = 1 / global_sf overflows fp32",
            g);
    return s;
  }
  return std::nullopt;
}

// Pass 1: amax(|x|) and the row-major index of the first NaN/inf (-1 if none).
struct InputScan {
  float amax = 0.0f;
  std::int64_t first_non_finite = -1;
};

InputScan scan_input(const HostMatrix& x) {
  // |x| compared as bit patterns: for non-negative floats the integer order is the float order,
  // and every NaN/inf pattern is >= 0x7F800000, above every finite one.
  constexpr std::uint32_t kNonFinite = 0x7F800000u;
  std::atomic<std::uint32_t> amax_bits{0};
  std::atomic<std::int64_t> first_bad{std::numeric_limits<std::int64_t>::max()};
  cpu::parallel_for(x.rows, [&](std::int64_t row_begin, std::int64_t row_end) {
    RowReader reader(x);
    std::uint32_t local_max = 0;
    for (std::int64_t r = row_begin; r < row_end; ++r) {
      const float* v = reader.row(r);
      std::uint32_t row_max = 0;
      for (std::int64_t c = 0; c < x.cols; ++c)
        row_max = std::max(row_max, float_bits(v[c]) & 0x7FFFFFFFu);
      if (row_max >= kNonFinite) {  // rare: find the first bad element of this row and stop
        std::int64_t c = 0;
        while (std::isfinite(v[c])) ++c;
        std::int64_t seen = first_bad.load();
        const std::int64_t here = r * x.cols + c;
        while (here < seen && !first_bad.compare_exchange_weak(seen, here)) {
        }
        return;
      }
      local_max = std::max(local_max, row_max);
    }
    std::uint32_t seen = amax_bits.load();
    while (local_max > seen && !amax_bits.compare_exchange_weak(seen, local_max)) {
    }
  });
  InputScan scan;
  scan.amax = float_from_bits(amax_bits.load());
  if (first_bad.load() != std::numeric_limits<std::int64_t>::max())
    scan.first_non_finite = first_bad.load();
  return scan;
}

void require_finite(const InputScan& scan, const HostMatrix& x) {
  if (scan.first_non_finite < 0) return;
  const std::int64_t r = scan.first_non_finite / x.cols, c = scan.first_non_finite % x.cols;
  const float v = x.at(r, c);
  throw_non_finite_input(std::isnan(v) ? "NaN" : (v > 0 ? "inf" : "-inf"), r, c);
}

// Pass 2: codes and scales of rows [row_begin, row_end) into `t` (sized, scales zeroed).
void quantize_rows(const HostMatrix& x, Fp4Tensor& t, std::int64_t row_begin,
                   std::int64_t row_end) {
  const int block = block_size(t.format);
  const std::int64_t scale_cols = t.scale_cols();
  RowReader reader(x);
  for (std::int64_t r = row_begin; r < row_end; ++r) {
    const float* v = reader.row(r);
    std::uint8_t* bytes = t.data.data() + r * (t.cols / 2);
    for (std::int64_t kb = 0; kb < scale_cols; ++kb) {
      const float* xb = v + kb * block;
      float block_amax = 0.0f;
      for (int i = 0; i < block; ++i) block_amax = std::max(block_amax, std::fabs(xb[i]));
      const std::uint8_t scale = t.format == Fp4Format::nvfp4
                                     ? nvfp4_block_scale_code(block_amax, t.scale_2)
                                     : mxfp4_block_scale_code(block_amax);
      t.scales[std::size_t(scale_offset(t.scale_layout, r, kb, scale_cols))] = scale;
      const float divisor = block_divisor(t.format, scale, t.scale_2);
      std::uint8_t* out = bytes + kb * block / 2;
      for (int i = 0; i < block; i += 2)
        out[i / 2] = std::uint8_t(fp4_code(xb[i], divisor) | (fp4_code(xb[i + 1], divisor) << 4));
    }
  }
}

}  // namespace

float resolve_scale_2(const HostMatrix& x, const QuantizeOptions& options) {
  validate_input(x, options.format);
  if (const std::optional<float> given = given_scale_2(options)) return *given;
  const InputScan scan = scan_input(x);
  require_finite(scan, x);
  return nvfp4_scale_2_from_amax(scan.amax);
}

void throw_non_finite_input(std::string_view kind, std::int64_t row, std::int64_t column) {
  throw InvalidArgument(fmt::format("input has {} at row {}, column {}", kind, row, column));
}

Fp4Tensor quantize(const HostMatrix& x, const QuantizeOptions& options) {
  validate_input(x, options.format);
  const std::optional<float> given = given_scale_2(options);  // option errors before reading x
  const InputScan scan = scan_input(x);
  require_finite(scan, x);

  Fp4Tensor t;
  t.format = options.format;
  t.scale_layout = options.scale_layout;
  t.rows = x.rows;
  t.cols = x.cols;
  t.scale_2 = given ? *given : nvfp4_scale_2_from_amax(scan.amax);
  t.data.resize(std::size_t(x.rows * x.cols / 2));
  t.scales.assign(std::size_t(scale_bytes(t.scale_layout, t.rows, t.scale_cols())), 0);
  cpu::parallel_for(x.rows, [&](std::int64_t row_begin, std::int64_t row_end) {
    quantize_rows(x, t, row_begin, row_end);
  });
  return t;
}

std::vector<float> dequantize(const Fp4Tensor& t) {
  t.validate();
  return block_values(t, t.scale_2);
}

}  // namespace fp4gemm
