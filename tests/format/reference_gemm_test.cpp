// The CPU reference GEMM is bit-exact on exactly representable operands: small E2M1 values,
// power-of-two scales and integer bf16 activations make every product and sum exact, so
// reference_gemm(...).rounded must equal D worked out by hand, for w4a4 and w4a16, NVFP4 and
// MXFP4, with alpha and scale_2 (D = alpha * scale_2_a * scale_2_b * sum_k A_hat B_hat).
#include <gtest/gtest.h>

#include <string>

#include "expect_error.hpp"
#include "format/fp4_tensor_builder.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/gemm.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm {
namespace {

using test::expect_error;

using test::make_fp4_tensor;

// rows x cols values f(r, k), row-major.
template <typename T, typename F>
std::vector<T> grid(std::int64_t rows, std::int64_t cols, F&& f) {
  std::vector<T> v;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < cols; ++k) v.push_back(T(f(r, k)));
  return v;
}

GemmProblem problem(Mode mode, Fp4Format format, GemmShape shape, DType out = DType::f32) {
  GemmProblem p;
  p.shape = shape;
  p.mode = mode;
  p.format = format;
  p.out_dtype = out;
  return p;
}

HostMatrix bf16_matrix(std::int64_t rows, std::int64_t cols, const std::vector<float>& values) {
  return HostMatrix::from_f32(rows, cols, values).converted(DType::bf16);
}

void expect_exact(const GemmOperands& ops, const std::vector<float>& want) {
  const ReferenceResult r = reference_gemm(ops);
  ASSERT_EQ(r.rounded.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(r.rounded[i], want[i]) << ops.problem.describe() << " element " << i;
    EXPECT_EQ(r.exact[i], double(want[i])) << ops.problem.describe() << " element " << i;
  }
}

// M = N = 1, K = 16. A = 1.0 everywhere; B = every E2M1 value twice (sum 2 * 18 = 36) with
// block scale 2 (0x40): 72; times scale_2_b = 0.5 and alpha = 0.25: D = 9.
TEST(ReferenceGemmExact, Nvfp4W4a4SingleBlock) {
  GemmOperands ops;
  ops.problem = problem(Mode::w4a4, Fp4Format::nvfp4, {1, 1, 16});
  ops.a_fp4 =
      make_fp4_tensor(Fp4Format::nvfp4, 1, 16, std::vector<std::uint8_t>(16, 2), {0x38}, 1.0f);
  ops.b =
      make_fp4_tensor(Fp4Format::nvfp4, 1, 16,
                      grid<std::uint8_t>(1, 16, [](auto, auto k) { return k % 8; }), {0x40}, 0.5f);
  ops.alpha = 0.25f;
  expect_exact(ops, {9.0f});
}

// M = 2, N = 3, K = 32 (two blocks). A[m][k] = m + 1 with block scales 1, 0.5 and scale_2 = 2;
// B[n][k] = 0.5, 1, -1.5 with block scales 4, 0.25 and scale_2 = 0.125; alpha = 3.
// D[m][n] = 3 * 2 * 0.125 * 16 (m+1) b_n (1*4 + 0.5*0.25) = 49.5 (m+1) b_n.
GemmOperands nvfp4_two_block_operands() {
  GemmOperands ops;
  ops.problem = problem(Mode::w4a4, Fp4Format::nvfp4, {2, 3, 32});
  ops.a_fp4 = make_fp4_tensor(Fp4Format::nvfp4, 2, 32,
                              grid<std::uint8_t>(2, 32, [](auto m, auto) { return m ? 4 : 2; }),
                              {0x38, 0x30, 0x38, 0x30}, 2.0f);
  const std::uint8_t b_codes[3] = {1, 2, 11};  // 0.5, 1, -1.5
  ops.b = make_fp4_tensor(Fp4Format::nvfp4, 3, 32,
                          grid<std::uint8_t>(3, 32, [&](auto n, auto) { return b_codes[n]; }),
                          {0x48, 0x28, 0x48, 0x28, 0x48, 0x28}, 0.125f);
  ops.alpha = 3.0f;
  return ops;
}
const std::vector<float> kNvfp4TwoBlockD = {24.75f, 49.5f, -74.25f, 49.5f, 99.0f, -148.5f};

TEST(ReferenceGemmExact, Nvfp4W4a4PerBlockScalesAndScale2) {
  expect_exact(nvfp4_two_block_operands(), kNvfp4TwoBlockD);
}

TEST(ReferenceGemmExact, SwizzledScalesGiveTheSameD) {
  GemmOperands ops = nvfp4_two_block_operands();
  ops.problem.scale_layout = ScaleLayout::swizzled;
  ops.a_fp4 = with_scale_layout(ops.a_fp4, ScaleLayout::swizzled);
  ops.b = with_scale_layout(ops.b, ScaleLayout::swizzled);
  expect_exact(ops, kNvfp4TwoBlockD);
}

// MXFP4, M = 3, N = 2, K = 64 (two blocks of 32). A = 1.0 with block scales 2^m, 0.5;
// B block 0 = 6 on even k, 0 on odd k, scale 0.25; block 1 = -0.5, scale 2^n; alpha = 2.
// D[m][n] = 2 * (16 * 2^m * 1.5 - 32 * 0.5 * 0.5 * 2^n) = 48 * 2^m - 16 * 2^n.
TEST(ReferenceGemmExact, Mxfp4W4a4) {
  GemmOperands ops;
  ops.problem = problem(Mode::w4a4, Fp4Format::mxfp4, {3, 2, 64});
  ops.a_fp4 = make_fp4_tensor(Fp4Format::mxfp4, 3, 64, std::vector<std::uint8_t>(3 * 64, 2),
                              {127, 126, 128, 126, 129, 126}, 1.0f);
  ops.b = make_fp4_tensor(
      Fp4Format::mxfp4, 2, 64,
      grid<std::uint8_t>(2, 64, [](auto, auto k) { return k < 32 ? (k % 2 ? 0 : 7) : 9; }),
      {125, 127, 125, 128}, 1.0f);
  ops.alpha = 2.0f;
  expect_exact(ops, {32, 16, 80, 64, 176, 160});
}

// NVFP4 w4a16, M = 1, N = 2, K = 16. A[k] = k - 8 (bf16, exact); B row 0 = 1.0 at scale 1:
// sum = -8; row 1 = 6 for k < 8 at scale 0.5: 3 * (-36) = -108. scale_2_b = 4, alpha = 0.5.
TEST(ReferenceGemmExact, Nvfp4W4a16) {
  GemmOperands ops;
  ops.problem = problem(Mode::w4a16, Fp4Format::nvfp4, {1, 2, 16});
  ops.a_bf16 = bf16_matrix(1, 16, grid<float>(1, 16, [](auto, auto k) { return k - 8; }));
  ops.b = make_fp4_tensor(
      Fp4Format::nvfp4, 2, 16,
      grid<std::uint8_t>(2, 16, [](auto n, auto k) { return n ? (k < 8 ? 7 : 0) : 2; }),
      {0x38, 0x30}, 4.0f);
  ops.alpha = 0.5f;
  expect_exact(ops, {-16.0f, -216.0f});
}

// MXFP4 w4a16, M = 2, N = 1, K = 32. A row 0 = 0.25, row 1 = k; B = 4.0 at scale 2^-3 = 0.5:
// D = 32 * 0.25 * 0.5 = 4 and 0.5 * (0 + ... + 31) = 248.
TEST(ReferenceGemmExact, Mxfp4W4a16) {
  GemmOperands ops;
  ops.problem = problem(Mode::w4a16, Fp4Format::mxfp4, {2, 1, 32});
  ops.a_bf16 =
      bf16_matrix(2, 32, grid<float>(2, 32, [](auto m, auto k) { return m ? float(k) : 0.25f; }));
  ops.b = make_fp4_tensor(Fp4Format::mxfp4, 1, 32, std::vector<std::uint8_t>(32, 6), {124}, 1.0f);
  expect_exact(ops, {4.0f, 248.0f});
}

// D = 256 + 1 = 257 exactly; rounded once to the output dtype: f32 and f16 hold 257, bf16 (8
// significant bits) sees a tie between 256 and 258 and keeps the even 256.
TEST(ReferenceGemmExact, OutputRoundedOnceToTheOutputDtype) {
  for (const auto& [dtype, want] : std::vector<std::pair<DType, float>>{
           {DType::f32, 257.0f}, {DType::f16, 257.0f}, {DType::bf16, 256.0f}}) {
    GemmOperands ops;
    ops.problem = problem(Mode::w4a16, Fp4Format::nvfp4, {1, 1, 16}, dtype);
    ops.a_bf16 =
        bf16_matrix(1, 16, grid<float>(1, 16, [](auto, auto k) { return k == 0 ? 256 : k == 1; }));
    ops.b =
        make_fp4_tensor(Fp4Format::nvfp4, 1, 16, std::vector<std::uint8_t>(16, 2), {0x38}, 1.0f);
    const ReferenceResult r = reference_gemm(ops);
    EXPECT_EQ(r.exact[0], 257.0) << to_string(dtype);
    EXPECT_EQ(r.rounded[0], want) << to_string(dtype);
  }
}

// An NVFP4 tensor of rows x cols values 1 (code 2, scale 1).
Fp4Tensor nvfp4_ones(std::int64_t rows, std::int64_t cols) {
  return make_fp4_tensor(Fp4Format::nvfp4, rows, cols, std::vector<std::uint8_t>(std::size_t(rows * cols), 2),
                         std::vector<std::uint8_t>(std::size_t(rows * cols / 16), 0x38), 1.0f);
}

TEST(ReferenceGemm, RejectsMismatchedK) {
  GemmOperands ops;
  ops.problem = problem(Mode::w4a4, Fp4Format::nvfp4, {1, 1, 16});
  ops.a_fp4 = nvfp4_ones(1, 16);
  ops.b = nvfp4_ones(1, 32);
  expect_error<InvalidArgument>([&] { reference_gemm(ops); }, "B is 1 x 32; the problem needs N x K = 1 x 16");
  ops.a_fp4 = nvfp4_ones(1, 32);
  ops.b = nvfp4_ones(1, 16);
  expect_error<InvalidArgument>([&] { reference_gemm(ops); }, "A is 1 x 32; the problem needs M x K = 1 x 16");
  ops.problem.mode = Mode::w4a16;
  ops.a_bf16 = bf16_matrix(1, 32, std::vector<float>(32, 1.0f));
  expect_error<InvalidArgument>([&] { reference_gemm(ops); }, "A is 1 x 32; the problem needs M x K = 1 x 16");
  ops.problem.shape.k = 20;
  expect_error<InvalidArgument>([&] { reference_gemm(ops); }, "K = 20 is not a multiple of 16");
}

// w4a4's optional bf16 source of A (the GPU families requantize it in every call) must be A: bf16,
// M x K with M x K values; absent is fine.
TEST(GemmOperandsValidate, W4a4SourceOfAMustBeMByKBf16) {
  GemmOperands ops;
  ops.problem = problem(Mode::w4a4, Fp4Format::nvfp4, {2, 1, 16});
  ops.a_fp4 = nvfp4_ones(2, 16);
  ops.b = nvfp4_ones(1, 16);
  ops.validate();  // no source
  ops.a_bf16 = bf16_matrix(2, 16, std::vector<float>(32, 1.0f));
  ops.validate();
  ops.a_bf16 = bf16_matrix(2, 32, std::vector<float>(64, 1.0f));
  expect_error<InvalidArgument>([&] { ops.validate(); },
                                "w4a4's bf16 source of A is 2 x 32 (64 values); the problem needs M x K = 2 x 16");
  ops.a_bf16 = bf16_matrix(2, 16, std::vector<float>(32, 1.0f));
  ops.a_bf16.half.pop_back();
  expect_error<InvalidArgument>([&] { ops.validate(); }, "w4a4's bf16 source of A is 2 x 16 (31 values)");
  ops.a_bf16 = HostMatrix::from_f32(2, 16, std::vector<float>(32, 1.0f));
  expect_error<InvalidArgument>([&] { ops.validate(); }, "w4a4's bf16 source of A is f32, not bf16");
}

}  // namespace
}  // namespace fp4gemm
