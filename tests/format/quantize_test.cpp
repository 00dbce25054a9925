// The CPU quantizer: hand-computed NVFP4 and MXFP4 tensors (codes, nibble order, scales,
// scale_2, dequantized values), zero and constant blocks, the tensor-scale options and their
// errors, 16-bit inputs, and rejection of bad shapes and non-finite values.
#include "expect_error.hpp"
#include "fp4gemm/quantize.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "format/fp4_tensor_builder.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

using test::expect_error;

using test::codes_of;
using test::measured_scale;

std::vector<float> padded(std::vector<float> values, std::size_t size) {
  values.resize(size, 0.0f);
  return values;
}

void expect_same_bits(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(float_bits(got[i]), float_bits(want[i]))
        << "element " << i << ": " << got[i] << " vs " << want[i];
}

// NVFP4, 1 x 64, scale_2 measured: amax 10.5 gives scale_2 = 10.5 / 2688 = 2^-8.
//   block 0: amax 10.5 -> s = e4m3(448) = 0x7E, divisor 448 * 2^-8 = 1.75; x = 1.75 * (every
//            E2M1 value, negatives, and the ties 0.25, 0.75, 3.5, 5, 1.25 -> 0, 1, 4, 4, 1)
//   block 1: amax 1 -> 1 / (6/256) = 42.67 -> s = 44 (0x63), divisor 0.171875
//   block 2: amax 2^-20 -> 2^-12 / 6 rounds to E4M3 zero -> s = 1 (0x38), divisor 2^-8
//   block 3: all zero -> s = 1 (0x38)
TEST(Quantize, Nvfp4HandComputedTensor) {
  const std::vector<float> block0 = {0,      0.875f, 1.75f,   2.625f, 3.5f,    5.25f,
                                     7,      10.5f,  -0.875f, -10.5f, 0.4375f, 1.3125f,
                                     6.125f, -8.75f, -0.0f,   2.1875f};
  const std::vector<float> block1 =
      padded({1.0f, 0.5f, -0.25f, 0.0625f, 0.04296875f, 0.12890625f}, 16);
  const std::vector<float> block2 = padded({0x1p-20f, -0x1p-20f}, 16);
  std::vector<float> x = block0;
  x.insert(x.end(), block1.begin(), block1.end());
  x.insert(x.end(), block2.begin(), block2.end());
  x.resize(64, 0.0f);
  const Fp4Tensor t = quantize(HostMatrix::from_f32(1, 64, x));

  EXPECT_EQ(t.scale_2, 0x1p-8f);
  EXPECT_EQ(t.scales, (std::vector<std::uint8_t>{0x7E, 0x63, 0x38, 0x38}));
  std::vector<std::uint8_t> codes = {0, 1, 2, 3, 4, 5, 6, 7, 9, 15, 0, 2, 6, 14, 8, 2};
  const std::vector<std::uint8_t> codes1 = {7, 5, 11, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const std::vector<std::uint8_t> codes2 = {0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  codes.insert(codes.end(), codes1.begin(), codes1.end());
  codes.insert(codes.end(), codes2.begin(), codes2.end());
  codes.resize(64, 0);
  EXPECT_EQ(codes_of(t), codes);
  EXPECT_EQ(t.data[0], 0x10);  // element 0 in the low nibble, element 1 in the high one
  EXPECT_EQ(t.data[1], 0x32);

  std::vector<float> want = {0,       0.875f, 1.75f, 2.625f, 3.5f, 5.25f, 7,     10.5f,
                             -0.875f, -10.5f, 0,     1.75f,  7,    -7,    -0.0f, 1.75f};
  const std::vector<float> want1 =
      padded({1.03125f, 0.515625f, -0.2578125f, 0.0859375f, 0, 0.171875f}, 16);
  const std::vector<float> want2 = padded({0.0f, -0.0f}, 16);
  want.insert(want.end(), want1.begin(), want1.end());
  want.insert(want.end(), want2.begin(), want2.end());
  want.resize(64, 0.0f);
  expect_same_bits(dequantize(t), want);
}

// MXFP4, 1 x 128 (four blocks of 32), scale 2^(floor(log2 amax) - 2):
//   block 0: amax 5   -> 2^0 (code 127): 5 and 4.5 -> 4 (tie to even, nearest), 0.25 -> 0, ...
//   block 1: amax 0.1 -> 2^-6 (code 121): 0.1 -> 6.4 -> 6 (clipped), -0.05 -> -3.2 -> -3
//   block 2: amax 7.5 -> 2^0: 7.5 and -6.9 clip to +-6 (the OCP rule clips the top of a binade)
//   block 3: zero     -> 2^0
TEST(Quantize, Mxfp4HandComputedTensor) {
  std::vector<float> x(128, 0.0f);
  const std::vector<float> head0 = {5, -3, 0.25f, 0.75f, 1.25f, 4.5f, 5.5f};
  const std::vector<float> head1 = {0.1f, -0.05f, 0.01f};
  const std::vector<float> head2 = {7.5f, -6.9f, 3};
  std::copy(head0.begin(), head0.end(), x.begin());
  std::copy(head1.begin(), head1.end(), x.begin() + 32);
  std::copy(head2.begin(), head2.end(), x.begin() + 64);
  const Fp4Tensor t = quantize(HostMatrix::from_f32(1, 128, x), measured_scale(Fp4Format::mxfp4));

  EXPECT_EQ(t.scale_2, 1.0f);
  EXPECT_EQ(t.scales, (std::vector<std::uint8_t>{127, 121, 127, 127}));
  std::vector<std::uint8_t> codes(128, 0);
  const std::vector<std::uint8_t> c0 = {6, 13, 0, 2, 2, 6, 7}, c1 = {7, 13, 1}, c2 = {7, 15, 5};
  std::copy(c0.begin(), c0.end(), codes.begin());
  std::copy(c1.begin(), c1.end(), codes.begin() + 32);
  std::copy(c2.begin(), c2.end(), codes.begin() + 64);
  EXPECT_EQ(codes_of(t), codes);

  std::vector<float> want(128, 0.0f);
  const std::vector<float> w0 = {4, -3, 0, 1, 1, 4, 6}, w1 = {0.09375f, -0.046875f, 0.0078125f},
                           w2 = {6, -6, 3};
  std::copy(w0.begin(), w0.end(), want.begin());
  std::copy(w1.begin(), w1.end(), want.begin() + 32);
  std::copy(w2.begin(), w2.end(), want.begin() + 64);
  expect_same_bits(dequantize(t), want);
}

TEST(Quantize, AllZeroTensor) {
  for (const Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4}) {
    const Fp4Tensor t = quantize(HostMatrix::from_f32(3, 64, std::vector<float>(3 * 64, 0.0f)),
                                 measured_scale(format));
    EXPECT_EQ(t.scale_2, 1.0f);
    const std::uint8_t one = format == Fp4Format::nvfp4 ? 0x38 : 127;
    EXPECT_EQ(t.scales, std::vector<std::uint8_t>(std::size_t(3 * t.scale_cols()), one));
    EXPECT_EQ(t.data, std::vector<std::uint8_t>(3 * 32, 0));
    expect_same_bits(dequantize(t), std::vector<float>(3 * 64, 0.0f));
  }
}

// A constant block c has block_amax = c, so x / divisor = 6 t / e4m3(t) with t = c / (6 scale_2):
// within [6 / (1 + 2^-4), 6 / (1 - 2^-4)] = [5.65, 6.4] for a normal E4M3 scale, always code 6.
TEST(Quantize, Nvfp4ConstantBlocksAllGetTheTopCode) {
  const std::vector<float> constants = {100.0f, 3.0f, -0.7f, 2.0f};  // scales normal E4M3
  std::vector<float> x;
  for (const float c : constants) x.insert(x.end(), 16, c);
  const Fp4Tensor t = quantize(HostMatrix::from_f32(2, 32, x));
  const std::vector<float> dq = dequantize(t);
  for (std::int64_t r = 0; r < 2; ++r) {
    for (std::int64_t k = 0; k < 32; ++k) {
      const float c = x[std::size_t(r * 32 + k)];
      EXPECT_EQ(t.code(r, k), c > 0 ? 7 : 15) << r << "," << k;
      const float top = c > 0 ? 6.0f : -6.0f;
      EXPECT_EQ(dq[std::size_t(r * 32 + k)],
                top * e4m3_to_float(t.scale_code(r, k / 16)) * t.scale_2);
    }
  }
}

// MXFP4 constant blocks: x / X lies in [4, 8): 1 -> 4 (exact), 1.25 -> 5 -> 4 (tie to even),
// 3 -> 6 (exact), -7 -> 7 -> clipped to -6.
TEST(Quantize, Mxfp4ConstantBlocks) {
  const std::vector<float> constants = {1.0f, 1.25f, 3.0f, -7.0f};
  const std::vector<float> dequantized = {1.0f, 1.0f, 3.0f, -6.0f};
  std::vector<float> x;
  for (const float c : constants) x.insert(x.end(), 32, c);
  const Fp4Tensor t = quantize(HostMatrix::from_f32(1, 128, x), measured_scale(Fp4Format::mxfp4));
  const std::vector<float> dq = dequantize(t);
  for (std::size_t i = 0; i < dq.size(); ++i) EXPECT_EQ(dq[i], dequantized[i / 32]) << i;
}

TEST(Quantize, GivenScale2IsUsedAsIs) {
  // scale_2 = 0.5: block amax 3 -> 3 / (6 * 0.5) = 1 -> s = 0x38, divisor 0.5, 3 -> code 7.
  QuantizeOptions options;
  options.scale_2 = 0.5f;
  const Fp4Tensor t = quantize(HostMatrix::from_f32(1, 16, padded({3.0f, -1.0f}, 16)), options);
  EXPECT_EQ(t.scale_2, 0.5f);
  EXPECT_EQ(t.scales, std::vector<std::uint8_t>{0x38});
  EXPECT_EQ(t.code(0, 0), 7);
  EXPECT_EQ(t.code(0, 1), 12);  // -2
}

HostMatrix random_matrix(std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  std::vector<float> v(std::size_t(rows * cols));
  for (float& x : v) x = normal(gen);
  return HostMatrix::from_f32(rows, cols, std::move(v));
}

TEST(Quantize, Scale2AndGlobalSfSpellingsGiveIdenticalTensors) {
  const HostMatrix x = random_matrix(5, 64, 1);
  for (const float global_sf : {100.0f, 2688.0f / 4.2f, 3.0f}) {
    QuantizeOptions by_scale_2, by_global_sf;
    by_scale_2.scale_2 = 1.0f / global_sf;
    by_global_sf.global_sf = global_sf;
    const Fp4Tensor a = quantize(x, by_scale_2), b = quantize(x, by_global_sf);
    EXPECT_EQ(a.scale_2, b.scale_2);
    EXPECT_EQ(a.data, b.data);
    EXPECT_EQ(a.scales, b.scales);
    EXPECT_EQ(resolve_scale_2(x, by_global_sf), 1.0f / global_sf);
  }
}

TEST(Quantize, ResolveScale2) {
  const HostMatrix x = HostMatrix::from_f32(1, 32, padded({1.0f, -5376.0f}, 32));
  EXPECT_EQ(resolve_scale_2(x, {}), 2.0f);  // amax is of |x|
  QuantizeOptions given;
  given.scale_2 = 0.125f;
  EXPECT_EQ(resolve_scale_2(x, given), 0.125f);
  EXPECT_EQ(resolve_scale_2(x, measured_scale(Fp4Format::mxfp4)), 1.0f);
  EXPECT_EQ(resolve_scale_2(HostMatrix::from_f32(1, 32, std::vector<float>(32, 0.0f)), {}), 1.0f);
}

// bf16/f16 inputs are widened exactly, so they quantize like the fp32 matrix of their values.
TEST(Quantize, SixteenBitInputsQuantizeLikeTheirFp32Values) {
  const HostMatrix x = random_matrix(7, 96, 2);
  for (const DType dtype : {DType::bf16, DType::f16}) {
    for (const Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4}) {
      const HostMatrix narrow = x.converted(dtype);
      const HostMatrix wide = HostMatrix::from_f32(x.rows, x.cols, narrow.to_f32());
      const Fp4Tensor a = quantize(narrow, measured_scale(format)),
                      b = quantize(wide, measured_scale(format));
      EXPECT_EQ(a.scale_2, b.scale_2) << to_string(dtype);
      EXPECT_EQ(a.data, b.data) << to_string(dtype);
      EXPECT_EQ(a.scales, b.scales) << to_string(dtype);
    }
  }
}

// Each row's codes depend only on that row and scale_2, so splitting rows across threads cannot
// change the result: quantizing rows one at a time gives the same bytes.
TEST(Quantize, RowsAreIndependentGivenScale2) {
  const HostMatrix x = random_matrix(300, 32, 3);
  QuantizeOptions options;
  options.scale_2 = resolve_scale_2(x, {});
  const Fp4Tensor whole = quantize(x, options);
  for (std::int64_t r = 0; r < x.rows; ++r) {
    const std::vector<float> row(x.f32.begin() + r * 32, x.f32.begin() + (r + 1) * 32);
    const Fp4Tensor one = quantize(HostMatrix::from_f32(1, 32, row), options);
    ASSERT_TRUE(std::equal(one.data.begin(), one.data.end(), whole.data.begin() + r * 16)) << r;
    ASSERT_TRUE(std::equal(one.scales.begin(), one.scales.end(), whole.scales.begin() + r * 2))
        << r;
  }
}

// block_values decodes rows on the hardware threads, a thread per 2^16 elements at least: every
// element of a tensor large enough for several threads, of an odd row count, equals its own
// block_value, in both formats and scale layouts.
TEST(Quantize, BlockValuesDecodeEveryRow) {
  constexpr std::int64_t kRows = 3001;
  const HostMatrix x = random_matrix(kRows, 64, 11);
  for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4})
    for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled}) {
      QuantizeOptions options;
      options.format = format;
      options.scale_layout = layout;
      const Fp4Tensor t = quantize(x, options);
      const std::vector<float> v = block_values(t);
      ASSERT_EQ(v.size(), std::size_t(kRows * 64));
      std::size_t nonzero = 0;
      for (std::int64_t r = 0; r < t.rows; ++r)
        for (std::int64_t k = 0; k < t.cols; ++k) {
          const float want = t.block_value(r, k);
          ASSERT_EQ(float_bits(v[std::size_t(r * 64 + k)]), float_bits(want))
              << to_string(format) << " " << to_string(layout) << " (" << r << ", " << k << ")";
          nonzero += want != 0.0f;
        }
      EXPECT_GT(nonzero, v.size() / 2) << "the random tensor decodes to mostly zeros";
    }
}

TEST(Quantize, RejectsBadShapes) {
  const auto zeros = [](std::int64_t rows, std::int64_t cols) {
    return HostMatrix::from_f32(rows, cols, std::vector<float>(std::size_t(rows * cols), 0.0f));
  };
  expect_error<InvalidArgument>([&] { quantize(zeros(2, 100)); },
                 "K = 100 is not a multiple of 16 (the NVFP4 block size)");
  expect_error<InvalidArgument>([&] { quantize(zeros(2, 48), measured_scale(Fp4Format::mxfp4)); },
                 "K = 48 is not a multiple of 32 (the MXFP4 block size)");
  expect_error<InvalidArgument>([&] { quantize(zeros(2, 0)); }, "K = 0 must be at least 1");
  expect_error<InvalidArgument>([&] { quantize(zeros(0, 16)); }, "rows = 0 must be at least 1");
  HostMatrix short_storage = zeros(1, 16);
  short_storage.rows = 2;
  expect_error<InvalidArgument>([&] { quantize(short_storage); }, "input holds 16 f32 values; 2 x 16 needs 32");
}

TEST(Quantize, RejectsNonFiniteInputNamingTheFirstPosition) {
  std::vector<float> v(5 * 32, 1.0f);
  v[4 * 32 + 0] = std::numeric_limits<float>::infinity();  // later in row-major order
  v[3 * 32 + 17] = std::numeric_limits<float>::quiet_NaN();
  const HostMatrix x = HostMatrix::from_f32(5, 32, v);
  QuantizeOptions given;
  given.scale_2 = 1.0f;  // the check does not depend on measuring amax
  for (const QuantizeOptions& options :
       {QuantizeOptions{}, given, measured_scale(Fp4Format::mxfp4)})
    expect_error<InvalidArgument>([&] { quantize(x, options); }, "input has NaN at row 3, column 17");
  expect_error<InvalidArgument>([&] { resolve_scale_2(x, {}); }, "input has NaN at row 3, column 17");
  expect_error<InvalidArgument>([&] { quantize(x.converted(DType::bf16)); }, "input has NaN at row 3, column 17");

  v[3 * 32 + 17] = 1.0f;
  expect_error<InvalidArgument>([&] { quantize(HostMatrix::from_f32(5, 32, v)); },
                 "input has inf at row 4, column 0");
  v[4 * 32 + 0] = -std::numeric_limits<float>::infinity();
  expect_error<InvalidArgument>([&] { quantize(HostMatrix::from_f32(5, 32, v)); },
                 "input has -inf at row 4, column 0");
}

TEST(Quantize, RejectsBadTensorScaleOptions) {
  const HostMatrix x = random_matrix(1, 32, 4);
  const auto with = [](std::optional<float> scale_2, std::optional<float> global_sf,
                       Fp4Format format = Fp4Format::nvfp4) {
    QuantizeOptions o;
    o.format = format;
    o.scale_2 = scale_2;
    o.global_sf = global_sf;
    return o;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  expect_error<InvalidArgument>([&] { quantize(x, with(1.0f, 1.0f)); },
                 "give scale_2 or global_sf (= 1 / scale_2), not both");
  expect_error<InvalidArgument>([&] { quantize(x, with(0.0f, {})); }, "scale_2 = 0 must be positive and finite");
  expect_error<InvalidArgument>([&] { quantize(x, with(-1.0f, {})); }, "scale_2 = -1 must be positive and finite");
  expect_error<InvalidArgument>([&] { quantize(x, with(nan, {})); }, "scale_2 = nan must be positive and finite");
  expect_error<InvalidArgument>([&] { quantize(x, with(inf, {})); }, "scale_2 = inf must be positive and finite");
  expect_error<InvalidArgument>([&] { quantize(x, with({}, 0.0f)); }, "global_sf = 0 must be positive and finite");
  expect_error<InvalidArgument>([&] { quantize(x, with({}, inf)); },
                 "global_sf = inf must be positive and finite");
  expect_error<InvalidArgument>([&] { quantize(x, with({}, 1e-45f)); }, "scale_2 = 1 / global_sf overflows fp32");
  expect_error<InvalidArgument>([&] { quantize(x, with(1.0f, {}, Fp4Format::mxfp4)); },
                 "MXFP4 has no tensor scale");
  expect_error<InvalidArgument>([&] { quantize(x, with({}, 1.0f, Fp4Format::mxfp4)); },
                 "MXFP4 has no tensor scale");
  expect_error<InvalidArgument>([&] { resolve_scale_2(x, with(0.0f, {})); }, "scale_2 = 0 must be positive");
}

}  // namespace
}  // namespace fp4gemm
