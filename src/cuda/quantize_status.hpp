#pragma once
// The words the GPU quantization kernels report into: 16 bytes of device memory, shared by the
// kernels (quantize_kernel.cuh) and their host side (gpu_quantize.cu).
//
//   first_non_finite  smallest key of a NaN/inf input element seen (atomicMin); kNoNonFinite
//                     (all ones) when none. key = row << 33 | column << 2 | kind, so the integer
//                     order of keys is the row-major order of positions: the minimum is the first
//                     bad element, as the CPU quantizer reports it. Rows and columns < 2^31; kind 3
//                     is unused, so no key is all ones.
//   amax_bits         max |x| as fp32 bits (atomicMax): for x >= 0 the integer order of the bits
//                     is the float order. Scratch of measure_scale_2_on_device.
#include <cstdint>
#include <string_view>

#include "fp4gemm/host_device.hpp"

namespace fp4gemm::cuda {

struct QuantizeStatusWords {
  unsigned long long first_non_finite;
  unsigned int amax_bits;
};

inline constexpr unsigned long long kNoNonFinite = ~0ull;
inline constexpr std::int64_t kStatusIndexLimit = std::int64_t(1) << 31;  // rows, columns below

// Key of the non-finite element (row, column) whose fp32 bits are `bits`: kind 0 NaN, 1 inf,
// 2 -inf.
FP4GEMM_HD unsigned long long non_finite_key(std::int64_t row, std::int64_t column,
                                             std::uint32_t bits) {
  const unsigned kind = (bits & 0x7FFFFFFFu) > 0x7F800000u ? 0u : (bits >> 31 ? 2u : 1u);
  return (static_cast<unsigned long long>(row) << 33) |
         (static_cast<unsigned long long>(column) << 2) | kind;
}

inline std::int64_t non_finite_row(unsigned long long key) { return std::int64_t(key >> 33); }
inline std::int64_t non_finite_column(unsigned long long key) {
  return std::int64_t((key >> 2) & 0x7FFFFFFFull);
}
// The CPU quantizer's words for the kind: "NaN", "inf", "-inf".
inline std::string_view non_finite_kind(unsigned long long key) {
  const unsigned kind = unsigned(key & 3);
  return kind == 0 ? "NaN" : (kind == 1 ? "inf" : "-inf");
}

}  // namespace fp4gemm::cuda
