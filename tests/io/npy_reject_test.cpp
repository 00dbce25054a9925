// Every .npy rejection rule, each with the error type and the words of its message.
#include "fp4gemm/io.hpp"
#include "io/io_test_support.hpp"
#include "io/numpy_arange_npy.hpp"

namespace fp4gemm::testing_io {
namespace {

std::string dict(std::string_view descr, std::string_view fortran_order, std::string_view shape) {
  return fmt::format("{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}", descr, fortran_order,
                     shape);
}

// A version 1.0 file of 2 x 3 '<f4' data (24 bytes) under `header`.
Bytes with_header(std::string_view header, std::size_t data_bytes = 24) {
  return npy_file(1, header, Bytes(data_bytes, 0));
}

Bytes prefix_of(const Bytes& bytes, std::size_t n) {
  return Bytes(bytes.begin(), bytes.begin() + n);
}

Bytes with_byte(Bytes bytes, std::size_t at, std::uint8_t value) {
  bytes[at] = value;
  return bytes;
}

const std::string kF4 = dict("<f4", "False", "(2, 3)");
const std::string kAccepted = "accepted: '<f4' (fp32), '<f2' (fp16), '<f8' (fp64, rounded to fp32)";

std::vector<Rejection> rejections() {
  using R = Rejection;
  return {
      // Structure: magic, version, lengths.
      {"EmptyInput", {}, R::io_error, "not a .npy file (it does not start with \"\\x93NUMPY\")"},
      {"BadMagic", with_byte(kNumpyArange2x3, 5, 'Z'), R::io_error, "not a .npy file"},
      {"NoVersion", prefix_of(kNumpyArange2x3, 7), R::io_error,
       "truncated .npy header: 7 bytes, the magic and version need 8"},
      {"Version4", with_byte(kNumpyArange2x3, 6, 4), R::io_error,
       ".npy format version 4.0 is not supported (1.0, 2.0 and 3.0 are)"},
      {"Version1_1", with_byte(kNumpyArange2x3, 7, 1), R::io_error, "version 1.1 is not supported"},
      {"NoHeaderLength", prefix_of(npy_file(2, kF4, Bytes(24, 0)), 10), R::io_error,
       "truncated .npy header: 10 bytes, a version 2.0 prefix needs 12"},
      {"HeaderBeyondFile", prefix_of(kNumpyArange2x3, 100), R::io_error,
       "truncated .npy header: it declares 118 bytes, 90 follow the prefix"},
      // The header literal.
      {"NotADict", with_header("['descr', '<f4']"), R::io_error,
       "not a dict literal of 'descr', 'fortran_order' and 'shape': the header must start with "
       "'{'"},
      {"MissingKey", with_header("{'descr': '<f4', 'shape': (2, 3)}"), R::io_error,
       "missing key 'fortran_order'"},
      {"DuplicateKey",
       with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), "
                   "'shape': (2, 3)}"),
       R::io_error, "duplicate key 'shape'"},
      {"UnknownKey",
       with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), "
                   "'order': 'C'}"),
       R::io_error, "unknown key 'order'"},
      {"MissingComma", with_header("{'descr': '<f4' 'fortran_order': False, 'shape': (2, 3)}"),
       R::io_error, "expected ',' or '}' after an entry"},
      {"ShapeIsAList", with_header(dict("<f4", "False", "[2, 3]")), R::io_error,
       "'shape' must be a tuple such as (2, 3)"},
      {"ShapeIsAParenthesizedInt", with_header(dict("<f4", "False", "(6)")), R::io_error,
       "'shape' (n) is a parenthesized int, not a tuple"},
      {"FortranOrderNotABool", with_header(dict("<f4", "0", "(2, 3)")), R::io_error,
       "'fortran_order' must be True or False"},
      {"NegativeDimension", with_header(dict("<f4", "False", "(-2, 3)")), R::io_error,
       "'shape' entries must be non-negative integers"},
      {"DimensionBeyond64Bits", with_header(dict("<f4", "False", "(99999999999999999999, 1)")),
       R::io_error, "a 'shape' entry does not fit 64 bits"},
      {"LeadingZero", with_header(dict("<f4", "False", "(02, 3)")), R::io_error,
       "an integer with a leading zero"},
      {"UnterminatedString", with_header("{'descr': '<f4"), R::io_error, "unterminated string"},
      {"TextAfterTheDict", with_header(kF4 + " x"), R::io_error,
       "only whitespace may follow the dict"},
      {"StructuredDtype",
       with_header("{'descr': [('a', '<f4')], 'fortran_order': False, "
                   "'shape': (2, 3)}"),
       R::invalid_argument, "the array has a structured dtype"},
      // Well-formed files fp4gemm does not take.
      {"FortranOrder", with_header(dict("<f4", "True", "(2, 3)")), R::invalid_argument,
       "the array is in Fortran order (fortran_order: True); save it with np.ascontiguousarray"},
      {"BigEndian", with_header(dict(">f4", "False", "(2, 3)")), R::invalid_argument,
       "dtype '>f4' is big-endian; " + kAccepted},
      {"Int32", with_header(dict("<i4", "False", "(2, 3)")), R::invalid_argument,
       "dtype '<i4' is not supported; " + kAccepted},
      {"OneDimensional", with_header(dict("<f4", "False", "(6,)")), R::invalid_argument,
       "the array has shape (6,); a 2-D matrix (rows, cols) is needed"},
      {"ThreeDimensional", with_header(dict("<f4", "False", "(1, 2, 3)")), R::invalid_argument,
       "the array has shape (1, 2, 3)"},
      {"Scalar", with_header(dict("<f4", "False", "()")), R::invalid_argument,
       "the array has shape ()"},
      {"ZeroRows", with_header(dict("<f4", "False", "(0, 3)"), 0), R::invalid_argument,
       "shape (0, 3) has a zero-size dimension"},
      {"ZeroCols", with_header(dict("<f4", "False", "(3, 0)"), 0), R::invalid_argument,
       "shape (3, 0) has a zero-size dimension"},
      // Sizes.
      {"ElementCountOverflows", with_header(dict("<f4", "False", "(4611686018427387904, 2)")),
       R::io_error, "shape (4611686018427387904, 2) of '<f4' does not fit 64-bit byte counts"},
      {"ByteCountOverflows", with_header(dict("<f4", "False", "(2305843009213693952, 2)")),
       R::io_error, "does not fit 64-bit byte counts"},
      {"TruncatedData", with_header(kF4, 20), R::io_error,
       "truncated .npy data: shape (2, 3) of '<f4' needs 24 bytes, the file has 20"},
      {"TrailingBytes", with_header(kF4, 28), R::io_error,
       "4 trailing bytes after the 24 bytes of shape (2, 3) of '<f4'"},
      {"Float64BeyondFloat32",
       npy_file(1, dict("<f8", "False", "(1, 2)"), raw_bytes(std::vector<double>{1.0, 1e300})),
       R::invalid_argument, "element (0, 1) = 1e+300 is outside the fp32 range"},
  };
}

class NpyRejects : public ::testing::TestWithParam<Rejection> {};

TEST_P(NpyRejects, WithAnErrorNamingTheArgumentAndRule) {
  expect_rejected(GetParam(), [](const Bytes& b, std::string_view a) { parse_npy_matrix(b, a); });
}

INSTANTIATE_TEST_SUITE_P(Npy, NpyRejects, ::testing::ValuesIn(rejections()), rejection_name);

}  // namespace
}  // namespace fp4gemm::testing_io
