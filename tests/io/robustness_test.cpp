// Deterministic robustness of the parsers (tests/fuzz explores further, under ASan): every
// truncation of a valid file is rejected, and thousands of seeded random corruptions each either
// parse or throw fp4gemm::Error. Any other exception escapes the test body and fails it.
#include "fp4gemm/io.hpp"
#include "io/io_test_support.hpp"
#include "io/numpy_arange_npy.hpp"

namespace fp4gemm::testing_io {
namespace {

constexpr int kCorruptions = 4000;

using Parse = void (*)(const Bytes&);

bool parses(Parse parse, const Bytes& bytes) {
  try {
    parse(bytes);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// Runs every strict prefix of `valid` (which must parse) and expects each to be rejected.
void expect_truncations_rejected(const Bytes& valid, Parse parse) {
  ASSERT_TRUE(parses(parse, valid));
  for (std::size_t n = 0; n < valid.size(); ++n)
    EXPECT_FALSE(parses(parse, Bytes(valid.begin(), valid.begin() + std::ptrdiff_t(n))))
        << "the first " << n << " of " << valid.size() << " bytes parsed";
}

// Changes 1..4 bytes of `valid` per trial (a flipped bit or a random byte; half of the changes
// fall in the first `header_end` bytes, where the parsing decisions are). Both outcomes must
// occur, or the trials did not exercise the parser.
void expect_corruptions_parse_or_throw_errors(const Bytes& valid, std::size_t header_end,
                                              Parse parse) {
  std::mt19937 rng(20240601);
  int parsed = 0;
  int rejected = 0;
  for (int trial = 0; trial < kCorruptions; ++trial) {
    Bytes bytes = valid;
    for (unsigned change = 0, n = 1 + rng() % 4; change < n; ++change) {
      const std::size_t at = rng() % ((rng() & 1) ? header_end : bytes.size());
      if (rng() & 1)
        bytes[at] ^= std::uint8_t(1u << (rng() % 8));
      else
        bytes[at] = std::uint8_t(rng());
    }
    ++(parses(parse, bytes) ? parsed : rejected);
  }
  EXPECT_GT(parsed, 0);
  EXPECT_GT(rejected, 0);
}

void parse_npy(const Bytes& b) { parse_npy_matrix(b, "--a"); }
void parse_fp4(const Bytes& b) { parse_fp4_safetensors(b, "--b"); }

// Where the data starts: after the u16 (version 1) or u32 header length and the header.
std::size_t npy_header_end(const Bytes& bytes) {
  std::uint32_t n = 0;
  std::memcpy(&n, bytes.data() + 8, bytes[6] == 1 ? 2 : 4);
  return (bytes[6] == 1 ? 10 : 12) + n;
}

std::size_t safetensors_header_end(const Bytes& bytes) {
  std::uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  return 8 + n;
}

std::vector<Bytes> npy_samples() {
  return {
      kNumpyArange2x3,
      npy_file(2, "{'descr': '<f2', 'fortran_order': False, 'shape': (3, 2), }", Bytes(12, 0x3C)),
      npy_file(3, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2)}",
               raw_bytes(std::vector<double>{1, -2, 0.5, 3}), false)};
}

std::vector<Bytes> safetensors_samples() {
  const Fp4Tensor nv = make_fp4(Fp4Format::nvfp4, ScaleLayout::linear, 3, 32);
  return {serialize_fp4_safetensors(nv),
          serialize_fp4_safetensors(make_fp4(Fp4Format::mxfp4, ScaleLayout::swizzled, 2, 64)),
          // A checkpoint without fp4gemm metadata (format and layout inferred).
          checkpoint({{"weight", "U8", {3, 16}, nv.data},
                      {"weight_scale", "F8_E4M3", {3, 2}, nv.scales},
                      {"weight_scale_2", "F32", {1}, raw_bytes(std::vector<float>{0.5f})}},
                     nlohmann::json{{"format", "pt"}})};
}

TEST(NpyRobustness, EveryTruncationIsRejected) {
  for (const Bytes& valid : npy_samples()) expect_truncations_rejected(valid, parse_npy);
}

TEST(NpyRobustness, RandomCorruptionsParseOrThrowErrors) {
  for (const Bytes& valid : npy_samples())
    expect_corruptions_parse_or_throw_errors(valid, npy_header_end(valid), parse_npy);
}

TEST(SafetensorsRobustness, EveryTruncationIsRejected) {
  for (const Bytes& valid : safetensors_samples()) expect_truncations_rejected(valid, parse_fp4);
}

TEST(SafetensorsRobustness, RandomCorruptionsParseOrThrowErrors) {
  for (const Bytes& valid : safetensors_samples())
    expect_corruptions_parse_or_throw_errors(valid, safetensors_header_end(valid), parse_fp4);
}

}  // namespace
}  // namespace fp4gemm::testing_io
