// fragment_ordered_codes (format/fragment_order.hpp), then placed_codes, as cuda-wgmma's prepare()
// packs B: on fresh random codes, the four bf16 pairs a lane extracts from its word of a 32-code
// group (placed_codes_to_bf16_bits, the function the GPU runs) are its register A fragment of the
// group's two k16 steps as the PTX ISA lays it out (lane 4g + t: k = 2t, 2t + 1 and 2t + 8, 2t + 9
// of each step; notes_wgmma.md, fact 1), written here from that rule, not from
// fragment_order_k; widths that are not whole groups and partial rows are refused.
#include "format/fragment_order.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "expect_error.hpp"
#include "format/placed_codes.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

TEST(FragmentOrder, EachLanesWordHoldsItsRegisterFragmentsOfTwoK16Steps) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  constexpr int kRows = 3, kCols = 96;  // three groups per row
  std::vector<std::uint8_t> data(kRows * kCols / 2);
  for (auto& b : data) b = std::uint8_t(rng());
  for (int c = 0; c < 16; ++c) data[std::size_t(c) / 2] = std::uint8_t(c * 0x11);  // every code
  const std::vector<std::uint8_t> packed = placed_codes(fragment_ordered_codes(data, kCols));
  ASSERT_EQ(packed.size(), data.size());
  const auto code_at = [&](int row, int k) {
    return (data[std::size_t(row * kCols + k) / 2] >> (4 * (k % 2))) & 0xF;
  };
  int checked = 0;
  for (int row = 0; row < kRows; ++row)
    for (int group = 0; group < kCols / 32; ++group)
      for (int t = 0; t < 4; ++t) {
        const std::size_t at = std::size_t(row * kCols + 32 * group) / 2 + 4 * std::size_t(t);
        const std::uint32_t word = packed[at] | packed[at + 1] << 8 | packed[at + 2] << 16 |
                                   std::uint32_t(packed[at + 3]) << 24;
        std::uint32_t pairs[4];
        placed_codes_to_bf16_bits(word, pairs);
        for (int step = 0; step < 2; ++step)
          for (int high_k = 0; high_k < 2; ++high_k)  // a0 / a1 (k 2t..) or a2 / a3 (k 2t + 8..)
            for (int e = 0; e < 2; ++e) {
              const int k = 32 * group + 16 * step + 8 * high_k + 2 * t + e;
              const std::uint32_t half = (pairs[2 * step + high_k] >> (16 * e)) & 0xFFFF;
              ASSERT_EQ(bf16_to_float(std::uint16_t(half)),
                        std::ldexp(e2m1_to_float(std::uint8_t(code_at(row, k))), -126))
                  << "row " << row << " k " << k << " lane t " << t;
              ++checked;
            }
      }
  EXPECT_EQ(checked, kRows * kCols);
}

TEST(FragmentOrder, RefusesWidthsThatAreNotWholeGroupsAndPartialRows) {
  test::expect_error<InvalidArgument>(
      [] { fragment_ordered_codes(std::vector<std::uint8_t>(48), 48); },
      "cols = 48 is not a positive multiple of 32");
  test::expect_error<InvalidArgument>(
      [] { fragment_ordered_codes(std::vector<std::uint8_t>(40), 64); },
      "40 code bytes are not whole rows of 64 codes");
}

}  // namespace
}  // namespace fp4gemm
