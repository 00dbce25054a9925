#include "format/placed_codes.hpp"

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

// The 32 (code, field) pairs land on 32 distinct bits, and pairs 0..2 on their masked bits.
constexpr bool placement_is_one_to_one() {
  std::uint32_t used = 0;
  for (int code = 0; code < 8; ++code)
    for (int field = 0; field < kPlacedFields; ++field) {
      const std::uint32_t bit = 1u << placed_stored_bit(code, field);
      if (used & bit) return false;
      used |= bit;
    }
  return used == 0xFFFFFFFFu;
}
static_assert(placement_is_one_to_one(), "every bit of a placed word holds one field of one code");
static_assert((1u << placed_bf16_bit(0) | 1u << placed_bf16_bit(1) | 1u << placed_bf16_bit(2) |
               1u << placed_bf16_bit(3)) * 0x10001u == kPlacedPairMask,
              "kPlacedPairMask is the field bits of both halves");

}  // namespace

std::vector<std::uint8_t> placed_codes(const std::vector<std::uint8_t>& data) {
  require(data.size() % 4 == 0, "placed_codes: {} bytes of codes are not whole 4-byte words", data.size());
  std::vector<std::uint8_t> placed(data.size(), 0);
  for (std::size_t at = 0; at < data.size(); at += 4) {
    std::uint32_t word = 0;
    for (int code = 0; code < 8; ++code) {
      const int nibble = (data[at + code / 2] >> (4 * (code % 2))) & 0xF;
      for (int field = 0; field < kPlacedFields; ++field)
        word |= std::uint32_t((nibble >> field) & 1) << placed_stored_bit(code, field);
    }
    for (int b = 0; b < 4; ++b) placed[at + b] = std::uint8_t(word >> (8 * b));
  }
  return placed;
}

}  // namespace fp4gemm
