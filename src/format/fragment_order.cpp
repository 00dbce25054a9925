#include "format/fragment_order.hpp"

#include <array>

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

constexpr int kGroupBytes = kFragmentGroupCodes / 2;

// The 32 positions of a group are a permutation of its 32 k.
constexpr bool order_is_one_to_one() {
  std::uint32_t used = 0;
  for (int word = 0; word < 4; ++word)
    for (int code = 0; code < 8; ++code) used |= 1u << fragment_order_k(word, code);
  return used == 0xFFFFFFFFu;
}
static_assert(order_is_one_to_one(), "every k of a group lands in exactly one position");

// Position (0..31) -> the group-local k it holds.
constexpr std::array<int, kFragmentGroupCodes> source_k() {
  std::array<int, kFragmentGroupCodes> k{};
  for (int p = 0; p < kFragmentGroupCodes; ++p) k[std::size_t(p)] = fragment_order_k(p / 8, p % 8);
  return k;
}
constexpr auto kSourceK = source_k();

int nibble(const std::uint8_t* group, int k) { return (group[k / 2] >> (4 * (k % 2))) & 0xF; }

}  // namespace

std::vector<std::uint8_t> fragment_ordered_codes(const std::vector<std::uint8_t>& data,
                                                 std::int64_t cols) {
  require(cols > 0 && cols % kFragmentGroupCodes == 0,
          "fragment_ordered_codes: cols = {} is not a positive multiple of {}", cols,
          kFragmentGroupCodes);
  require(data.size() % std::size_t(cols / 2) == 0,
          "fragment_ordered_codes: {} code bytes are not whole rows of {} codes", data.size(), cols);
  std::vector<std::uint8_t> ordered(data.size());
  for (std::size_t at = 0; at < data.size(); at += kGroupBytes)
    for (int p = 0; p < kFragmentGroupCodes; p += 2)
      ordered[at + std::size_t(p / 2)] =
          std::uint8_t(nibble(&data[at], kSourceK[std::size_t(p)]) |
                       nibble(&data[at], kSourceK[std::size_t(p + 1)]) << 4);
  return ordered;
}

}  // namespace fp4gemm
