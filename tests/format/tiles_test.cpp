// tile_scales and tile_codes (format/tiles.hpp): on fresh random scale codes and codes with rows
// and K that are not multiples of the tile (K % 32 == 16 included), in both scale layouts, every
// scale byte and every 16-byte code unit lands at its tile's order.slot, every other byte is zero,
// the tile count is the rounded-up grid, and orders that leave the tile or collide, and code sizes
// that do not match, are refused with a message.
#include "format/tiles.hpp"

#include <gtest/gtest.h>

#include <random>

#include <fmt/format.h>

#include "expect_error.hpp"
#include "format/fp4_tensor_builder.hpp"
#include "fp4gemm/error.hpp"
#include "fp4gemm/layout.hpp"

namespace fp4gemm {
namespace {

Fp4Tensor random_scales_tensor(Fp4Format format, std::int64_t rows, std::int64_t cols, std::mt19937_64& rng) {
  const std::int64_t blocks = rows * (cols / block_size(format));
  std::vector<std::uint8_t> scale_codes(static_cast<std::size_t>(blocks));
  for (auto& c : scale_codes) c = std::uint8_t(1 + rng() % 254);  // never 0: a zero means padding
  return test::make_fp4_tensor(format, rows, cols, std::vector<std::uint8_t>(std::size_t(rows * cols), 0),
                               scale_codes, 1.0f);
}

// The decode kernel's order: 16 rows x 8 blocks, byte (r, j) at lane (r % 8, j / 2), word byte
// 2 (r / 8) + j % 2.
TileOrder lane_order() {
  return {16, 8, 128, [](int r, int j) { return ((r % 8) * 4 + j / 2) * 4 + (r / 8) * 2 + j % 2; }};
}

TEST(TileScales, EveryScaleAtItsOffsetAndZerosElsewhere) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  for (Fp4Format format : {Fp4Format::nvfp4, Fp4Format::mxfp4})
    for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled})
      for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 32}, {17, 160}, {40, 1088}, {129, 256}}) {
        SCOPED_TRACE(fmt::format("{} {} {}x{}", to_string(format), to_string(layout), rows, cols));
        const Fp4Tensor t = with_scale_layout(random_scales_tensor(format, rows, cols, rng), layout);
        const TileOrder order = lane_order();
        const std::vector<std::uint8_t> tiles = tile_scales(t, order);
        const std::int64_t row_tiles = (rows + 15) / 16, block_tiles = (t.scale_cols() + 7) / 8;
        ASSERT_EQ(std::int64_t(tiles.size()), row_tiles * block_tiles * 128);
        std::vector<bool> expected(tiles.size(), false);
        for (std::int64_t r = 0; r < rows; ++r)
          for (std::int64_t kb = 0; kb < t.scale_cols(); ++kb) {
            const std::size_t at =
                std::size_t(((r / 16) * block_tiles + kb / 8) * 128 + order.slot(int(r % 16), int(kb % 8)));
            ASSERT_EQ(tiles[at], t.scale_code(r, kb)) << "row " << r << " block " << kb;
            expected[at] = true;
          }
        for (std::size_t i = 0; i < tiles.size(); ++i)
          ASSERT_TRUE(expected[i] || tiles[i] == 0) << "padding byte " << i << " is " << int(tiles[i]);
      }
}

TEST(TileScales, RefusesOrdersThatLeaveTheTileOrCollide) {
  std::mt19937_64 rng(1);
  const Fp4Tensor t = random_scales_tensor(Fp4Format::nvfp4, 4, 64, rng);
  test::expect_error<InvalidArgument>([&] { tile_scales(t, {4, 4, 15, [](int r, int j) { return r * 4 + j; }}); },
                          "unit (row 3, unit 3) maps to slot 15, outside the 15-slot tile");
  test::expect_error<InvalidArgument>([&] { tile_scales(t, {4, 4, 16, [](int r, int) { return r; }}); },
                          "unit (row 0, unit 1) maps to slot 0");
  test::expect_error<InvalidArgument>([&] { tile_scales(t, {0, 4, 16, [](int r, int j) { return r * 4 + j; }}); },
                          "rows (0), units (4) and slots (16) must be positive");
}

// The decode kernel's code order: 16 rows x 4 units (128 k), row r's unit u at slot
// (r / 8) * 32 + 4 (r % 8) + u (lane (r % 8, u)'s slot of the row pair r / 8).
TileOrder decode_code_order() { return {16, 4, 64, [](int r, int u) { return (r / 8) * 32 + 4 * (r % 8) + u; }}; }

TEST(TileCodes, EveryUnitAtItsSlotAndZerosElsewhere) {
  const std::uint64_t seed = std::random_device{}();
  SCOPED_TRACE(fmt::format("seed {}", seed));
  std::mt19937_64 rng(seed);
  const TileOrder order = decode_code_order();
  for (auto [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1, 16}, {3, 48}, {17, 160}, {33, 256}, {40, 1088}}) {
    SCOPED_TRACE(fmt::format("{}x{}", rows, cols));
    const std::int64_t row_bytes = cols / 2, units = (cols + 31) / 32;
    std::vector<std::uint8_t> codes(std::size_t(rows * row_bytes));
    for (auto& c : codes) c = std::uint8_t(1 + rng() % 255);  // never 0: a zero means padding
    const std::vector<std::uint8_t> tiles = tile_codes(codes, rows, cols, order);
    const std::int64_t row_tiles = (rows + 15) / 16, unit_tiles = (units + 3) / 4;
    ASSERT_EQ(std::int64_t(tiles.size()), row_tiles * unit_tiles * 64 * 16);
    ASSERT_EQ(std::int64_t(tiles.size()), code_tiles_bytes(rows, cols, order));
    std::vector<bool> expected(tiles.size(), false);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t byte = 0; byte < row_bytes; ++byte) {
        const std::int64_t u = byte / 16;
        const std::size_t at = std::size_t(((r / 16) * unit_tiles + u / 4) * 64 * 16 +
                                           order.slot(int(r % 16), int(u % 4)) * 16 + byte % 16);
        ASSERT_EQ(tiles[at], codes[std::size_t(r * row_bytes + byte)]) << "row " << r << " byte " << byte;
        expected[at] = true;
      }
    for (std::size_t i = 0; i < tiles.size(); ++i)
      ASSERT_TRUE(expected[i] || tiles[i] == 0) << "padding byte " << i << " is " << int(tiles[i]);
  }
}

TEST(TileCodes, RefusesBadSizesAndOrders) {
  const std::vector<std::uint8_t> codes(64, 1);
  test::expect_error<InvalidArgument>([&] { tile_codes(codes, 4, 24, decode_code_order()); },
                                      "cols = 24 is not a multiple of 16");
  test::expect_error<InvalidArgument>([&] { tile_codes(codes, 3, 32, decode_code_order()); },
                                      "64 code bytes for 3 x 32 codes (want 48)");
  test::expect_error<InvalidArgument>([&] { tile_codes(codes, 4, 32, {4, 1, 3, [](int r, int) { return r; }}); },
                                      "unit (row 3, unit 0) maps to slot 3, outside the 3-slot tile");
}

}  // namespace
}  // namespace fp4gemm
