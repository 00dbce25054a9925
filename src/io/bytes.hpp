#pragma once
// Little-endian loads and appends, and overflow-checked size arithmetic, for the file parsers
// and writers of src/io. Both file formats are little-endian, as is every host fp4gemm runs on;
// the static_assert keeps a big-endian port from silently misreading them.
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

namespace fp4gemm::io {

static_assert(std::endian::native == std::endian::little,
              ".npy and safetensors data are little-endian: a big-endian host needs byte swaps");

// The T stored at bytes[offset, offset + sizeof(T)). The caller has checked that range.
template <typename T>
T load_le(std::span<const std::uint8_t> bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

// Appends the bytes of `values` (little-endian, as stored in memory) to `out`.
template <typename T>
void append_le(std::vector<std::uint8_t>& out, std::span<const T> values) {
  if (values.empty()) return;
  const std::size_t at = out.size();
  out.resize(at + values.size_bytes());
  std::memcpy(out.data() + at, values.data(), values.size_bytes());
}

// a * b for a, b >= 0, or nothing when the product does not fit int64.
inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

// The product of non-negative `dims` (1 for none), or nothing when it does not fit int64.
inline std::optional<std::int64_t> checked_product(std::span<const std::int64_t> dims) {
  std::int64_t product = 1;
  for (const std::int64_t d : dims) {
    const std::optional<std::int64_t> next = checked_mul(product, d);
    if (!next) return std::nullopt;
    product = *next;
  }
  return product;
}

}  // namespace fp4gemm::io
