// Round-trip error of quantize -> dequantize on random data, element by element, against a bound
// derived from the arithmetic.
//
// Let D = scale * scale_2 (real), d = fl(D) the divisor, y = fl(x / d), q = e2m1(y),
// dq = fl(q * scale * scale_2) (q * scale is exact). With u = 2^-24 and v = |x| / D:
//   |y - q| <= h(v), half the E2M1 step where v lies: 0.25 below 2, 0.5 below 4, 1 up to 6; or,
//   past 6 (clipping), v - 6 and a little;
//   x = y d / (1 + e2) and d = D (1 + e1), so |x - q D| <= D |y - q| + 2.0001 u |x|, and
//   |dq - q D| <= u |q D| <= 1.0001 u |dq|.
// Hence |x - dq| <= D * max(h(v), v - 6) + 3 u (|x| + |dq|).
// NVFP4 with a normal E4M3 block scale never clips by more than v - 6 <= 6/(1 - 2^-4) - 6 = 0.4
// (RNE to 3 mantissa bits is within 2^-4 relative), which is less than h = 1: the bound is half a
// step for every element. MXFP4's power-of-two scale leaves v in [4, 8): clipping costs up to 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "format/fp4_tensor_builder.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/quantize.hpp"

namespace fp4gemm {
namespace {

constexpr double kUnitRoundoff = 0x1p-24;

double half_step(double v) { return v < 2 ? 0.25 : v < 4 ? 0.5 : 1.0; }

// rows x cols normal values whose standard deviation varies by row over 2^-3 .. 2^3, with one
// element in 64 multiplied by 16 (outliers), so block scales differ widely within one tensor.
HostMatrix spread_matrix(std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(std::size_t(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      v[std::size_t(r * cols + c)] =
          std::ldexp(normal(gen), int(r % 7) - 3) * (gen() % 64 == 0 ? 16.0f : 1.0f);
  return HostMatrix::from_f32(rows, cols, std::move(v));
}

void expect_within_bound(const HostMatrix& x, const QuantizeOptions& options) {
  const Fp4Tensor t = quantize(x, options);
  const std::vector<float> dq = dequantize(t);
  const int block = block_size(t.format);
  for (std::int64_t r = 0; r < t.rows; ++r) {
    for (std::int64_t kb = 0; kb < t.scale_cols(); ++kb) {
      const std::uint8_t scale = t.scale_code(r, kb);
      if (t.format == Fp4Format::nvfp4) {  // the data is chosen so that this holds
        ASSERT_TRUE(scale >= 0x08 && scale <= 0x7E) << "block scale not a normal E4M3: " << r;
      }
      const double divisor = double(decode_scale(t.format, scale)) * t.scale_2;  // exact
      for (std::int64_t k = kb * block; k < (kb + 1) * block; ++k) {
        const double xv = x.f32[std::size_t(r * t.cols + k)], q = dq[std::size_t(r * t.cols + k)];
        const double v = std::fabs(xv) / divisor;
        if (t.format == Fp4Format::nvfp4) {  // clipping stays under half the top step
          ASSERT_LE(v, 6.4 * (1 + 4 * kUnitRoundoff)) << r << "," << k;
        }
        const double bound = divisor * std::max(half_step(v), v - 6) +
                             3 * kUnitRoundoff * (std::fabs(xv) + std::fabs(q));
        ASSERT_LE(std::fabs(xv - q), bound) << "row " << r << " column " << k << ": x = " << xv
                                            << ", dequantized " << q << ", divisor " << divisor;
      }
    }
  }
}

TEST(QuantizeErrorBound, Nvfp4MeasuredScale2) {
  for (const std::uint32_t seed : {1u, 2u, 3u})
    expect_within_bound(spread_matrix(61, 512, seed), {});
}

TEST(QuantizeErrorBound, Nvfp4GivenScale2) {
  const HostMatrix x = spread_matrix(33, 256, 4);
  QuantizeOptions options;
  options.scale_2 = resolve_scale_2(x, {}) * 1.75f;  // coarser than measured: scales stay normal
  expect_within_bound(x, options);
}

TEST(QuantizeErrorBound, Mxfp4) {
  for (const std::uint32_t seed : {5u, 6u})
    expect_within_bound(spread_matrix(61, 512, seed), test::measured_scale(Fp4Format::mxfp4));
}

}  // namespace
}  // namespace fp4gemm
