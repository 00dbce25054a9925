#include "format/tiles.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

void require_one_to_one(const TileOrder& order) {
  require(order.rows > 0 && order.units > 0 && order.slots > 0,
          "tile order: rows ({}), units ({}) and slots ({}) must be positive", order.rows, order.units, order.slots);
  std::vector<bool> used(std::size_t(order.slots), false);
  for (int r = 0; r < order.rows; ++r)
    for (int u = 0; u < order.units; ++u) {
      const int at = order.slot(r, u);
      require(at >= 0 && at < order.slots && !used[std::size_t(at)],
              "tile order: unit (row {}, unit {}) maps to slot {}, outside the {}-slot tile or taken by "
              "another unit", r, u, at, order.slots);
      used[std::size_t(at)] = true;
    }
}

std::int64_t tiles_of(std::int64_t rows, std::int64_t units, const TileOrder& order) {
  return (rows + order.rows - 1) / order.rows * ((units + order.units - 1) / order.units);
}

// The slot of unit (row, unit) of a tensor with `units` units per row.
std::int64_t slot_of(std::int64_t row, std::int64_t unit, std::int64_t units, const TileOrder& order) {
  const std::int64_t tile = (row / order.rows) * ((units + order.units - 1) / order.units) + unit / order.units;
  return tile * order.slots + order.slot(int(row % order.rows), int(unit % order.units));
}

std::int64_t code_units(std::int64_t cols) { return (cols + 31) / 32; }

}  // namespace

std::int64_t scale_tiles_bytes(std::int64_t rows, std::int64_t scale_cols, const TileOrder& order) {
  return tiles_of(rows, scale_cols, order) * order.slots;
}

std::int64_t code_tiles_bytes(std::int64_t rows, std::int64_t cols, const TileOrder& order) {
  return tiles_of(rows, code_units(cols), order) * order.slots * kCodeUnitBytes;
}

std::vector<std::uint8_t> tile_scales(const Fp4Tensor& tensor, const TileOrder& order) {
  require_one_to_one(order);
  std::vector<std::uint8_t> tiles(std::size_t(scale_tiles_bytes(tensor.rows, tensor.scale_cols(), order)), 0);
  for (std::int64_t row = 0; row < tensor.rows; ++row)
    for (std::int64_t kb = 0; kb < tensor.scale_cols(); ++kb)
      tiles[std::size_t(slot_of(row, kb, tensor.scale_cols(), order))] = tensor.scale_code(row, kb);
  return tiles;
}

std::vector<std::uint8_t> tile_codes(const std::vector<std::uint8_t>& codes, std::int64_t rows, std::int64_t cols,
                                     const TileOrder& order) {
  require(cols % 16 == 0, "tile_codes: cols = {} is not a multiple of 16", cols);
  require(std::int64_t(codes.size()) == rows * cols / 2, "tile_codes: {} code bytes for {} x {} codes (want {})",
          codes.size(), rows, cols, rows * cols / 2);
  require_one_to_one(order);
  const std::int64_t units = code_units(cols), row_bytes = cols / 2;
  std::vector<std::uint8_t> tiles(std::size_t(code_tiles_bytes(rows, cols, order)), 0);
  for (std::int64_t row = 0; row < rows; ++row)
    for (std::int64_t u = 0; u < units; ++u) {
      const std::int64_t first = u * kCodeUnitBytes;
      std::memcpy(&tiles[std::size_t(slot_of(row, u, units, order) * kCodeUnitBytes)],
                  &codes[std::size_t(row * row_bytes + first)],
                  std::size_t(std::min<std::int64_t>(kCodeUnitBytes, row_bytes - first)));
    }
  return tiles;
}

}  // namespace fp4gemm
