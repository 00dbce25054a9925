#include "format/placed_codes.hpp"

#include <array>

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

// The bits a placed word gets from byte b (codes 2b, 2b + 1) of the original word, per byte value:
// a word is the OR of its four bytes' entries (a prepare() packs hundreds of MB).
constexpr std::array<std::array<std::uint32_t, 256>, 4> byte_contributions() {
  std::array<std::array<std::uint32_t, 256>, 4> table{};
  for (int b = 0; b < 4; ++b)
    for (int value = 0; value < 256; ++value)
      for (int half = 0; half < 2; ++half) {
        const int code = 2 * b + half, nibble = (value >> (4 * half)) & 0xF;
        for (int field = 0; field < kPlacedFields; ++field)
          table[std::size_t(b)][std::size_t(value)] |= std::uint32_t((nibble >> field) & 1)
                                                        << placed_stored_bit(code, field);
      }
  return table;
}
constexpr auto kByteContributions = byte_contributions();

}  // namespace

std::vector<std::uint8_t> placed_codes(const std::vector<std::uint8_t>& data) {
  require(data.size() % 4 == 0, "placed_codes: {} bytes of codes are not whole 4-byte words", data.size());
  std::vector<std::uint8_t> placed(data.size());
  for (std::size_t at = 0; at < data.size(); at += 4) {
    const std::uint32_t word = kByteContributions[0][data[at]] | kByteContributions[1][data[at + 1]] |
                               kByteContributions[2][data[at + 2]] | kByteContributions[3][data[at + 3]];
    for (int b = 0; b < 4; ++b) placed[at + std::size_t(b)] = std::uint8_t(word >> (8 * b));
  }
  return placed;
}

}  // namespace fp4gemm
