#pragma once
// cuda-mma kernel: D = alpha * A B^T with B block-scaled FP4 (NVFP4 or MXFP4, N x K, K-major) and
// A either FP4 of the same format (w4a4) or BF16 (w4a16), on mma.sync bf16 tensor cores (sm_80+).
//
// Algorithm (one CTA owns a BM x BN tile of D and the K-tiles of its split):
//  1. blockIdx.x -> (tile_m, tile_n), N fastest: CTAs resident together share A rows and sweep
//     all of B, which is the smaller operand (FP4) and stays in L2. blockIdx.y = split-K index.
//  2. cp.async pipeline of STAGES shared-memory slots; per K-tile of BK elements it stages
//     FP4 operands: 8 packed bytes per (row, 16-element chunk) plus the aligned 4-byte word that
//       holds the chunk's scale byte (scale_offset() of either layout, any alignment);
//     BF16 A: 16-byte chunks, XOR-swizzled so that the fragment loads are conflict-free.
//     Rows past M/N and chunks past K are zero-filled (K is a multiple of 16, so a chunk is
//     either wholly inside K or wholly outside; zero codes give zero values whatever the scale).
//  3. Warps tile the CTA tile WARPS_M x WARPS_N; each warp issues m16n8k16 bf16 MMAs with fp32
//     accumulators. Inside each 64-wide k-group the MMA's k slots are permuted (the same way for
//     A and B, so the dot product is unchanged): lane (g, t) owns k = 16t..16t+15, i.e. one
//     16-element chunk, one scale byte, and 8 contiguous FP4 bytes (one 8-byte load) per row.
//  4. Dequantization in registers: E2M1 codes -> bf16 by byte-permute table lookups, times the
//     block scale by a bf16x2 FMA. Exact: e2m1 x e4m3 has <= 6 significant bits and lies in
//     [2^-10, 2688]; e2m1 x ue8m0 is exact while |value| < 2^128 (scale codes <= 252, all a
//     quantizer makes from finite fp32 inputs), values below 2^-126 being bf16 subnormals.
//  5. Epilogue: with split-K every CTA writes its fp32 partial tile to the workspace; the last
//     CTA of a tile (atomic counter, reset after use) sums the partials in split order, so the
//     result is deterministic. Then D = alpha * acc, converted to f32/bf16/f16 (runtime
//     switch, RNE via the shared codecs), with bounds-checked (paired where aligned) stores.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/kernel_args.cuh"
#include "cuda/mma_primitives.cuh"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/layout.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm::cuda::mma {

// The largest opt-in shared memory per block of every sm_80+ GPU: 99 KB on sm_86/89/120
// (101,376 B), more elsewhere. Every config fits it, so one table serves every architecture.
inline constexpr int kSmemLimit = 101376;

// A CTA tile shape: BM x BN outputs, K-tiles of BK, WARPS_M x WARPS_N warps, STAGES slots.
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_>
struct TileConfig {
  static constexpr int BM = BM_, BN = BN_, BK = BK_;
  static constexpr int WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, STAGES = STAGES_;
  static constexpr int kThreads = 32 * WARPS_M * WARPS_N;
  static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;  // warp tile
  static constexpr int kMmaM = WM / 16, kMmaN = WN / 8;       // MMA tiles per warp
  static constexpr int kGroups = BK / 64;                     // 64-wide k-groups per K-tile
  static constexpr int kChunks = BK / 16;                     // 16-element chunks per row
  static_assert(BM % (16 * WARPS_M) == 0, "warp rows must be whole m16 MMA tiles");
  static_assert(BN % (8 * WARPS_N) == 0, "warp columns must be whole n8 MMA tiles");
  static_assert(kMmaN <= 16, "scale lanes of a warp's B rows are packed 2 bits each in 32 bits");
  static_assert(2 * kMmaM <= 16, "scale lanes of a warp's A rows are packed 2 bits each in 32 bits");
  static_assert(BK % 64 == 0, "the k-slot permutation works on 64-wide k-groups");
  static_assert(STAGES >= 2, "the pipeline keeps STAGES - 1 K-tiles in flight");

  // FP4 tile: kGroups blocks of [rows][32 bytes] codes, then kGroups blocks of [rows][4] words.
  static constexpr int fp4_tile_bytes(int rows) { return rows * BK / 2 + rows * kChunks * 4; }
  // BF16 tile: [rows][BK], 16-byte chunks XOR-swizzled by (row & 7).
  static constexpr int bf16_tile_bytes(int rows) { return rows * BK * 2; }
  static constexpr int a_tile_bytes(bool a_fp4) {
    return a_fp4 ? fp4_tile_bytes(BM) : bf16_tile_bytes(BM);
  }
  static constexpr int stage_bytes(bool a_fp4) { return a_tile_bytes(a_fp4) + fp4_tile_bytes(BN); }
  static constexpr int smem_bytes(bool a_fp4) { return STAGES * stage_bytes(a_fp4); }
  static_assert(smem_bytes(false) <= kSmemLimit && smem_bytes(true) <= kSmemLimit,
                "a config must fit the 99 KB of the smallest sm_80+ shared memory");
  static_assert(stage_bytes(false) % 128 == 0 && stage_bytes(true) % 128 == 0,
                "stages keep 128-byte alignment");
};

// Decode (M <= 16): one m16 row block, narrow N tiles so that split-K fills the GPU.
using TileM16 = TileConfig<16, 64, 128, 1, 4, 4>;
// Medium M (17..64).
using TileM64 = TileConfig<64, 128, 64, 2, 4, 4>;
// Large M: 64 x 32 warp tiles.
using TileM128 = TileConfig<128, 128, 64, 2, 4, 4>;

struct Params : GemmArgs {
  int tiles_n = 0;                         // N tiles (tile index = tile_m * tiles_n + tile_n)
  int k_tiles = 0;                         // ceil(K / BK)
  int k_tiles_per_split = 0;               // gridDim.y = splits
  // workspace: tiles x splits x BM x BN partials; counters: one per tile
};

__device__ __forceinline__ std::uint32_t base_lane(const Params& p, std::int64_t row,
                                                   std::int64_t scale_cols) {
  return std::uint32_t(scale_offset(p.layout, row, 0, scale_cols) & 3);
}

// ------------------------------------------------------------------ global -> shared copies
// Copies the K-tiles of one FP4 operand (ROWS rows from row0) into stages: per (row, 16-element
// chunk) 8 code bytes and the aligned word holding the chunk's scale. A thread always copies the
// same chunk column of the same rows, so its row pointers and the row parts of the scale
// offsets are computed once; a K-tile adds one k part.
template <class Cfg, int ROWS>
struct Fp4TileLoader {
  static_assert(Cfg::kThreads % Cfg::kChunks == 0, "a thread keeps one chunk column");
  static constexpr int kRowsPerPass = Cfg::kThreads / Cfg::kChunks;
  static constexpr int kPasses = (ROWS + kRowsPerPass - 1) / kRowsPerPass;

  Fp4View src;
  std::int64_t scale_cols;
  int block_shift, chunk, first_row;
  const std::uint8_t* row_data[kPasses];  // null: the row lies past the tile or the matrix
  std::int64_t row_scale[kPasses];        // scale_offset(row, 0)

  __device__ Fp4TileLoader(const Fp4View& view, const Params& p, std::int64_t rows,
                           std::int64_t row0, std::int64_t cols, int shift)
      : src(view), scale_cols(cols), block_shift(shift), chunk(int(threadIdx.x) % Cfg::kChunks),
        first_row(int(threadIdx.x) / Cfg::kChunks) {
#pragma unroll
    for (int i = 0; i < kPasses; ++i) {
      const int row = first_row + i * kRowsPerPass;
      const std::int64_t grow = row0 + row;
      const bool inside = row < ROWS && grow < rows;
      row_data[i] = inside ? src.data + grow * (p.k / 2) : nullptr;
      row_scale[i] = inside ? scale_offset(p.layout, grow, 0, scale_cols) : 0;
    }
  }

  __device__ void load(std::uint8_t* tile, const Params& p, std::int64_t k0) const {
    std::uint8_t* codes = tile;
    std::uint32_t* words = reinterpret_cast<std::uint32_t*>(tile + ROWS * Cfg::BK / 2);
    const std::int64_t k = k0 + 16 * chunk;
    const bool k_inside = k < p.k;
    const std::int64_t k_scale = scale_offset(p.layout, 0, k >> block_shift, scale_cols);
    const int group = chunk / 4, unit = chunk % 4;
#pragma unroll
    for (int i = 0; i < kPasses; ++i) {
      const int row = first_row + i * kRowsPerPass;
      if (ROWS % kRowsPerPass != 0 && row >= ROWS) break;
      const int at = (group * ROWS + row) * 4 + unit;  // in words; codes use 8-byte units
      const bool valid = k_inside && row_data[i] != nullptr;
      if (!valid) {
        cp_async_8(codes + at * 8, src.data, 0);
        cp_async_4(words + at, src.scales, 0);
        continue;
      }
      cp_async_8(codes + at * 8, row_data[i] + k / 2, 8);
      copy_scale_word(words + at, src, row_scale[i] + k_scale);
    }
  }
};

// Copies the K-tiles of bf16 A (BM rows from row0): 16-byte chunks, XOR-swizzled by (row & 7).
template <class Cfg>
struct Bf16TileLoader {
  static constexpr int kPerRow = Cfg::BK / 8;
  static_assert(Cfg::kThreads % kPerRow == 0, "a thread keeps one chunk column");
  static constexpr int kRowsPerPass = Cfg::kThreads / kPerRow;
  static constexpr int kPasses = (Cfg::BM + kRowsPerPass - 1) / kRowsPerPass;

  int chunk, first_row;
  const std::uint16_t* row_data[kPasses];  // null: the row lies past the tile or the matrix

  __device__ Bf16TileLoader(const Params& p, std::int64_t row0)
      : chunk(int(threadIdx.x) % kPerRow), first_row(int(threadIdx.x) / kPerRow) {
#pragma unroll
    for (int i = 0; i < kPasses; ++i) {
      const int row = first_row + i * kRowsPerPass;
      const std::int64_t grow = row0 + row;
      row_data[i] = row < Cfg::BM && grow < p.m ? p.a_bf16 + grow * p.k : nullptr;
    }
  }

  __device__ void load(std::uint8_t* tile, const Params& p, std::int64_t k0) const {
    const std::int64_t k = k0 + 8 * chunk;
    const bool k_inside = k < p.k;
#pragma unroll
    for (int i = 0; i < kPasses; ++i) {
      const int row = first_row + i * kRowsPerPass;
      if (Cfg::BM % kRowsPerPass != 0 && row >= Cfg::BM) break;
      const bool valid = k_inside && row_data[i] != nullptr;
      cp_async_16(tile + row * Cfg::BK * 2 + (chunk ^ (row & 7)) * 16,
                  valid ? row_data[i] + k : p.a_bf16, valid ? 16 : 0);
    }
  }
};

// ------------------------------------------------------------------ fragments from shared memory
// The 16 codes (8 bytes) and the bf16x2 scale of row `row` (tile-local), chunk t of k-group `group`.
template <int ROWS>
__device__ __forceinline__ uint2 fp4_codes(const std::uint8_t* tile, int group, int row, int t) {
  return *reinterpret_cast<const uint2*>(tile + ((group * ROWS + row) * 4 + t) * 8);
}
template <class Cfg, int ROWS>
__device__ __forceinline__ std::uint32_t fp4_scale(const std::uint8_t* tile, int group, int row,
                                                   int t, std::uint32_t lane, bool mxfp4) {
  const std::uint32_t* words = reinterpret_cast<const std::uint32_t*>(tile + ROWS * Cfg::BK / 2);
  const std::uint32_t word = words[(group * ROWS + row) * 4 + t];
  return scale_to_bf16x2(mxfp4, (word >> (8 * lane)) & 0xFF);
}
// Codes of k-step s (0..3) of a thread's chunk: nibbles 4s..4s+3.
__device__ __forceinline__ std::uint32_t step_codes(uint2 codes, int s) {
  return (s < 2 ? codes.x : codes.y) >> (16 * (s & 1));
}

// ------------------------------------------------------------------ the kernel
template <class Cfg, bool kAFp4>
__global__ void __launch_bounds__(Cfg::kThreads) mma_gemm_kernel(const Params p) {
  extern __shared__ __align__(128) std::uint8_t smem[];

  const int tid = int(threadIdx.x), lane = tid % 32, warp = tid / 32;
  const int warp_m = warp / Cfg::WARPS_N, warp_n = warp % Cfg::WARPS_N;
  const int g = lane / 4, t = lane % 4;  // MMA group / thread-in-group
  const int tile = int(blockIdx.x);
  const std::int64_t m0 = std::int64_t(tile / p.tiles_n) * Cfg::BM;
  const std::int64_t n0 = std::int64_t(tile % p.tiles_n) * Cfg::BN;
  const int block_shift = p.mxfp4 ? 5 : 4;
  const std::int64_t scale_cols = p.k >> block_shift;

  const int kt_begin = int(blockIdx.y) * p.k_tiles_per_split;
  const int kt_count = min(p.k_tiles_per_split, p.k_tiles - kt_begin);

  // Base scale lanes of this thread's rows (2 bits each).
  std::uint32_t b_lanes = 0, a_lanes = 0;
#pragma unroll
  for (int j = 0; j < Cfg::kMmaN; ++j)
    b_lanes |= base_lane(p, n0 + warp_n * Cfg::WN + j * 8 + g, scale_cols) << (2 * j);
  if constexpr (kAFp4) {
#pragma unroll
    for (int h = 0; h < 2 * Cfg::kMmaM; ++h)
      a_lanes |= base_lane(p, m0 + warp_m * Cfg::WM + (h / 2) * 16 + (h % 2) * 8 + g, scale_cols)
                 << (2 * h);
  }

  auto a_tile = [&](int slot) { return smem + slot * Cfg::stage_bytes(kAFp4); };
  auto b_tile = [&](int slot) { return a_tile(slot) + Cfg::a_tile_bytes(kAFp4); };
  const auto a_loader = [&] {
    if constexpr (kAFp4)
      return Fp4TileLoader<Cfg, Cfg::BM>(p.a_fp4, p, p.m, m0, scale_cols, block_shift);
    else
      return Bf16TileLoader<Cfg>(p, m0);
  }();
  const Fp4TileLoader<Cfg, Cfg::BN> b_loader(p.b, p, p.n, n0, scale_cols, block_shift);
  auto load_stage = [&](int slot, int kt) {
    const std::int64_t k0 = std::int64_t(kt) * Cfg::BK;
    a_loader.load(a_tile(slot), p, k0);
    b_loader.load(b_tile(slot), p, k0);
  };

  float acc[Cfg::kMmaM][Cfg::kMmaN][4] = {};

  // One K-tile from `slot`: per 64-wide k-group, lane (g, t) covers k = 16t..16t+15 in 4 k-steps.
  auto compute_stage = [&](int slot, int kt) {
    const std::uint8_t* at = a_tile(slot);
    const std::uint8_t* bt = b_tile(slot);
#pragma unroll
    for (int group = 0; group < Cfg::kGroups; ++group) {
      const std::uint32_t kb = std::uint32_t((std::int64_t(kt) * Cfg::BK + group * 64 + 16 * t) >>
                                             block_shift);
      uint2 b_codes[Cfg::kMmaN];
      std::uint32_t b_scale[Cfg::kMmaN];
#pragma unroll
      for (int j = 0; j < Cfg::kMmaN; ++j) {
        const int row = warp_n * Cfg::WN + j * 8 + g;
        b_codes[j] = fp4_codes<Cfg::BN>(bt, group, row, t);
        b_scale[j] = fp4_scale<Cfg, Cfg::BN>(bt, group, row, t, ((b_lanes >> (2 * j)) + kb) & 3,
                                             p.mxfp4);
      }
      uint2 a_codes[kAFp4 ? 2 * Cfg::kMmaM : 1];
      std::uint32_t a_scale[kAFp4 ? 2 * Cfg::kMmaM : 1];
      if constexpr (kAFp4) {
#pragma unroll
        for (int h = 0; h < 2 * Cfg::kMmaM; ++h) {
          const int row = warp_m * Cfg::WM + (h / 2) * 16 + (h % 2) * 8 + g;
          a_codes[h] = fp4_codes<Cfg::BM>(at, group, row, t);
          a_scale[h] = fp4_scale<Cfg, Cfg::BM>(at, group, row, t, ((a_lanes >> (2 * h)) + kb) & 3,
                                               p.mxfp4);
        }
      }
      uint4 a_bf16[kAFp4 ? 1 : 2 * Cfg::kMmaM];  // 8 bf16 of rows g / g+8: k-steps 2q, 2q+1
#pragma unroll
      for (int s = 0; s < 4; ++s) {
        std::uint32_t b_frag[Cfg::kMmaN][2];
#pragma unroll
        for (int j = 0; j < Cfg::kMmaN; ++j)
          e2m1x4_to_bf16(step_codes(b_codes[j], s), b_scale[j], b_frag[j][0], b_frag[j][1]);
        if constexpr (!kAFp4) {
          if (s % 2 == 0) {
#pragma unroll
            for (int h = 0; h < 2 * Cfg::kMmaM; ++h) {
              const int row = warp_m * Cfg::WM + (h / 2) * 16 + (h % 2) * 8 + g;
              const int chunk = group * 8 + 2 * t + s / 2;
              a_bf16[h] = *reinterpret_cast<const uint4*>(at + row * Cfg::BK * 2 +
                                                          (chunk ^ (row & 7)) * 16);
            }
          }
        }
#pragma unroll
        for (int i = 0; i < Cfg::kMmaM; ++i) {
          // a[0], a[2]: row g, k-slot pairs (2t, 2t+1), (2t+8, 2t+9); a[1], a[3]: row g + 8.
          std::uint32_t a_frag[4];
          if constexpr (kAFp4) {
            e2m1x4_to_bf16(step_codes(a_codes[2 * i], s), a_scale[2 * i], a_frag[0], a_frag[2]);
            e2m1x4_to_bf16(step_codes(a_codes[2 * i + 1], s), a_scale[2 * i + 1], a_frag[1],
                           a_frag[3]);
          } else {
            const uint4& lo = a_bf16[2 * i];
            const uint4& hi = a_bf16[2 * i + 1];
            a_frag[0] = s % 2 ? lo.z : lo.x;
            a_frag[2] = s % 2 ? lo.w : lo.y;
            a_frag[1] = s % 2 ? hi.z : hi.x;
            a_frag[3] = s % 2 ? hi.w : hi.y;
          }
#pragma unroll
          for (int j = 0; j < Cfg::kMmaN; ++j) mma_bf16_16816(acc[i][j], a_frag, b_frag[j]);
        }
      }
    }
  };

  // Pipeline: STAGES - 1 K-tiles in flight; the slot refilled in step i is the one computed in
  // step i - 1, which every warp has left once it passes this step's barrier.
#pragma unroll
  for (int s = 0; s < Cfg::STAGES - 1; ++s) {
    if (s < kt_count) load_stage(s, kt_begin + s);
    cp_async_commit();
  }
  for (int i = 0; i < kt_count; ++i) {
    cp_async_wait<Cfg::STAGES - 2>();  // K-tile i has landed (this thread's copies)
    __syncthreads();                   // ... and everyone's; slot (i - 1) % STAGES is free
    const int next = i + Cfg::STAGES - 1;
    if (next < kt_count) load_stage(next % Cfg::STAGES, kt_begin + next);
    cp_async_commit();
    compute_stage(i % Cfg::STAGES, kt_begin + i);
  }
  cp_async_wait<0>();

  // Split-K: partials to the workspace (acc order, coalesced float4), the last CTA sums them.
  const int splits = int(gridDim.y);
  if (splits > 1) {
    constexpr int kVectors = Cfg::kMmaM * Cfg::kMmaN;
    float4* tile_ws = reinterpret_cast<float4*>(p.workspace) +
                      std::int64_t(tile) * splits * kVectors * Cfg::kThreads;
    float4* mine = tile_ws + std::int64_t(blockIdx.y) * kVectors * Cfg::kThreads;
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::kMmaN; ++j)
        mine[(i * Cfg::kMmaN + j) * Cfg::kThreads + tid] =
            make_float4(acc[i][j][0], acc[i][j][1], acc[i][j][2], acc[i][j][3]);
    if (!last_to_arrive(&p.counters[tile], splits)) return;
    // Sum in split order (deterministic).
#pragma unroll
    for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
      for (int j = 0; j < Cfg::kMmaN; ++j) {
        const float4 sum = sum_partials(tile_ws + (i * Cfg::kMmaN + j) * Cfg::kThreads + tid,
                                        std::int64_t(kVectors) * Cfg::kThreads, splits);
        acc[i][j][0] = sum.x;
        acc[i][j][1] = sum.y;
        acc[i][j][2] = sum.z;
        acc[i][j][3] = sum.w;
      }
    if (tid == 0) p.counters[tile] = 0;  // ready for the next launch
  }

  // Epilogue: acc[i][j][2h + e] is D(row g + 8h, column 2t + e) of MMA tile (i, j).
  const bool paired = p.n % 2 == 0;  // then (row * N + even column) is pair-aligned
#pragma unroll
  for (int i = 0; i < Cfg::kMmaM; ++i)
#pragma unroll
    for (int j = 0; j < Cfg::kMmaN; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const std::int64_t row = m0 + warp_m * Cfg::WM + i * 16 + h * 8 + g;
        const std::int64_t col = n0 + warp_n * Cfg::WN + j * 8 + 2 * t;
        if (row >= p.m || col >= p.n) continue;
        const float v0 = p.alpha * acc[i][j][2 * h], v1 = p.alpha * acc[i][j][2 * h + 1];
        const std::int64_t offset = row * p.n + col;
        const bool both = col + 1 < p.n;
        switch (p.out_dtype) {
          case DType::f32: {
            float* out = static_cast<float*>(p.out) + offset;
            if (both && paired) {
              *reinterpret_cast<float2*>(out) = make_float2(v0, v1);
            } else {
              out[0] = v0;
              if (both) out[1] = v1;
            }
            break;
          }
          case DType::bf16:
          case DType::f16: {
            const bool bf = p.out_dtype == DType::bf16;
            const std::uint16_t h0 = bf ? bf16_from_float(v0) : fp16_from_float(v0);
            const std::uint16_t h1 = bf ? bf16_from_float(v1) : fp16_from_float(v1);
            std::uint16_t* out = static_cast<std::uint16_t*>(p.out) + offset;
            if (both && paired) {
              *reinterpret_cast<std::uint32_t*>(out) = std::uint32_t(h0) | (std::uint32_t(h1) << 16);
            } else {
              out[0] = h0;
              if (both) out[1] = h1;
            }
            break;
          }
        }
      }
}

}  // namespace fp4gemm::cuda::mma
