#pragma once
// cuda-wgmma kernel (sm_90a): D = alpha * A B^T with B block-scaled FP4 (NVFP4 or MXFP4, N x K,
// K-major, the weights) and A bf16 (M x K, K-major, the activations; w4a4 dequantizes FP4 A into
// such a buffer first, fp4_dequantize.cuh), on wgmma bf16 tensor cores with fp32 accumulation.
//
// It computes D^T = B A^T: the weights are wgmma's A operand (64 rows of N per consumer
// warpgroup) in registers, the activations wgmma's B operand (BM tokens = the MMA's N) in shared
// memory, so the FP4 weights are dequantized exactly where wgmma wants them, never stored as bf16.
//
// Algorithm (one CTA of 2 consumer warpgroups + 1 producer warp, persistent):
//  1. Tiles are BN = 128 weight rows x BM = 128 tokens; tile t covers weight rows
//     (t % tiles_n) * BN and tokens (t / tiles_n) * BM (weights fastest: CTAs resident together
//     share the token tile and sweep the weights, the smaller operand, which stay in L2). CTA b
//     takes tiles b, b + gridDim.x, ... Producer and consumers walk the same sequence, and a
//     K-tile counter `it` that runs on across tiles names the ring slot (it % STAGES) and the
//     barrier phase ((it / STAGES) & 1).
//  2. Producer warp, per K-tile of BK = 64: waits until the slot is free (empty barrier), then
//       lane 0: expects the TMA bytes on the full barrier and issues two TMA loads: the
//               activation box (64 k x 128 tokens, bf16, 128-byte swizzle) and the weight box
//               (32 bytes = 64 codes x 128 rows, unswizzled). Rows and k past the tensor are
//               zero-filled by TMA;
//       every lane: for 16 of the 128 rows x 4 chunks of 16 elements, cp.async of the aligned
//               4-byte word holding the chunk's scale byte (any alignment, either layout), zeros
//               for rows past N or chunks past K (so no garbage scale, e.g. NaN, meets a zero
//               code); then an arrive that fires when its copies have landed.
//  3. Consumer warpgroup c (rows 64c..64c+63 of the tile), thread (warp w, lane 4g + t), per
//     K-tile: waits on the full barrier; for its rows r = 64c + 16w + g (+ 8) reads the 32 code
//     bytes (two 16-byte loads) and the 4 scale words (one 16-byte load); per k16 step j builds
//     the A fragment: codes of k = 2t, 2t+1 (byte t of the step's 8 bytes) and of k = 2t+8, 2t+9
//     (byte t+4), gathered by one prmt, converted by e2m1x4_to_bf16 times the bf16x2 block scale
//     (exact, see mma_primitives.cuh); then wgmma.fence, 4 x wgmma m64n128k16 (A registers, B
//     descriptor advanced by 32 bytes per step inside the swizzle atom), commit.
//  4. The consumer then waits for its MMAs (wait_group 0) and releases the slot (one arrive per
//     warp on the empty barrier). Its next K-tile's fragments are built only after that: ptxas
//     serializes every wgmma (C7513) when registers a pending wgmma reads may be rewritten, so a
//     warpgroup does not overlap its own conversion with its MMAs; the two consumer warpgroups
//     interleave instead (one converts while the other's MMAs run).
//  5. Epilogue: after the last K-tile all MMAs are waited for; acc[4j + 2h + e] is D^T(row
//     16w + g + 8h, token 8j + 2t + e), stored transposed to D (M x N row-major) as alpha * acc in
//     f32/bf16/f16, bounds-checked; the producer meanwhile fills the slots of the next tile.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/kernel_args.cuh"
#include "cuda/mma_primitives.cuh"
#include "cuda/sm90_primitives.cuh"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/layout.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm::cuda::wgmma {

// The opt-in shared memory per block of sm_90 (H100, H200): 227 KB.
inline constexpr int kSmemLimit = 232448;

// A CTA tile: BN weight rows (64 per consumer warpgroup) x BM tokens, K-tiles of BK, STAGES slots.
template <int CONSUMERS_, int BM_, int BK_, int STAGES_>
struct TileConfig {
  static constexpr int kConsumers = CONSUMERS_;
  static constexpr int BN = 64 * kConsumers;  // weight rows: wgmma's M, 64 per warpgroup
  static constexpr int BM = BM_;              // tokens: wgmma's N
  static constexpr int BK = BK_;
  static constexpr int STAGES = STAGES_;
  static constexpr int kProducerWarp = 4 * kConsumers;
  static constexpr int kThreads = 128 * kConsumers + 32;
  static constexpr int kSteps = BK / 16;   // k16 MMA steps (= 16-element scale chunks) per K-tile
  static constexpr int kAcc = BM / 2;      // fp32 accumulators per thread (64 x BM / 128)

  static constexpr int kActBytes = BM * BK * 2;          // [BM][BK] bf16, 128-byte swizzle
  static constexpr int kWeightBytes = BN * BK / 2;       // [BN][BK/2] code bytes
  static constexpr int kScaleBytes = BN * kSteps * 4;    // [BN][kSteps] words holding the scale
  static constexpr int kStageBytes = kActBytes + kWeightBytes + kScaleBytes;
  static constexpr int kTmaBytes = kActBytes + kWeightBytes;  // the full barrier's transactions
  // 1024 bytes of slack: the dynamic shared memory is aligned to 1024 by hand.
  static constexpr int kSmemBytes = STAGES * kStageBytes + 1024;
  // Full barrier: lane 0's arrive.expect_tx + one cp.async arrive per producer lane.
  static constexpr unsigned kFullArrivals = 1 + 32;
  static constexpr unsigned kEmptyArrivals = 4 * kConsumers;  // one per consumer warp

  static_assert(BK == 64, "a K-tile of activations is one 128-byte swizzle atom per token row");
  static_assert(BM == 128, "the wgmma wrapper is m64n128k16");
  static_assert(kActBytes % 1024 == 0 && kStageBytes % 1024 == 0,
                "128-byte-swizzled tiles need 1024-byte alignment");
  static_assert(BN <= 256 && BM <= 256, "TMA boxes are at most 256 rows");
  static_assert((BN * kSteps) % 32 == 0 && 32 % kSteps == 0,
                "the producer lanes copy whole scale-word columns");
  static_assert(STAGES >= 2, "the ring overlaps loads with MMAs");
  static_assert(kSmemBytes <= kSmemLimit, "a config must fit 227 KB of shared memory");
};

// 128 weight rows x 128 tokens x 64, 8 slots (177 KB): one CTA per SM, 288 threads.
using Tile128 = TileConfig<2, 128, 64, 8>;

struct Params : GemmArgs {
  int tiles_n = 0, tiles = 0;  // N tiles; all tiles (tile = tile_m * tiles_n + tile_n)
  int k_tiles = 0;             // ceil(K / BK)
};

// Step 5 for one output dtype: acc[4j + 2h + e] = D(token m0 + 8j + 2t + e, column n0 + row + 8h),
// stored as store(index, alpha * acc) where inside M x N.
template <class Cfg, class Store>
__device__ __forceinline__ void store_tile(const Params& p, const float (&acc)[Cfg::kAcc],
                                           std::int64_t m0, std::int64_t n0, int row, int t,
                                           Store store) {
#pragma unroll
  for (int j = 0; j < Cfg::BM / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const std::int64_t m = m0 + 8 * j + 2 * t + e, n = n0 + row + 8 * h;
        if (m < p.m && n < p.n) store(m * p.n + n, p.alpha * acc[4 * j + 2 * h + e]);
      }
}

// Step 5: the dtype switch once per tile, not per element (RNE through the shared codecs).
template <class Cfg>
__device__ __forceinline__ void store_output(const Params& p, const float (&acc)[Cfg::kAcc],
                                             std::int64_t m0, std::int64_t n0, int row, int t) {
  std::uint16_t* half = static_cast<std::uint16_t*>(p.out);
  switch (p.out_dtype) {
    case DType::f32:
      store_tile<Cfg>(p, acc, m0, n0, row, t,
                      [&](std::int64_t i, float v) { static_cast<float*>(p.out)[i] = v; });
      break;
    case DType::bf16:
      store_tile<Cfg>(p, acc, m0, n0, row, t,
                      [&](std::int64_t i, float v) { half[i] = bf16_from_float(v); });
      break;
    case DType::f16:
      store_tile<Cfg>(p, acc, m0, n0, row, t,
                      [&](std::int64_t i, float v) { half[i] = fp16_from_float(v); });
      break;
  }
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// Step 2: the producer warp's loop.
template <class Cfg>
__device__ void produce(const Params& p, const CUtensorMap* act_map, const CUtensorMap* weight_map,
                        std::uint8_t* smem, std::uint64_t* full, std::uint64_t* empty) {
  constexpr int kRowsPerPass = 32 / Cfg::kSteps;
  constexpr int kPasses = Cfg::BN / kRowsPerPass;
  const int lane = int(threadIdx.x) % 32;
  const int chunk = lane % Cfg::kSteps, first_row = lane / Cfg::kSteps;
  const int block_shift = p.mxfp4 ? 5 : 4;
  const std::int64_t scale_cols = p.k >> block_shift;
  int it = 0;
  for (int tile = int(blockIdx.x); tile < p.tiles; tile += int(gridDim.x)) {
    const int n0 = (tile % p.tiles_n) * Cfg::BN, m0 = (tile / p.tiles_n) * Cfg::BM;
    std::int64_t row_part[kPasses];  // scale_offset(row, 0), or -1 past N
#pragma unroll
    for (int i = 0; i < kPasses; ++i) {
      const std::int64_t row = n0 + first_row + i * kRowsPerPass;
      row_part[i] = row < p.n ? scale_offset(p.layout, row, 0, scale_cols) : -1;
    }
    for (int kt = 0; kt < p.k_tiles; ++kt, ++it) {
      const int slot = it % Cfg::STAGES;
      sm90::mbarrier_wait(&empty[slot], ((it / Cfg::STAGES) & 1) ^ 1);
      std::uint8_t* stage = smem + slot * Cfg::kStageBytes;
      std::uint32_t* words = reinterpret_cast<std::uint32_t*>(stage + Cfg::kActBytes + Cfg::kWeightBytes);
      const std::int64_t k = std::int64_t(kt) * Cfg::BK + 16 * chunk;
      const std::int64_t k_part = scale_offset(p.layout, 0, k >> block_shift, scale_cols);
#pragma unroll
      for (int i = 0; i < kPasses; ++i) {
        std::uint32_t* dst = words + (first_row + i * kRowsPerPass) * Cfg::kSteps + chunk;
        if (k < p.k && row_part[i] >= 0)
          mma::copy_scale_word(dst, p.b, row_part[i] + k_part);
        else
          *dst = 0;
      }
      sm90::mbarrier_arrive_on_cp_async(&full[slot]);
      __syncwarp();  // every lane's plain stores precede lane 0's (releasing) arrive
      if (lane == 0) {
        sm90::mbarrier_arrive_expect_tx(&full[slot], Cfg::kTmaBytes);
        sm90::tma_load_2d(stage, act_map, &full[slot], kt * Cfg::BK, m0);
        sm90::tma_load_2d(stage + Cfg::kActBytes, weight_map, &full[slot], kt * Cfg::BK / 2, n0);
      }
    }
  }
  mma::cp_async_wait<0>();  // no thread leaves with its copies in flight
}

// Step 3: the A fragments of one K-tile for this thread's rows r0 = row, r1 = row + 8 (tile-local).
// frag[j] = {(r0, k 2t..2t+1), (r1, k 2t..2t+1), (r0, k 2t+8..2t+9), (r1, k 2t+8..2t+9)} of step j.
template <class Cfg>
__device__ __forceinline__ void load_fragments(const Params& p, const std::uint8_t* stage, int row,
                                               int t, std::int64_t kb0, const std::uint32_t (&lanes)[2],
                                               std::uint32_t (&frag)[Cfg::kSteps][4]) {
  static_assert(Cfg::kSteps == 4, "two 16-byte code loads and one scale-word load per row");
  const int block_shift = p.mxfp4 ? 5 : 4;
  const std::uint32_t gather = std::uint32_t(t) | (std::uint32_t(t + 4) << 4);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = row + 8 * h;
    const uint4* codes = reinterpret_cast<const uint4*>(stage + Cfg::kActBytes + r * (Cfg::BK / 2));
    const uint4 lo = codes[0], hi = codes[1];
    const uint4 words = *reinterpret_cast<const uint4*>(stage + Cfg::kActBytes + Cfg::kWeightBytes +
                                                       r * Cfg::kSteps * 4);
    const std::uint32_t step_lo[4] = {lo.x, lo.z, hi.x, hi.z}, step_hi[4] = {lo.y, lo.w, hi.y, hi.w};
    const std::uint32_t step_word[4] = {words.x, words.y, words.z, words.w};
#pragma unroll
    for (int j = 0; j < Cfg::kSteps; ++j) {
      const std::uint32_t kb = std::uint32_t((kb0 + 16 * j) >> block_shift);
      const std::uint32_t code = (step_word[j] >> (8 * ((lanes[h] + kb) & 3))) & 0xFF;
      mma::e2m1x4_to_bf16(mma::prmt(step_lo[j], step_hi[j], gather),
                          mma::scale_to_bf16x2(p.mxfp4, code), frag[j][h], frag[j][2 + h]);
    }
  }
}

// Steps 3-5: one consumer warpgroup's loop.
template <class Cfg>
__device__ void consume(const Params& p, std::uint8_t* smem, std::uint64_t* full,
                        std::uint64_t* empty) {
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int group = warp / 4, w = warp % 4, g = lane / 4, t = lane % 4;
  const int row = 64 * group + 16 * w + g;  // tile-local weight row (and row + 8)
  const int block_shift = p.mxfp4 ? 5 : 4;
  const std::int64_t scale_cols = p.k >> block_shift;
  int it = 0;
  for (int tile = int(blockIdx.x); tile < p.tiles; tile += int(gridDim.x)) {
    const std::int64_t n0 = std::int64_t(tile % p.tiles_n) * Cfg::BN;
    const std::int64_t m0 = std::int64_t(tile / p.tiles_n) * Cfg::BM;
    // Byte lanes of this thread's rows' scales in their words (row part; the k part is added per
    // chunk). Rows past N have zero words, so any lane reads zero.
    const std::uint32_t lanes[2] = {
        std::uint32_t(scale_offset(p.layout, n0 + row, 0, scale_cols) & 3),
        std::uint32_t(scale_offset(p.layout, n0 + row + 8, 0, scale_cols) & 3)};
    float acc[Cfg::kAcc];
#pragma unroll
    for (int i = 0; i < Cfg::kAcc; ++i) acc[i] = 0.0f;
    for (int kt = 0; kt < p.k_tiles; ++kt, ++it) {
      const int slot = it % Cfg::STAGES;
      sm90::mbarrier_wait(&full[slot], (it / Cfg::STAGES) & 1);
      const std::uint8_t* stage = smem + slot * Cfg::kStageBytes;
      std::uint64_t desc[Cfg::kSteps];
#pragma unroll
      for (int j = 0; j < Cfg::kSteps; ++j) desc[j] = sm90::sw128_kmajor_desc(stage, 32 * j);
      std::uint32_t frag[Cfg::kSteps][4];
      load_fragments<Cfg>(p, stage, row, t, std::int64_t(kt) * Cfg::BK, lanes, frag);
      sm90::wgmma_fence();
#pragma unroll
      for (int j = 0; j < Cfg::kSteps; ++j) sm90::wgmma_m64n128k16_rs(acc, frag[j], desc[j]);
      sm90::wgmma_commit();
      sm90::wgmma_wait<0>();  // the slot's MMAs are done (see step 4): release it
      __syncwarp();
      if (lane == 0) sm90::mbarrier_arrive(&empty[slot]);
    }
#pragma unroll
    for (int i = 0; i < Cfg::kAcc; ++i) sm90::fence_operand(acc[i]);

    store_output<Cfg>(p, acc, m0, n0, row, t);
  }
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// The kernel. Built for every architecture of the fatbinary, it has a body only on sm_90a; the
// backend admits only sm_90 devices, and an sm_90 image without the 'a' features traps rather
// than return without computing.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap act_map,
                      const __grid_constant__ CUtensorMap weight_map, const Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ std::uint8_t smem_raw[];
  __shared__ std::uint64_t full[Cfg::STAGES], empty[Cfg::STAGES];
  std::uint8_t* smem = smem_raw + ((1024 - (mma::smem_address(smem_raw) & 1023)) & 1023);
  if (threadIdx.x == 0) {
    for (int s = 0; s < Cfg::STAGES; ++s) {
      sm90::mbarrier_init(&full[s], Cfg::kFullArrivals);
      sm90::mbarrier_init(&empty[s], Cfg::kEmptyArrivals);
    }
    sm90::fence_barrier_init();
  }
  __syncthreads();
  if (int(threadIdx.x) / 32 == Cfg::kProducerWarp)
    produce<Cfg>(p, &act_map, &weight_map, smem, full, empty);
  else
    consume<Cfg>(p, smem, full, empty);
#else
  __trap();
#endif
}

}  // namespace fp4gemm::cuda::wgmma
