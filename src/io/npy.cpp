// .npy matrices (NumPy format 1.0 / 2.0 / 3.0, numpy/lib/format.py's documented layout):
//
//   offset  size  content
//   0       6     magic "\x93NUMPY"
//   6       1     major version: 1, 2 or 3      (3.0 only allows a UTF-8 header; the parser
//   7       1     minor version: 0               below accepts ASCII keys and values anyway)
//   8       2|4   header length H, little-endian: u16 for 1.0, u32 for 2.0 and 3.0
//   10|12   H     header: the dict literal of npy_header.hpp, padded with spaces and ended by
//                 '\n' so that the data starts at a multiple of 64
//   ...           data: rows * cols elements, row-major (C order), nothing after them
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "fp4gemm/error.hpp"
#include "fp4gemm/io.hpp"
#include "io/bytes.hpp"
#include "io/npy_header.hpp"
#include "io/source_name.hpp"

namespace fp4gemm {
namespace {

constexpr std::array<std::uint8_t, 6> kMagic = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kDataAlignment = 64;  // numpy's ARRAY_ALIGN

struct NpyDtype {
  std::string_view descr;
  std::int64_t bytes;
  std::string_view meaning;
};
constexpr std::array<NpyDtype, 3> kDtypes = {{
    {"<f4", 4, "fp32"},
    {"<f2", 2, "fp16"},
    {"<f8", 8, "fp64, rounded to fp32"},
}};

const NpyDtype& find_dtype(std::string_view descr, std::string_view argument) {
  const auto it = std::find_if(kDtypes.begin(), kDtypes.end(),
                               [&](const NpyDtype& d) { return d.descr == descr; });
  if (it != kDtypes.end()) return *it;
  std::vector<std::string> accepted;
  for (const NpyDtype& d : kDtypes)
    accepted.push_back(fmt::format("'{}' ({})", d.descr, d.meaning));
  // Big-endian files get their own reason: the fix (astype('<f4')) differs from a wrong type.
  throw InvalidArgument(fmt::format("{}: dtype '{}' is {}; accepted: {}", argument, descr,
                                    descr.starts_with('>') ? "big-endian" : "not supported",
                                    fmt::join(accepted, ", ")));
}

// The '<f8' elements as fp32 (round to nearest); a finite value fp32 cannot hold is an error.
std::vector<float> narrow_f64(std::span<const std::uint8_t> data, std::int64_t cols,
                              std::string_view argument) {
  std::vector<float> values(data.size() / 8);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = io::load_le<double>(data, 8 * i);
    if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max())
      throw InvalidArgument(fmt::format(
          "{}: element ({}, {}) = {} is outside the fp32 range ('<f8' files are read as fp32)",
          argument, std::int64_t(i) / cols, std::int64_t(i) % cols, v));
    values[i] = static_cast<float>(v);
  }
  return values;
}

// The matrix from its validated element bytes.
HostMatrix decode(const NpyDtype& dtype, std::int64_t rows, std::int64_t cols,
                  std::span<const std::uint8_t> data, std::string_view argument) {
  if (dtype.bytes == 8) return HostMatrix::from_f32(rows, cols, narrow_f64(data, cols, argument));
  if (dtype.bytes == 4) {
    std::vector<float> values(data.size() / 4);
    std::memcpy(values.data(), data.data(), data.size());
    return HostMatrix::from_f32(rows, cols, std::move(values));
  }
  std::vector<std::uint16_t> codes(data.size() / 2);
  std::memcpy(codes.data(), data.data(), data.size());
  return HostMatrix::from_half(DType::f16, rows, cols, std::move(codes));
}

}  // namespace

HostMatrix parse_npy_matrix(std::span<const std::uint8_t> bytes, std::string_view argument) {
  if (bytes.size() < kMagic.size() || !std::equal(kMagic.begin(), kMagic.end(), bytes.begin()))
    throw IoError(
        fmt::format("{}: not a .npy file (it does not start with \"\\x93NUMPY\")", argument));
  if (bytes.size() < 8)
    throw IoError(fmt::format("{}: truncated .npy header: {} bytes, the magic and version need 8",
                              argument, bytes.size()));
  const int major = bytes[6];
  const int minor = bytes[7];
  if (minor != 0 || major < 1 || major > 3)
    throw IoError(
        fmt::format("{}: .npy format version {}.{} is not supported (1.0, 2.0 and 3.0 are)",
                    argument, major, minor));
  const std::size_t prefix = major == 1 ? 10 : 12;
  if (bytes.size() < prefix)
    throw IoError(fmt::format("{}: truncated .npy header: {} bytes, a version {}.0 prefix needs {}",
                              argument, bytes.size(), major, prefix));
  const std::size_t header_length =
      major == 1 ? io::load_le<std::uint16_t>(bytes, 8) : io::load_le<std::uint32_t>(bytes, 8);
  if (header_length > bytes.size() - prefix)
    throw IoError(
        fmt::format("{}: truncated .npy header: it declares {} bytes, {} follow the prefix",
                    argument, header_length, bytes.size() - prefix));
  const io::NpyHeader header = io::parse_npy_header(
      std::string_view(reinterpret_cast<const char*>(bytes.data()) + prefix, header_length),
      argument);

  const NpyDtype& dtype = find_dtype(header.descr, argument);
  const std::string shape = io::npy_shape_text(header.shape);
  require(!header.fortran_order,
          "{}: the array is in Fortran order (fortran_order: True); save it with "
          "np.ascontiguousarray",
          argument);
  require(header.shape.size() == 2,
          "{}: the array has shape {}; a 2-D matrix (rows, cols) is needed", argument, shape);
  const std::int64_t rows = header.shape[0];
  const std::int64_t cols = header.shape[1];
  require(rows >= 1 && cols >= 1,
          "{}: shape {} has a zero-size dimension; a matrix needs at least one row and one column",
          argument, shape);
  const std::optional<std::int64_t> elements = io::checked_mul(rows, cols);
  const std::optional<std::int64_t> need =
      elements ? io::checked_mul(*elements, dtype.bytes) : std::nullopt;
  if (!need)
    throw IoError(fmt::format("{}: shape {} of '{}' does not fit 64-bit byte counts", argument,
                              shape, dtype.descr));
  const std::span<const std::uint8_t> data = bytes.subspan(prefix + header_length);
  if (std::uint64_t(*need) > data.size())
    throw IoError(
        fmt::format("{}: truncated .npy data: shape {} of '{}' needs {} bytes, the file has {}",
                    argument, shape, dtype.descr, *need, data.size()));
  if (std::uint64_t(*need) < data.size())
    throw IoError(fmt::format("{}: {} trailing bytes after the {} bytes of shape {} of '{}'",
                              argument, data.size() - std::uint64_t(*need), *need, shape,
                              dtype.descr));
  return decode(dtype, rows, cols, data, argument);
}

HostMatrix read_npy_matrix(const std::filesystem::path& path, std::string_view argument) {
  return parse_npy_matrix(read_file_bytes(path, argument), io::source_name(argument, path));
}

std::vector<std::uint8_t> serialize_npy(const HostMatrix& m) {
  const std::optional<std::int64_t> elements = io::checked_mul(m.rows, m.cols);
  const std::size_t stored = m.dtype == DType::f32 ? m.f32.size() : m.half.size();
  require(m.rows >= 1 && m.cols >= 1 && elements && std::uint64_t(*elements) == stored,
          "a {} x {} {} matrix holds {} values; it needs at least one row and column and "
          "rows * cols values",
          m.rows, m.cols, to_string(m.dtype), stored);
  // NumPy has no bf16: widening to fp32 is exact.
  if (m.dtype == DType::bf16) return serialize_npy(m.converted(DType::f32));
  const io::NpyHeader header{m.dtype == DType::f32 ? "<f4" : "<f2", false, {m.rows, m.cols}};
  std::string text = io::npy_header_dict(header);
  // Pad with spaces so that magic + version + u16 length + text + '\n' ends on the alignment.
  const std::size_t unpadded = kMagic.size() + 2 + 2 + text.size() + 1;
  text.append((kDataAlignment - unpadded % kDataAlignment) % kDataAlignment, ' ');
  text += '\n';

  std::vector<std::uint8_t> bytes(kMagic.begin(), kMagic.end());
  bytes.push_back(1);  // version 1.0: a 2-D header is far below its 65535-byte limit
  bytes.push_back(0);
  const std::uint16_t length = static_cast<std::uint16_t>(text.size());
  io::append_le(bytes, std::span<const std::uint16_t>(&length, 1));
  bytes.insert(bytes.end(), text.begin(), text.end());
  if (m.dtype == DType::f32)
    io::append_le(bytes, std::span<const float>(m.f32));
  else
    io::append_le(bytes, std::span<const std::uint16_t>(m.half));
  return bytes;
}

void write_npy(const std::filesystem::path& path, const HostMatrix& m, bool overwrite,
               std::string_view argument) {
  write_file_atomically(path, serialize_npy(m), overwrite, argument);
}

}  // namespace fp4gemm
