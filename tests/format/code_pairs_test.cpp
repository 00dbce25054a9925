// pair_ordered_codes (format/code_pairs.hpp): on fresh random bytes, nibble j of every packed word
// is nibble kPairOrderSource[j] of the original word, so that the bit placement's pair order
// (c'3, c'7), (c'2, c'6), (c'1, c'5), (c'0, c'4) reads the original codes in k order; the
// permutation is one-to-one; sizes that are not whole words are refused.
#include "format/code_pairs.hpp"

#include <gtest/gtest.h>

#include <random>
#include <set>

#include <fmt/format.h>

#include "expect_error.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

int nibble(const std::vector<std::uint8_t>& bytes, std::size_t word, int j) {
  return (bytes[word + j / 2] >> (4 * (j % 2))) & 0xF;
}

TEST(PairOrderedCodes, BitPlacementPairsReadTheOriginalCodesInKOrder) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> data(4 * 257);
  for (auto& b : data) b = std::uint8_t(rng());
  const std::vector<std::uint8_t> packed = pair_ordered_codes(data);
  ASSERT_EQ(packed.size(), data.size());
  for (std::size_t word = 0; word < data.size(); word += 4)
    for (int i = 0; i < 4; ++i) {  // pair i of the bit placement: (c'(3 - i), c'(7 - i))
      ASSERT_EQ(nibble(packed, word, 3 - i), nibble(data, word, 2 * i)) << "word " << word / 4 << " pair " << i;
      ASSERT_EQ(nibble(packed, word, 7 - i), nibble(data, word, 2 * i + 1)) << "word " << word / 4 << " pair " << i;
    }
  EXPECT_EQ(std::set<int>(std::begin(kPairOrderSource), std::end(kPairOrderSource)).size(), 8u);
}

TEST(PairOrderedCodes, RefusesPartialWords) {
  test::expect_error<InvalidArgument>([] { pair_ordered_codes(std::vector<std::uint8_t>(6)); },
                                      "6 bytes of codes are not whole 4-byte words");
}

}  // namespace
}  // namespace fp4gemm
