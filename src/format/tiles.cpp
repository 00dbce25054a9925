#include "format/tiles.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

// The order's slots as a table, slot(r, u) at r * units + u (one std::function call per unit of a
// tile, not per unit of a tensor of hundreds of MB); InvalidArgument unless one-to-one.
std::vector<int> checked_slots(const TileOrder& order) {
  require(order.rows > 0 && order.units > 0 && order.slots > 0,
          "tile order: rows ({}), units ({}) and slots ({}) must be positive", order.rows, order.units, order.slots);
  std::vector<bool> used(std::size_t(order.slots), false);
  std::vector<int> slots;
  for (int r = 0; r < order.rows; ++r)
    for (int u = 0; u < order.units; ++u) {
      const int at = order.slot(r, u);
      require(at >= 0 && at < order.slots && !used[std::size_t(at)],
              "tile order: unit (row {}, unit {}) maps to slot {}, outside the {}-slot tile or taken by "
              "another unit", r, u, at, order.slots);
      used[std::size_t(at)] = true;
      slots.push_back(at);
    }
  return slots;
}

std::int64_t tiles_of(std::int64_t rows, std::int64_t units, const TileOrder& order) {
  return (rows + order.rows - 1) / order.rows * ((units + order.units - 1) / order.units);
}

// Calls place(row, unit u of the row, its slot in the re-laid tensor) for every unit of a rows x
// units tensor; `slots` is checked_slots(order).
template <class Place>
void for_each_unit(std::int64_t rows, std::int64_t units, const TileOrder& order, const std::vector<int>& slots,
                   Place place) {
  const std::int64_t unit_tiles = (units + order.units - 1) / order.units;
  for (std::int64_t row = 0; row < rows; ++row) {
    const int* row_slots = &slots[std::size_t(row % order.rows) * std::size_t(order.units)];
    const std::int64_t first_tile = (row / order.rows) * unit_tiles;
    for (std::int64_t u = 0; u < units; ++u)
      place(row, u, (first_tile + u / order.units) * order.slots + row_slots[u % order.units]);
  }
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
  const std::vector<int> slots = checked_slots(order);
  std::vector<std::uint8_t> tiles(std::size_t(scale_tiles_bytes(tensor.rows, tensor.scale_cols(), order)), 0);
  for_each_unit(tensor.rows, tensor.scale_cols(), order, slots, [&](std::int64_t row, std::int64_t kb, std::int64_t slot) {
    tiles[std::size_t(slot)] = tensor.scale_code(row, kb);
  });
  return tiles;
}

std::vector<std::uint8_t> tile_codes(const std::vector<std::uint8_t>& codes, std::int64_t rows, std::int64_t cols,
                                     const TileOrder& order) {
  require(cols % 16 == 0, "tile_codes: cols = {} is not a multiple of 16", cols);
  require(std::int64_t(codes.size()) == rows * cols / 2, "tile_codes: {} code bytes for {} x {} codes (want {})",
          codes.size(), rows, cols, rows * cols / 2);
  const std::vector<int> slots = checked_slots(order);
  const std::int64_t row_bytes = cols / 2;
  std::vector<std::uint8_t> tiles(std::size_t(code_tiles_bytes(rows, cols, order)), 0);
  for_each_unit(rows, code_units(cols), order, slots, [&](std::int64_t row, std::int64_t u, std::int64_t slot) {
    const std::int64_t first = u * kCodeUnitBytes;
    std::memcpy(&tiles[std::size_t(slot * kCodeUnitBytes)], &codes[std::size_t(row * row_bytes + first)],
                std::size_t(std::min<std::int64_t>(kCodeUnitBytes, row_bytes - first)));
  });
  return tiles;
}

}  // namespace fp4gemm
