// Writing .npy: byte-identical to NumPy for the spec-built example, aligned headers, exact round
// trips of fp32 / fp16 / bf16 matrices, and files written through the atomic writer.
#include <cmath>
#include <limits>

#include "fp4gemm/io.hpp"
#include "io/io_test_support.hpp"
#include "io/numpy_arange_npy.hpp"

namespace fp4gemm::testing_io {
namespace {

using ::testing::ElementsAre;

// Bit patterns, so that -0, NaN payloads and subnormals compare exactly.
std::vector<std::uint32_t> bits_of(const std::vector<float>& values) {
  std::vector<std::uint32_t> bits(values.size());
  std::memcpy(bits.data(), values.data(), values.size() * 4);
  return bits;
}

HostMatrix seeded_f32(std::int64_t rows, std::int64_t cols) {
  std::mt19937 rng(7);
  std::vector<float> values(std::size_t(rows * cols));
  for (float& v : values) v = std::normal_distribution<float>(0.0f, 3.0f)(rng);
  values[0] = -0.0f;
  values[1] = std::numeric_limits<float>::denorm_min();
  values[2] = std::numeric_limits<float>::quiet_NaN();
  return HostMatrix::from_f32(rows, cols, std::move(values));
}

TEST(NpyWrite, MatchesNumpyByteForByte) {
  const HostMatrix m = HostMatrix::from_f32(2, 3, {0.0f, 1.0f, 2.0f, 3.0f, 4.0f, 5.0f});
  EXPECT_EQ(serialize_npy(m), kNumpyArange2x3);
}

TEST(NpyWrite, HeaderEndsInANewlineAndTheDataStartsAtAMultipleOf64) {
  for (const auto& [rows, cols] :
       std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 1}, {3, 5}, {1000, 1}, {123456, 7}}) {
    const Bytes bytes = serialize_npy(
        HostMatrix::from_f32(rows, cols, std::vector<float>(std::size_t(rows * cols))));
    const std::size_t data_start = 10 + bytes[8] + 256 * bytes[9];
    EXPECT_EQ(data_start % 64, 0u) << rows << " x " << cols;
    EXPECT_EQ(bytes[data_start - 1], '\n');
    EXPECT_EQ(bytes.size() - data_start, std::size_t(rows * cols * 4));
  }
}

TEST(NpyWrite, Float32RoundTripIsBitExact) {
  const HostMatrix m = seeded_f32(3, 5);
  const HostMatrix back = parse_npy_matrix(serialize_npy(m), "--a");
  EXPECT_EQ(back.dtype, DType::f32);
  EXPECT_EQ(back.rows, 3);
  EXPECT_EQ(back.cols, 5);
  EXPECT_EQ(bits_of(back.f32), bits_of(m.f32));
}

TEST(NpyWrite, Float16IsWrittenAsF2AndRoundTrips) {
  const HostMatrix m = HostMatrix::from_half(DType::f16, 2, 2, {0x3C00, 0x8000, 0x7C00, 0x0001});
  const Bytes bytes = serialize_npy(m);
  EXPECT_THAT(std::string(bytes.begin(), bytes.end()), ::testing::HasSubstr("'descr': '<f2'"));
  const HostMatrix back = parse_npy_matrix(bytes, "--a");
  EXPECT_EQ(back.dtype, DType::f16);
  EXPECT_EQ(back.half, m.half);
}

TEST(NpyWrite, Bfloat16IsWidenedExactlyToF4) {
  // bf16 codes of 1.0, -2.5, 2^-133 (a bf16 subnormal) and 3.3895e38 (the largest bf16).
  const HostMatrix m = HostMatrix::from_half(DType::bf16, 1, 4, {0x3F80, 0xC020, 0x0001, 0x7F7F});
  const Bytes bytes = serialize_npy(m);
  EXPECT_THAT(std::string(bytes.begin(), bytes.end()), ::testing::HasSubstr("'descr': '<f4'"));
  const HostMatrix back = parse_npy_matrix(bytes, "--a");
  EXPECT_EQ(back.dtype, DType::f32);
  EXPECT_EQ(bits_of(back.f32),
            (std::vector<std::uint32_t>{0x3F800000, 0xC0200000, 0x00010000, 0x7F7F0000}));
}

TEST(NpyWrite, RejectsAMatrixWhoseSizesDisagreeWithItsValues) {
  HostMatrix m = HostMatrix::from_f32(2, 2, {1, 2, 3, 4});
  m.f32.pop_back();
  expect_error<InvalidArgument>([&] { serialize_npy(m); }, "a 2 x 2 f32 matrix holds 3 values");
  m.rows = 0;
  m.f32.clear();
  expect_error<InvalidArgument>([&] { serialize_npy(m); }, "a 0 x 2 f32 matrix holds 0 values");
}

TEST(NpyWrite, WritesThroughTheAtomicWriter) {
  TempDir dir;
  const HostMatrix m = seeded_f32(4, 2);
  write_npy(dir / "d.npy", m, false, "--output");
  EXPECT_EQ(bits_of(read_npy_matrix(dir / "d.npy", "--a").f32), bits_of(m.f32));
  expect_error<InvalidArgument>([&] { write_npy(dir / "d.npy", m, false, "--output"); },
                                "already exists; pass --force to replace it");
  write_npy(dir / "d.npy", HostMatrix::from_f32(1, 1, {9.0f}), true, "--output");
  EXPECT_THAT(read_npy_matrix(dir / "d.npy", "--a").f32, ElementsAre(9.0f));
  EXPECT_THAT(dir.entries(), ElementsAre("d.npy"));
}

}  // namespace
}  // namespace fp4gemm::testing_io
