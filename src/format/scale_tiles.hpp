#pragma once
// Block scales re-laid tile by tile in the order a GPU kernel consumes them (built once, in a
// backend's prepare(), like a serving engine's weight repacking at load time).
//
// A kernel that streams B in tiles of R rows x J scale blocks wants each tile's scale bytes in
// one contiguous, aligned piece (one bulk copy, no per-word address arithmetic, no edge masks):
//   tile (row tile rt, block tile bt) starts at (rt * block_tiles + bt) * order.bytes, with
//   block_tiles = ceil(K / block_size / J); inside it, byte (row r, block j) of the tile is at
//   order.offset(r, j), a kernel-specific read order (e.g. the bytes one lane reads together).
// Bytes of rows past the tensor, of blocks past K and at offsets no (r, j) maps to are zero, so a
// kernel that zero-fills the codes past the edges multiplies zero codes by zero scales, never by
// a garbage scale (a NaN code times zero is NaN). The source may use either scale layout; the
// bytes are the same scale codes, so results do not change.
#include <cstdint>
#include <functional>
#include <vector>

#include "fp4gemm/tensor.hpp"

namespace fp4gemm {

struct ScaleTileOrder {
  int rows = 0;    // R: rows per tile
  int blocks = 0;  // J: scale blocks per tile along K
  int bytes = 0;   // bytes per tile (>= every offset + 1)
  std::function<int(int row, int block)> offset;  // 0 <= offset(r, j) < bytes, one-to-one
};

// The size of the re-laid scales of a rows x (scale_cols blocks) tensor: ceil(rows / R) *
// ceil(scale_cols / J) tiles of order.bytes each.
std::int64_t scale_tiles_bytes(std::int64_t rows, std::int64_t scale_cols, const ScaleTileOrder& order);

// The re-laid scales (scale_tiles_bytes of them). Throws InvalidArgument for an order whose
// offsets leave the tile or collide.
std::vector<std::uint8_t> tile_scales(const Fp4Tensor& tensor, const ScaleTileOrder& order);

}  // namespace fp4gemm
