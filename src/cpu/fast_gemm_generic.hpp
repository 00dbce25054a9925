#pragma once
// The kernels of cpu-fast, written once over an ISA's vector operations `Ops`; each ISA file
// (fast_gemm_scalar.cpp, fast_gemm_avx2.cpp, fast_gemm_avx512.cpp) instantiates them with its
// own Ops inside its `#pragma GCC target` region.
//
// Two rules keep one ISA's instructions out of another's code:
//   - everything here is a template of Ops, and each Ops type is local to its ISA file, so no
//     function is ever compiled for two ISAs under one name (the linker could pick either);
//   - every header included here is included by the ISA file before its target region, so that
//     standard-library code is compiled for the baseline ISA.
//
// Algorithm (shapes in elements; "chunk" = 2 * Ops::kLanes elements, fast_gemm_kernels.hpp):
//   1. decode_panel: for each weight row, each chunk's `lanes` code bytes are decoded by
//      Ops::decode into `even` and `odd` vectors of block values (E2M1 value x block scale, exact
//      in fp32) and stored in chunk order: a panel of rows x kc floats.
//   2. block_product: register-blocked dot products over one K block. For each kTileGroup
//      weight rows, step 1 decodes them (L1-resident), then every kTileM-row micro-tile of the
//      activation block (in L2) is multiplied with each kTileN of them: kTileM * kTileN vector
//      accumulators; each step along K loads kTileN weight and kTileM activation vectors and
//      issues kTileM * kTileN FMAs; at the end each accumulator is summed across its lanes (a
//      pairwise tree, four accumulators at once) and stored to, or added into, the output.
//   3. stream: for 1..kStreamRows activation rows, weights are decoded chunk by chunk straight
//      into registers and FMA-ed against the activations (kept in cache), kStreamCols weight
//      rows at a time: the weights are read once, as 4.5 (NVFP4) or 4.25 (MXFP4) bits per
//      element, which is what bounds decode-sized GEMMs.
//
// Ops provides: kLanes, kTileM, kTileN (weight rows per micro-tile), kStreamRows, kStreamCols
// (weight rows per streaming step), kStreamMaxM (see KernelTable);
// type Vec; zero(), load(p), store(p, v) (unaligned), fma(a, b, c) = a * b + c;
// reduce4(v[4], out[4]): out[j] = the sum of v[j]'s lanes as a pairwise tree; and
// decode<kBlock>(codes, scale_codes, scale_lut, even, odd): kLanes code bytes of one chunk,
// scale_codes pointing at the scale of the chunk's first block (the next one too when a chunk
// spans two blocks).
#include <array>
#include <cstdint>
#include <utility>

#include "cpu/fast_gemm_kernels.hpp"

namespace fp4gemm::cpu::generic {

// Step 1 for one block size.
template <class Ops, int kBlock>
void decode_panel_of(const WeightView& w, std::int64_t row0, std::int64_t rows, std::int64_t k0,
                     std::int64_t kc, float* panel) {
  constexpr int kLanes = Ops::kLanes;
  const std::int64_t code_stride = w.k_padded / 2, scale_stride = w.k_padded / kBlock;
  const float* lut = w.scale_lut;
  const bool has_next_block = k0 + kc < w.k_padded;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::uint8_t* codes = w.codes + (row0 + r) * code_stride + k0 / 2;
    const std::uint8_t* scales = w.scales + (row0 + r) * scale_stride + k0 / kBlock;
    float* out = panel + r * kc;
    for (std::int64_t kk = 0; kk < kc; kk += 2 * kLanes) {
      typename Ops::Vec even, odd;
      Ops::template decode<kBlock>(codes + kk / 2, scales + kk / kBlock, lut, even, odd);
      Ops::store(out + kk, even);
      Ops::store(out + kk + kLanes, odd);
    }
    // The caller comes back for this row's next K block once it has used this one with every
    // activation row; rows are read in short pieces (kc / 2 bytes) that the hardware
    // prefetchers do not follow, so ask for that block now, into L2.
    if (has_next_block) {
      for (std::int64_t b = 0; b < kc / 2; b += 64) __builtin_prefetch(codes + kc / 2 + b, 0, 2);
      __builtin_prefetch(scales + kc / kBlock, 0, 2);
    }
  }
}

template <class Ops>
void decode_panel(const WeightView& w, std::int64_t row0, std::int64_t rows, std::int64_t k0,
                  std::int64_t kc, float* panel) {
  if (w.block == 16) decode_panel_of<Ops, 16>(w, row0, rows, k0, kc, panel);
  else decode_panel_of<Ops, 32>(w, row0, rows, k0, kc, panel);
}

// Step 2's micro-tile: the kM x kN sums of a (kM rows, stride lda) times b (kN rows, stride
// kc) over kc, stored to or added into c[i][j] for i < rows, j < cols.
template <class Ops>
void micro_tile(const float* a, std::int64_t lda, const float* b, std::int64_t kc, float* c,
                std::int64_t ldc, std::int64_t rows, std::int64_t cols, bool accumulate) {
  constexpr int kM = Ops::kTileM, kN = Ops::kTileN;
  static_assert(kN == 4, "reduce4 sums four accumulators");
  typename Ops::Vec acc[kM][kN];
  for (auto& row : acc)
    for (auto& v : row) v = Ops::zero();
  for (std::int64_t k = 0; k < kc; k += Ops::kLanes) {
    typename Ops::Vec bv[kN];
#pragma GCC unroll 8
    for (int j = 0; j < kN; ++j) bv[j] = Ops::load(b + j * kc + k);
#pragma GCC unroll 8
    for (int i = 0; i < kM; ++i) {
      const typename Ops::Vec av = Ops::load(a + i * lda + k);
#pragma GCC unroll 8
      for (int j = 0; j < kN; ++j) acc[i][j] = Ops::fma(av, bv[j], acc[i][j]);
    }
  }
  for (std::int64_t i = 0; i < rows; ++i) {
    float sums[kN];
    Ops::reduce4(acc[i], sums);
    float* out = c + i * ldc;
    for (std::int64_t j = 0; j < cols; ++j) out[j] = accumulate ? out[j] + sums[j] : sums[j];
  }
}

// Step 2 (contract in KernelTable::block_product): kTileGroup weight rows at a time are decoded
// into `tile` (kTileGroup x kc floats: 16 KB at kc = 256, L1), then each activation micro-tile
// (tile_m x kc, read from L2 once) is multiplied with all of them while it sits in L1.
template <class Ops>
void block_product(const float* a, std::int64_t lda, std::int64_t a_rows, const WeightView& w,
                   std::int64_t n0, std::int64_t rows, std::int64_t k0, std::int64_t kc,
                   float* tile, float* c, std::int64_t ldc, std::int64_t m_valid,
                   std::int64_t n_valid, bool accumulate) {
  constexpr int kM = Ops::kTileM, kN = Ops::kTileN;
  static_assert(kTileGroup % kN == 0, "a group holds whole micro-tiles");
  for (std::int64_t g = 0; g < rows; g += kTileGroup) {
    const std::int64_t group_rows = rows - g < kTileGroup ? rows - g : kTileGroup;
    decode_panel<Ops>(w, n0 + g, group_rows, k0, kc, tile);
    for (std::int64_t m = 0; m < a_rows; m += kM) {
      const std::int64_t tile_rows = m_valid - m < kM ? m_valid - m : kM;
      for (std::int64_t n = g; n < g + group_rows; n += kN) {
        const std::int64_t cols = n_valid - n < kN ? n_valid - n : kN;
        micro_tile<Ops>(a + m * lda, lda, tile + (n - g) * kc, kc, c + m * ldc + n, ldc,
                        tile_rows, cols, accumulate);
      }
    }
  }
}

// Step 3 for kRows activation rows and one block size.
template <class Ops, int kBlock, int kRows>
void stream_rows(const float* a, std::int64_t lda, const WeightView& w, std::int64_t n_begin,
                 std::int64_t n_end, std::int64_t n_valid, float* c, std::int64_t ldc) {
  constexpr int kLanes = Ops::kLanes, kCols = Ops::kStreamCols;
  const std::int64_t code_stride = w.k_padded / 2, scale_stride = w.k_padded / kBlock;
  for (std::int64_t n = n_begin; n < n_end; n += kCols) {
    const std::uint8_t* codes = w.codes + n * code_stride;
    const std::uint8_t* scales = w.scales + n * scale_stride;
    typename Ops::Vec acc[kRows][kCols];
    for (auto& row : acc)
      for (auto& v : row) v = Ops::zero();
    for (std::int64_t k = 0; k < w.k_padded; k += 2 * kLanes) {
#pragma GCC unroll 8
      for (int j = 0; j < kCols; ++j) {
        typename Ops::Vec even, odd;
        Ops::template decode<kBlock>(codes + j * code_stride + k / 2,
                                     scales + j * scale_stride + k / kBlock, w.scale_lut, even,
                                     odd);
#pragma GCC unroll 8
        for (int i = 0; i < kRows; ++i) {
          acc[i][j] = Ops::fma(even, Ops::load(a + i * lda + k), acc[i][j]);
          acc[i][j] = Ops::fma(odd, Ops::load(a + i * lda + k + kLanes), acc[i][j]);
        }
      }
    }
    static_assert(kCols == 4, "reduce4 sums four accumulators");
    for (int i = 0; i < kRows; ++i) {
      float sums[kCols];
      Ops::reduce4(acc[i], sums);
      for (int j = 0; j < kCols && n + j < n_valid; ++j) c[i * ldc + n + j] = sums[j];
    }
  }
}

// stream_rows<Ops, kBlock, 1..sizeof...(kRows)> by row count - 1.
template <class Ops, int kBlock, std::size_t... kRows>
constexpr auto stream_by_rows(std::index_sequence<kRows...>) {
  return std::array{&stream_rows<Ops, kBlock, int(kRows) + 1>...};
}

// Step 3 (contract in KernelTable::stream).
template <class Ops>
void stream(const float* a, std::int64_t lda, int a_rows, const WeightView& w,
            std::int64_t n_begin, std::int64_t n_end, std::int64_t n_valid, float* c,
            std::int64_t ldc) {
  constexpr auto rows = std::make_index_sequence<Ops::kStreamRows>{};
  static constexpr auto nvfp4 = stream_by_rows<Ops, 16>(rows);
  static constexpr auto mxfp4 = stream_by_rows<Ops, 32>(rows);
  const auto& by_rows = w.block == 16 ? nvfp4 : mxfp4;
  by_rows[std::size_t(a_rows - 1)](a, lda, w, n_begin, n_end, n_valid, c, ldc);
}

template <class Ops>
constexpr KernelTable make_table() {
  static_assert(kKPad % (2 * Ops::kLanes) == 0, "a chunk must divide the K padding");
  static_assert(kRowPad % Ops::kTileN == 0 && kRowPad % Ops::kStreamCols == 0,
                "weight-row tiles must divide the row padding");
  KernelTable t;
  t.lanes = Ops::kLanes;
  t.tile_m = Ops::kTileM;
  t.stream_rows = Ops::kStreamRows;
  t.stream_max_m = Ops::kStreamMaxM;
  t.decode_panel = &decode_panel<Ops>;
  t.block_product = &block_product<Ops>;
  t.stream = &stream<Ops>;
  return t;
}

}  // namespace fp4gemm::cpu::generic
