#include "format/scale_tiles.hpp"

#include <fmt/format.h>

#include "fp4gemm/error.hpp"

namespace fp4gemm {
namespace {

void require_one_to_one(const ScaleTileOrder& order) {
  require(order.rows > 0 && order.blocks > 0 && order.bytes > 0,
          "scale tile order: rows ({}), blocks ({}) and bytes ({}) must be positive", order.rows,
          order.blocks, order.bytes);
  std::vector<bool> used(std::size_t(order.bytes), false);
  for (int r = 0; r < order.rows; ++r)
    for (int j = 0; j < order.blocks; ++j) {
      const int at = order.offset(r, j);
      require(at >= 0 && at < order.bytes && !used[std::size_t(at)],
              "scale tile order: byte (row {}, block {}) maps to offset {}, outside the {}-byte "
              "tile or taken by another byte", r, j, at, order.bytes);
      used[std::size_t(at)] = true;
    }
}

}  // namespace

std::int64_t scale_tiles_bytes(std::int64_t rows, std::int64_t scale_cols, const ScaleTileOrder& order) {
  return (rows + order.rows - 1) / order.rows * ((scale_cols + order.blocks - 1) / order.blocks) * order.bytes;
}

std::vector<std::uint8_t> tile_scales(const Fp4Tensor& tensor, const ScaleTileOrder& order) {
  require_one_to_one(order);
  const std::int64_t block_tiles = (tensor.scale_cols() + order.blocks - 1) / order.blocks;
  std::vector<std::uint8_t> tiles(std::size_t(scale_tiles_bytes(tensor.rows, tensor.scale_cols(), order)), 0);
  for (std::int64_t row = 0; row < tensor.rows; ++row)
    for (std::int64_t kb = 0; kb < tensor.scale_cols(); ++kb) {
      const std::int64_t tile = (row / order.rows) * block_tiles + kb / order.blocks;
      tiles[std::size_t(tile * order.bytes + order.offset(int(row % order.rows), int(kb % order.blocks)))] =
          tensor.scale_code(row, kb);
    }
  return tiles;
}

}  // namespace fp4gemm
