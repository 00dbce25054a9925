#pragma once
// Helpers of the io tests: files built by hand from the format specs (not by the code under
// test), a temporary directory, a hand-made Fp4Tensor, and exception checks.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "expect_error.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/layout.hpp"
#include "fp4gemm/tensor.hpp"

namespace fp4gemm::testing_io {

using Bytes = std::vector<std::uint8_t>;

using test::expect_error;

// One malformed or unsupported input and the error it must raise.
struct Rejection {
  std::string name;  // the test's name: letters, digits, underscores
  std::vector<std::uint8_t> bytes;
  enum Kind { io_error, invalid_argument } kind;
  std::string message;  // a substring of the message, which must also start "--a: "
};

// Runs `parse(bytes, "--a")` and checks the exception type and message of `rejection`.
template <typename Parse>
void expect_rejected(const Rejection& rejection, Parse&& parse) {
  const auto run = [&] { parse(rejection.bytes, "--a"); };
  if (rejection.kind == Rejection::io_error)
    expect_error<IoError>(run, rejection.message);
  else
    expect_error<InvalidArgument>(run, rejection.message);
  try {
    run();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::StartsWith("--a: "));
  }
}

// gtest prints a failing parameter by its name rather than as a hex dump.
inline void PrintTo(const Rejection& rejection, std::ostream* os) { *os << rejection.name; }

inline std::string rejection_name(const ::testing::TestParamInfo<Rejection>& info) {
  return info.param.name;
}

inline Bytes bytes_of(std::string_view text) { return Bytes(text.begin(), text.end()); }

// Appends n bytes at `data` by resize + memcpy (GCC 12 warns falsely about vector::insert here).
inline void append_bytes(Bytes& out, const void* data, std::size_t n) {
  if (n == 0) return;
  const std::size_t at = out.size();
  out.resize(at + n);
  std::memcpy(out.data() + at, data, n);
}

template <typename T>
void append_raw(Bytes& out, const T& value) {
  append_bytes(out, &value, sizeof(T));
}

template <typename T>
Bytes raw_bytes(const std::vector<T>& values) {
  Bytes out;
  for (const T& v : values) append_raw(out, v);
  return out;
}

// A .npy file per the format spec: "\x93NUMPY", major, minor 0, the header length (u16 for
// version 1, u32 otherwise), `dict`, and, when `pad`, spaces and '\n' so that the data starts at
// a multiple of 64; then `data`.
inline Bytes npy_file(int major, std::string_view dict, const Bytes& data, bool pad = true) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string header(dict);
  if (pad) {
    header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
  }
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', std::uint8_t(major), 0};
  if (major == 1)
    append_raw(out, std::uint16_t(header.size()));
  else
    append_raw(out, std::uint32_t(header.size()));
  append_bytes(out, header.data(), header.size());
  append_bytes(out, data.data(), data.size());
  return out;
}

// A safetensors file per its spec: u64 little-endian header length, the header text, the data.
inline Bytes safetensors_file(std::string_view header, const Bytes& data) {
  Bytes out;
  append_raw(out, std::uint64_t(header.size()));
  append_bytes(out, header.data(), header.size());
  append_bytes(out, data.data(), data.size());
  return out;
}

inline Bytes safetensors_from_json(const nlohmann::json& header, const Bytes& data) {
  return safetensors_file(std::string_view(header.dump()), data);
}

// A header entry {"dtype": ..., "shape": ..., "data_offsets": [begin, end]}.
inline nlohmann::json entry(std::string_view dtype, std::vector<std::int64_t> shape,
                            std::uint64_t begin, std::uint64_t end) {
  return {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {begin, end}}};
}

// A tensor to store in a hand-built safetensors file.
struct StoredTensor {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  Bytes data;
};

// A safetensors file holding `tensors` contiguously in the given order, with `metadata` as
// __metadata__ unless it is null, and no header padding.
inline Bytes checkpoint(const std::vector<StoredTensor>& tensors,
                        const nlohmann::json& metadata = nullptr) {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata.is_null()) header["__metadata__"] = metadata;
  Bytes data;
  for (const StoredTensor& t : tensors) {
    header[t.name] = entry(t.dtype, t.shape, data.size(), data.size() + t.data.size());
    append_bytes(data, t.data.data(), t.data.size());
  }
  return safetensors_from_json(header, data);
}

// A valid tensor with seeded random codes and scales; swizzled padding bytes stay zero.
inline Fp4Tensor make_fp4(Fp4Format format, ScaleLayout layout, std::int64_t rows,
                          std::int64_t cols, unsigned seed = 1) {
  std::mt19937 rng(seed);
  Fp4Tensor t;
  t.format = format;
  t.scale_layout = layout;
  t.rows = rows;
  t.cols = cols;
  t.data.resize(std::size_t(rows * cols / 2));
  for (std::uint8_t& b : t.data) b = std::uint8_t(rng());
  t.scales.assign(std::size_t(scale_bytes(layout, rows, t.scale_cols())), 0);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t kb = 0; kb < t.scale_cols(); ++kb)
      t.scales[std::size_t(scale_offset(layout, r, kb, t.scale_cols()))] =
          std::uint8_t(1 + rng() % 120);
  t.scale_2 = format == Fp4Format::nvfp4 ? 0.0123f : 1.0f;
  return t;
}

inline void expect_same_tensor(const Fp4Tensor& a, const Fp4Tensor& b) {
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.scale_layout, b.scale_layout);
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(a.scales, b.scales);
  EXPECT_EQ(a.scale_2, b.scale_2);
}

// A fresh directory under the system temporary directory, removed with its contents at the end.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            fmt::format("fp4gemm-io-test-{}-{}", ::getpid(), counter++);
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }
  // The names in the directory, sorted: shows leftover temporary files.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace fp4gemm::testing_io
