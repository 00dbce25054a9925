#pragma once
// cuda-fp8-lossy kernel (sm_90a): D = alpha * A B^T on Hopper's FP8 tensor cores, from operands
// re-expressed as FP8 E4M3 with power-of-two fp32 block scales (format/fp8_blocks.hpp): the
// weights B (N x Kp codes, one scale per 128 x 128 block, converted once in prepare()) and the
// activations A (M x Kp codes, one scale per token per 128 k, quantized on the GPU by every
// call, fp8_quantize.hpp). Kp = K rounded up to 128 with zero codes, so every K-tile is whole.
// LOSSY: the error of the conversion is stated in fp8_blocks.hpp and fp8_backend.cu.
//
// Algorithm (one CTA = 2 consumer warpgroups + 1 producer warp, persistent):
//  1. Tiles are BM = 128 tokens x BN = 128 weight rows. Tile t is placed in groups of kGroupM
//     token tiles: within a group the token tile runs fastest, so the ~132 CTAs resident together
//     cover a few token tiles x ~17 weight tiles and share both operands in L2 (weights fastest
//     would stream all of a large B from memory once per token tile). CTA b takes tiles b,
//     b + gridDim.x, ...; producer and consumers walk the same sequence, and a K-tile counter
//     `it` running on across tiles names the ring slot (it % STAGES) and phase ((it / STAGES) & 1).
//  2. Producer warp, lane 0, per K-tile of BK = 128 (= one scale block): waits until the slot is
//     free (empty barrier), expects the bytes on the full barrier and issues three TMA loads:
//     activation codes [128 tokens][128 k] and weight codes [128 rows][128 k], both with the
//     128-byte swizzle wgmma reads (a row of 128 codes is one swizzle atom), and the tile's 128
//     activation scales of this K-block (one row of the [Kp/128][M] scale tensor). Tokens and
//     weight rows past M and N are zero-filled by TMA.
//  3. Consumer warpgroup c (tokens 64c..64c+63 of the tile), per K-tile: reads the K-block's
//     weight scale from global memory (ptxas places the load after the full-barrier wait; a
//     tile's scales share L1 lines, so it misses about once per 32 K-blocks), waits on the full
//     barrier, reads its two tokens' activation scales from shared memory, then wgmma.fence and
//     4 x wgmma m64n128k32 e4m3 (both operands by descriptor, advanced 32 bytes per k32 step
//     inside the swizzle atom) into a fresh fp32 `partial` (the first with scale-d = 0), commit,
//     wait_group 0, and releases the slot (one arrive per warp).
//  4. Promotion: acc += partial * (activation scale of the row x weight scale), in fp32. The
//     tensor cores accumulate an FP8 product sum with limited precision (about 14 bits: DeepSeek-V3
//     technical report, sec. 3.3.2), so sums are promoted to fp32 after every 128 k, as there;
//     the two scales are powers of two, so their product and the multiply are exact and the fp32
//     add is the only rounding. While one warpgroup promotes, the other's MMAs run.
//  5. Epilogue: acc[4j + 2h + e] is D(token m0 + 64c + 16w + g + 8h, column n0 + 8j + 2t + e),
//     stored as alpha * acc in f32/bf16/f16 (pairs of columns in one store when N is even),
//     bounds-checked; the producer meanwhile fills the slots of the next tile.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/mma_primitives.cuh"
#include "cuda/sm90_primitives.cuh"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm::cuda::fp8 {

// The opt-in shared memory per block of sm_90 (H100, H200): 227 KB.
inline constexpr int kSmemLimit = 232448;

template <int STAGES_, int GROUP_M_>
struct TileConfig {
  static constexpr int kConsumers = 2;
  static constexpr int BM = 64 * kConsumers;  // tokens: wgmma's M, 64 per consumer warpgroup
  static constexpr int BN = 128;              // weight rows: wgmma's N (= the weights' block rows)
  static constexpr int BK = 128;              // one scale block of K
  static constexpr int STAGES = STAGES_;
  static constexpr int kGroupM = GROUP_M_;    // token tiles per raster group (step 1)
  static constexpr int kProducerWarp = 4 * kConsumers;
  static constexpr int kThreads = 128 * kConsumers + 32;
  static constexpr int kSteps = BK / 32;  // k32 MMAs per K-tile
  static constexpr int kAcc = BN / 2;     // fp32 accumulators per thread (64 x BN / 128)

  static constexpr int kActBytes = BM * BK;     // [BM][BK] codes, 128-byte swizzle
  static constexpr int kWeightBytes = BN * BK;  // [BN][BK] codes, 128-byte swizzle
  static constexpr int kStageBytes = kActBytes + kWeightBytes;
  static constexpr int kScaleBytes = BM * 4;    // the tile's activation scales of one K-block
  static constexpr int kTmaBytes = kStageBytes + kScaleBytes;
  // Operand slots, then the scale slots; 1024 bytes of slack to align the base by hand.
  static constexpr int kSmemBytes = STAGES * (kStageBytes + kScaleBytes) + 1024;
  static constexpr unsigned kFullArrivals = 1;                // lane 0's arrive.expect_tx
  static constexpr unsigned kEmptyArrivals = 4 * kConsumers;  // one per consumer warp

  static_assert(BK == 128, "a K-tile row of E4M3 codes is one 128-byte swizzle atom; K-tile = scale block");
  static_assert(BN == 128, "the wgmma wrapper is m64n128k32 and one weight scale covers the tile");
  static_assert(kActBytes % 1024 == 0 && kWeightBytes % 1024 == 0 && (64 * BK) % 1024 == 0,
                "128-byte-swizzled tiles (and each warpgroup's 64-row half) need 1024-byte alignment");
  static_assert(BM <= 256 && BN <= 256, "TMA boxes are at most 256 rows");
  static_assert(STAGES >= 2, "the ring overlaps loads with MMAs");
  static_assert(kSmemBytes <= kSmemLimit, "a config must fit 227 KB of shared memory");
};

// 128 tokens x 128 weight rows x 128, 6 slots (196 KB): one CTA per SM, 288 threads.
using Tile128 = TileConfig<6, 8>;

struct Params {
  std::int64_t m = 0, n = 0;
  int k_blocks = 0;                        // Kp / 128
  int tiles_m = 0, tiles_n = 0, tiles = 0;
  const float* weight_scales = nullptr;    // [ceil(N / 128)][k_blocks]
  float alpha = 1.0f;                      // alpha_total
  DType out_dtype = DType::f32;
  void* out = nullptr;                     // M x N row-major
};

// Step 1: the tokens' and weight rows' first indices of tile `tile`.
template <class Cfg>
__device__ __forceinline__ void tile_origin(const Params& p, int tile, std::int64_t& m0, std::int64_t& n0) {
  const int per_group = Cfg::kGroupM * p.tiles_n;
  const int group = tile / per_group, first_m = group * Cfg::kGroupM;
  const int group_m = min(Cfg::kGroupM, p.tiles_m - first_m);  // the last group may be short
  const int in_group = tile - group * per_group;
  m0 = std::int64_t(first_m + in_group % group_m) * Cfg::BM;
  n0 = std::int64_t(in_group / group_m) * Cfg::BN;
}

// Step 5 for one output dtype: store(index, v0, v1, pair) writes alpha * acc of columns n, n + 1
// (pair: both inside N and N even, so one aligned store may take both).
template <class Cfg, class Store>
__device__ __forceinline__ void store_tile(const Params& p, const float (&acc)[Cfg::kAcc],
                                           std::int64_t m_row, std::int64_t n0, int t, Store store) {
  const bool even_n = (p.n & 1) == 0;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const std::int64_t m = m_row + 8 * h;
    if (m >= p.m) continue;
#pragma unroll
    for (int j = 0; j < Cfg::BN / 8; ++j) {
      const std::int64_t n = n0 + 8 * j + 2 * t;
      const float v0 = p.alpha * acc[4 * j + 2 * h], v1 = p.alpha * acc[4 * j + 2 * h + 1];
      if (n + 1 < p.n && even_n)
        store(m * p.n + n, v0, v1, true);
      else if (n < p.n)
        store(m * p.n + n, v0, v1, n + 1 < p.n);
    }
  }
}

template <class Cfg>
__device__ __forceinline__ void store_output(const Params& p, const float (&acc)[Cfg::kAcc],
                                             std::int64_t m_row, std::int64_t n0, int t) {
  switch (p.out_dtype) {
    case DType::f32: {
      float* out = static_cast<float*>(p.out);
      store_tile<Cfg>(p, acc, m_row, n0, t, [&](std::int64_t i, float v0, float v1, bool pair) {
        if (pair && (i & 1) == 0) {
          *reinterpret_cast<float2*>(out + i) = make_float2(v0, v1);
        } else {
          out[i] = v0;
          if (pair) out[i + 1] = v1;
        }
      });
      break;
    }
    case DType::bf16:
    case DType::f16: {
      std::uint16_t* out = static_cast<std::uint16_t*>(p.out);
      const bool bf16 = p.out_dtype == DType::bf16;
      store_tile<Cfg>(p, acc, m_row, n0, t, [&](std::int64_t i, float v0, float v1, bool pair) {
        const std::uint16_t h0 = bf16 ? bf16_from_float(v0) : fp16_from_float(v0);
        const std::uint16_t h1 = bf16 ? bf16_from_float(v1) : fp16_from_float(v1);
        if (pair && (i & 1) == 0) {
          *reinterpret_cast<std::uint32_t*>(out + i) = std::uint32_t(h0) | (std::uint32_t(h1) << 16);
        } else {
          out[i] = h0;
          if (pair) out[i + 1] = h1;
        }
      });
      break;
    }
  }
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Step 2: the producer warp's loop (lane 0 only).
template <class Cfg>
__device__ void produce(const Params& p, const CUtensorMap* act_map, const CUtensorMap* weight_map,
                        const CUtensorMap* scale_map, std::uint8_t* smem, float* act_scales,
                        std::uint64_t* full, std::uint64_t* empty) {
  int it = 0;
  for (int tile = int(blockIdx.x); tile < p.tiles; tile += int(gridDim.x)) {
    std::int64_t m0, n0;
    tile_origin<Cfg>(p, tile, m0, n0);
    for (int kb = 0; kb < p.k_blocks; ++kb, ++it) {
      const int slot = it % Cfg::STAGES;
      sm90::mbarrier_wait(&empty[slot], ((it / Cfg::STAGES) & 1) ^ 1);
      std::uint8_t* stage = smem + slot * Cfg::kStageBytes;
      sm90::mbarrier_arrive_expect_tx(&full[slot], Cfg::kTmaBytes);
      sm90::tma_load_2d(stage, act_map, &full[slot], kb * Cfg::BK, int(m0));
      sm90::tma_load_2d(stage + Cfg::kActBytes, weight_map, &full[slot], kb * Cfg::BK, int(n0));
      sm90::tma_load_2d(act_scales + slot * Cfg::BM, scale_map, &full[slot], int(m0), kb);
    }
  }
}

// Steps 3-5: one consumer warpgroup's loop.
template <class Cfg>
__device__ void consume(const Params& p, const std::uint8_t* smem, const float* act_scales,
                        std::uint64_t* full, std::uint64_t* empty) {
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int group = warp / 4, w = warp % 4, g = lane / 4, t = lane % 4;
  const int row = 64 * group + 16 * w + g;  // tile-local token of acc[.. 2h ..] with h = 0 (+ 8: h = 1)
  int it = 0;
  for (int tile = int(blockIdx.x); tile < p.tiles; tile += int(gridDim.x)) {
    std::int64_t m0, n0;
    tile_origin<Cfg>(p, tile, m0, n0);
    const float* weight_scales = p.weight_scales + (n0 / Cfg::BN) * p.k_blocks;
    float acc[Cfg::kAcc], partial[Cfg::kAcc];
#pragma unroll
    for (int i = 0; i < Cfg::kAcc; ++i) acc[i] = 0.0f;
    for (int kb = 0; kb < p.k_blocks; ++kb, ++it) {
      const int slot = it % Cfg::STAGES;
      const float weight_scale = __ldg(weight_scales + kb);
      sm90::mbarrier_wait(&full[slot], (it / Cfg::STAGES) & 1);
      const std::uint8_t* stage = smem + slot * Cfg::kStageBytes;
      const float scale0 = act_scales[slot * Cfg::BM + row] * weight_scale;      // exact
      const float scale1 = act_scales[slot * Cfg::BM + row + 8] * weight_scale;  // (powers of 2)
      const std::uint8_t* act_tile = stage + group * 64 * Cfg::BK;  // this warpgroup's 64 tokens
      sm90::wgmma_fence();
#pragma unroll
      for (int j = 0; j < Cfg::kSteps; ++j)
        sm90::wgmma_m64n128k32_e4m3_ss(partial, sm90::sw128_kmajor_desc(act_tile, 32 * j),
                                       sm90::sw128_kmajor_desc(stage + Cfg::kActBytes, 32 * j), j > 0);
      sm90::wgmma_commit();
      sm90::wgmma_wait<0>();
#pragma unroll
      for (int i = 0; i < Cfg::kAcc; ++i) sm90::fence_operand(partial[i]);
      __syncwarp();
      if (lane == 0) sm90::mbarrier_arrive(&empty[slot]);  // operands and scales consumed
#pragma unroll
      for (int i = 0; i < Cfg::kAcc; ++i) acc[i] = fmaf(partial[i], (i & 2) ? scale1 : scale0, acc[i]);
    }
    store_output<Cfg>(p, acc, m0 + row, n0, t);
  }
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// The kernel. Built for every architecture of the fatbinary, it has a body only on sm_90a; the
// backend admits only sm_90 devices, and an sm_90 image without the 'a' features traps rather
// than return without computing.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    fp8_gemm_kernel(const __grid_constant__ CUtensorMap act_map,
                    const __grid_constant__ CUtensorMap weight_map,
                    const __grid_constant__ CUtensorMap scale_map, const Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ std::uint8_t smem_raw[];
  __shared__ std::uint64_t full[Cfg::STAGES], empty[Cfg::STAGES];
  std::uint8_t* smem = smem_raw + ((1024 - (mma::smem_address(smem_raw) & 1023)) & 1023);
  float* act_scales = reinterpret_cast<float*>(smem + Cfg::STAGES * Cfg::kStageBytes);  // [STAGES][BM]
  if (threadIdx.x == 0) {
    for (int s = 0; s < Cfg::STAGES; ++s) {
      sm90::mbarrier_init(&full[s], Cfg::kFullArrivals);
      sm90::mbarrier_init(&empty[s], Cfg::kEmptyArrivals);
    }
    sm90::fence_barrier_init();
  }
  __syncthreads();
  if (int(threadIdx.x) / 32 == Cfg::kProducerWarp) {
    if (threadIdx.x % 32 == 0)
      produce<Cfg>(p, &act_map, &weight_map, &scale_map, smem, act_scales, full, empty);
  } else {
    consume<Cfg>(p, smem, act_scales, full, empty);
  }
#else
  __trap();
#endif
}

}  // namespace fp4gemm::cuda::fp8
