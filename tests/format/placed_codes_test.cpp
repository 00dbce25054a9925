// placed_codes (format/placed_codes.hpp): on fresh random codes, the pairs the kernels extract from
// a placed word (placed_codes_to_bf16_bits, the same function the GPU runs) are the bf16 values
// E2M1 x 2^-126 of the original codes in k order, for every one of the 16 codes in both halves of
// all four pairs; sizes that are not whole words are refused.
#include "format/placed_codes.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "expect_error.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

TEST(PlacedCodes, ExtractedPairsAreTheCodesTimes2ToTheMinus126InKOrder) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> data(4 * 512);
  for (auto& b : data) b = std::uint8_t(rng());
  for (int c = 0; c < 16; ++c) data[std::size_t(c) / 2] = std::uint8_t(c * 0x11);  // every code everywhere
  const std::vector<std::uint8_t> placed = placed_codes(data);
  ASSERT_EQ(placed.size(), data.size());
  int checked = 0;
  for (std::size_t at = 0; at < data.size(); at += 4) {
    const std::uint32_t word = placed[at] | placed[at + 1] << 8 | placed[at + 2] << 16 | std::uint32_t(placed[at + 3]) << 24;
    std::uint32_t pairs[4];
    placed_codes_to_bf16_bits(word, pairs);
    for (int code = 0; code < 8; ++code) {
      const int nibble = (data[at + code / 2] >> (4 * (code % 2))) & 0xF;
      const std::uint32_t half = (pairs[code / 2] >> (16 * (code % 2))) & 0xFFFF;
      ASSERT_EQ(bf16_to_float(std::uint16_t(half)), std::ldexp(e2m1_to_float(std::uint8_t(nibble)), -126))
          << "word " << at / 4 << " code " << code << " nibble " << nibble << " bf16 " << half;
      ASSERT_EQ(half & ~0x81C0u, 0u) << "only the field bits may be set";
      ++checked;
    }
  }
  EXPECT_EQ(checked, int(data.size()) * 2);
}

TEST(PlacedCodes, RefusesPartialWords) {
  test::expect_error<InvalidArgument>([] { placed_codes(std::vector<std::uint8_t>(6)); },
                                      "6 bytes of codes are not whole 4-byte words");
}

}  // namespace
}  // namespace fp4gemm
