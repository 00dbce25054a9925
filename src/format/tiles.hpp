#pragma once
// B re-laid tile by tile in the order a GPU kernel consumes it (built once, in a backend's
// prepare(), like a serving engine's weight repacking at load time): its block scales, and for
// kernels that stream the codes with plain copies, its codes.
//
// A kernel that streams B in tiles of R rows x U units along K wants each tile in one contiguous,
// aligned piece (one TMA box or fully coalesced 16-byte copies, no per-row address arithmetic,
// no edge masks): tile (row tile rt, unit tile ut) starts at slot (rt * unit_tiles + ut) *
// order.slots, with unit_tiles = ceil(units per row / U); inside it, unit (row r, unit u) of the
// tile is at slot order.slot(r, u), a kernel-specific read order (e.g. what one lane reads
// together). A unit is one scale byte (tile_scales) or one 16-byte chunk of 32 codes (tile_codes).
// Slots of rows past the tensor, of units past K and slots no (r, u) maps to are zero, so a
// kernel multiplies zero codes by zero scales past the edges, never by a garbage scale (a NaN code
// times zero is NaN). Re-laying moves bytes only: results do not change.
#include <cstdint>
#include <functional>
#include <vector>

#include "fp4gemm/tensor.hpp"

namespace fp4gemm {

struct TileOrder {
  int rows = 0;   // R: rows per tile
  int units = 0;  // U: units per tile along K
  int slots = 0;  // slots per tile (>= every slot(r, u) + 1)
  std::function<int(int row, int unit)> slot;  // 0 <= slot(r, u) < slots, one-to-one
};

// The code bytes of one unit of tile_codes: 32 E2M1 codes.
inline constexpr int kCodeUnitBytes = 16;

// The size of the re-laid scales of a rows x (scale_cols blocks) tensor (a slot: one byte):
// ceil(rows / R) * ceil(scale_cols / U) * order.slots.
std::int64_t scale_tiles_bytes(std::int64_t rows, std::int64_t scale_cols, const TileOrder& order);
// The size of the re-laid codes of a rows x cols tensor (a slot: kCodeUnitBytes bytes, units of
// 32 codes, the last one of a row zero-padded when cols % 32 == 16).
std::int64_t code_tiles_bytes(std::int64_t rows, std::int64_t cols, const TileOrder& order);

// The re-laid scales (scale_tiles_bytes of them). Throws InvalidArgument for an order whose slots
// leave the tile or collide.
std::vector<std::uint8_t> tile_scales(const Fp4Tensor& tensor, const TileOrder& order);
// `codes` (rows x cols E2M1 codes, cols / 2 bytes per row, as Fp4Tensor::data or placed codes,
// which keep the byte positions of 8-code words) re-laid (code_tiles_bytes of them). Throws
// InvalidArgument for such an order, for cols not a multiple of 16 or a size that is not
// rows * cols / 2.
std::vector<std::uint8_t> tile_codes(const std::vector<std::uint8_t>& codes, std::int64_t rows,
                                     std::int64_t cols, const TileOrder& order);

}  // namespace fp4gemm
