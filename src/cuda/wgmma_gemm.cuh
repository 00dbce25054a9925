#pragma once
// cuda-wgmma kernel (sm_90a): D = alpha * A B^T with B block-scaled FP4 (NVFP4 or MXFP4, N x K,
// K-major, the weights) and A bf16 (M x K, K-major, the activations; w4a4 dequantizes FP4 A into
// such a buffer first, fp4_dequantize.cuh), on wgmma bf16 tensor cores with fp32 accumulation.
//
// It computes D^T = B A^T: the weights are wgmma's A operand (64 rows of N per consumer
// warpgroup), rebuilt as exact bf16 in the registers where wgmma reads its A fragments, the
// activations wgmma's B operand (BM tokens = the MMA's N) in shared memory. Each consumer
// warpgroup converts the next K-tile's fragments into a second register set while its MMAs on the
// current one run (v6; v1 converted into one register set and ptxas serialized its wgmmas, v2-v3
// converted in three dedicated warps, which bounded the K-tile, v4 converted into shared memory,
// whose stores, proxy fence and warpgroup barrier bounded it: notes_wgmma.md).
//
// Algorithm (one CTA = 3 warpgroups, 384 threads, persistent):
//  1. Tiles are BN = 128 weight rows x BM tokens (BM = 32, 64, 128 or 256: the plan's); tile t
//     covers weight rows (t % tiles_n) * BN and tokens (t / tiles_n) * BM (weights fastest: CTAs
//     resident together share the token tile and sweep the weights, which stay in L2). With
//     split-K (small M: too few tiles for the SMs) unit u = split * tiles + tile takes the split's
//     k_tiles_per_split K-tiles. CTA b takes units b, b + gridDim.x, ... Every role walks the same
//     sequence of K-tiles, and a ring position that runs on across units (RingSlot: the slot,
//     and the barrier phase, which flips each time the slot index wraps) names where each K-tile
//     goes. A slot holds one K-tile (BK = 64):
//     the activations [BM][64] bf16 (TMA, 128-byte swizzle), the weight codes [128][32 B] (TMA)
//     and the scale tile [128][4 B].
//  2. Lane 0 of warp 0 (producer), per K-tile: waits until the slot is free (empty barrier),
//     expects the slot's bytes on the `loaded` barrier and issues the activation box (64 k x BM
//     tokens), the weight-code box (32 B x 128 rows) and the K-tile's 512-byte scale tile as a
//     third TMA box (4 rows of 128 B of the re-laid scales): prepare() re-lays B's scales tile by
//     tile (wgmma_scale_tile_order: row r's block scales of the K-tile in word r, zeros past N
//     and K, so no garbage scale such as a NaN meets a zero code). TMA zero-fills rows and k past
//     the tensor. (v2 copied the scales as 4-byte cp.async words, the pipeline's bottleneck; v3's
//     cp.async.bulk of the tile was as fast, but racecheck reported hazards against it that it
//     does not report for the TMA box, notes_wgmma.md.)
//  3. Conversion of one K-tile into register fragments (convert_fragments; lane 4g + t of warp w
//     of consumer warpgroup c): waits on `loaded`; for rows r = 64c + 16w + g and r + 8 it loads
//     the row's scale word and, per 32-code group (two k16 steps), the 4-byte word t, which
//     prepare() filled with exactly this lane's 8 codes of the group in fragment order
//     (format/fragment_order.hpp) as placed codes (format/placed_codes.hpp), and turns each word
//     into 4 bf16 pairs by bit placement (mma_primitives.cuh: E2M1 x 2^-126 exactly, times the
//     step's block scale x 2^118 for NVFP4, the result x 2^8 in step 5; MXFP4 x 2^126 then x the
//     scale): a0..a3 of the two steps (fact 1 of notes_wgmma.md). 6 shared loads, no stores, no
//     barrier: each lane only ever reads codes, and no other lane needs its fragments.
//  4. Warpgroups 1-2 (consumers; c = 0, 1 owns weight rows 64c..64c+63): step 3 for the CTA's
//     first K-tile into fragment set 0; then per K-tile (fragments in set P): wgmma.fence, issue
//     4 x wgmma m64nBMk16 (A: set P's fragments of the step, B: the activations; the descriptor
//     advances 32 bytes per k16 step inside the swizzle atom), commit, wait_group 1 (the previous
//     K-tile's MMAs are done: its slot is released, one arrive per warp on `empty`, and set 1 - P,
//     which they read, is free), and step 3 for the next K-tile of the sequence into set 1 - P
//     (after a unit's last, the next unit's first: before this unit's epilogue) while this one's
//     MMAs run. P alternates; each set is its own registers, so ptxas keeps the MMAs asynchronous.
//  5. Epilogue: after the last K-tile all MMAs are waited for and the last slot released;
//     acc[4j + 2h + e] is D^T(row 16w + g + 8h, token 8j + 2t + e), stored transposed to D (M x N
//     row-major) as alpha * acc in f32/bf16/f16 (the dtype switch once per tile), bounds-checked.
//     With split-K the partial tile goes to the workspace first and only the tile's last unit
//     (atomic counter) sums the partials in split order and stores (reduce_splits).
//     The producer meanwhile fills the next unit's first slots.
// Registers: 384 threads leave 168 per thread at launch; warpgroup 0 (one producing thread) gives
// all but 40 back and the consumers take 232 (setmaxnreg), which BM = 256's 128 accumulators plus
// two fragment sets (2 x 16) and the conversion need.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/kernel_args.cuh"
#include "cuda/mma_primitives.cuh"
#include "format/fragment_order.hpp"
#include "format/placed_codes.hpp"
#include "cuda/sm90_primitives.cuh"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/layout.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm::cuda::wgmma {

// The opt-in shared memory per block of sm_90 (H100, H200): 227 KB.
inline constexpr int kSmemLimit = 232448;

// A CTA tile: BN = 128 weight rows (64 per consumer warpgroup) x BM tokens, K-tiles of BK = 64,
// STAGES ring slots.
template <int BM_, int STAGES_, bool SPLIT_K_>
struct TileConfig {
  static constexpr int kConsumers = 2;
  static constexpr int BN = 64 * kConsumers;  // weight rows: wgmma's M, 64 per warpgroup
  static constexpr int BM = BM_;              // tokens: wgmma's N
  static constexpr int BK = 64;               // one 128-byte swizzle atom of bf16 per row
  static constexpr int STAGES = STAGES_;
  static constexpr bool kSplitK = SPLIT_K_;   // whether the kernel has the split-K reduction
  static constexpr int kThreads = 128 * (1 + kConsumers);  // producer warpgroup, consumers
  static constexpr int kSteps = BK / 16;   // k16 MMA steps (= NVFP4 scale blocks) per K-tile
  static constexpr int kGroups = BK / kFragmentGroupCodes;  // fragment-ordered groups per row
  static constexpr int kRowWords = BK / 8;  // 4-byte code words per row of a K-tile
  static constexpr int kAcc = BM / 2;      // fp32 accumulators per consumer thread (64 x BM / 128)
  // setmaxnreg: warpgroup 0 keeps 40 registers per thread, the consumers take 232
  // (40 x 128 + 232 x 256 <= 65,536).
  static constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;

  // Slot layout: the swizzled activation tile first (1024-byte aligned), then codes and scales.
  static constexpr int kActBytes = BM * BK * 2;          // [BM][BK] bf16, 128-byte swizzle
  static constexpr int kCodeBytes = BN * BK / 2;         // [BN][BK/2] code bytes
  static constexpr int kScaleBytes = BN * 4;             // [BN] words: a row's K-tile scales
  static constexpr int kCodeOffset = kActBytes;
  static constexpr int kScaleOffset = kCodeOffset + kCodeBytes;
  static constexpr int kStageBytes = (kScaleOffset + kScaleBytes + 1023) / 1024 * 1024;
  // The loaded barrier's transactions: the three TMA boxes (activations, codes, scale tile).
  static constexpr int kLoadedBytes = kActBytes + kCodeBytes + kScaleBytes;
  // 1024 bytes of slack: the dynamic shared memory is aligned to 1024 by hand.
  static constexpr int kSmemBytes = STAGES * kStageBytes + 1024;
  // loaded: the producer's arrive.expect_tx; empty: one arrive per consumer warp.
  static constexpr unsigned kLoadedArrivals = 1;
  static constexpr unsigned kEmptyArrivals = 4 * kConsumers;

  static_assert(BM == 32 || BM == 64 || BM == 128 || BM == 256,
                "the wgmma wrapper is m64n{32,64,128,256}k16");
  static_assert(kActBytes % 1024 == 0 && kStageBytes % 1024 == 0,
                "128-byte-swizzled tiles need 1024-byte alignment");
  static_assert(BN <= 256 && BM <= 256, "TMA boxes are at most 256 rows");
  static_assert(kGroups * 2 == kSteps, "a fragment-ordered group holds two k16 steps");
  static_assert(kProducerRegisters * 128 + kConsumerRegisters * 128 * kConsumers <= 65536,
                "setmaxnreg cannot hand out more than the SM's 64K registers");
  static_assert(kSteps <= 4, "a row's scales of one K-tile fit its 4-byte word");
  static_assert(STAGES >= 3, "the ring holds the K-tile in MMA, the one converted and loads ahead");
  static_assert(kSmemBytes <= kSmemLimit, "a config must fit 227 KB of shared memory");
};

// 128 weight rows x 256 tokens, 6 slots of 37 KB (223 KB), no split-K (before setmaxnreg the
// reduction's code made ptxas spill at 168 registers; not re-tried); 128 x 128, 8 slots of 21 KB
// (169 KB), with split-K (small M). 128 x 64 (12 slots of 13 KB, 157 KB) and 128 x 32 (16 slots
// of 9 KB, 145 KB), with split-K: decode-sized M, where the 128-token tile's MMAs are 3/4 zero
// rows. A slot carries only 4.5 KB of weights, and one CTA per SM streams its 1/132 of the HBM
// rate only with ~24 KB outstanding (rate x DRAM latency), so the rings are deep: 54 / 72 KB of
// weights in flight.
using Tile256 = TileConfig<256, 6, false>;
using Tile128 = TileConfig<128, 8, true>;
using Tile64 = TileConfig<64, 12, true>;
using Tile32 = TileConfig<32, 16, true>;

// One K-tile's register A fragments of a consumer thread: [k16 step][a0..a3] (fact 1).
template <class Cfg>
using Fragments = std::uint32_t[Cfg::kSteps][4];

struct Params : GemmArgs {
  int tiles_n = 0, tiles = 0;  // N tiles; all tiles (tile = tile_m * tiles_n + tile_n)
  int k_tiles = 0;             // ceil(K / BK)
  int splits = 1;              // split-K: units = tiles x splits, unit = split * tiles + tile
  int k_tiles_per_split = 0;   // the last split may take fewer
  int units = 0;
};

// One work unit of the persistent loop (step 1): an output tile and the K-tiles of its split.
struct Unit {
  int tile, split, kt_begin, kt_end;
  std::int64_t n0, m0;  // first weight row, first token
};
template <class Cfg>
__device__ __forceinline__ Unit unit_of(const Params& p, int u) {
  Unit w;
  w.tile = u % p.tiles;
  w.split = u / p.tiles;
  w.kt_begin = w.split * p.k_tiles_per_split;
  w.kt_end = min(p.k_tiles, w.kt_begin + p.k_tiles_per_split);
  w.n0 = std::int64_t(w.tile % p.tiles_n) * Cfg::BN;
  w.m0 = std::int64_t(w.tile / p.tiles_n) * Cfg::BM;
  return w;
}

// A K-tile's place in the ring (step 1): slot index and barrier phase, advanced by one K-tile at a
// time (no division by STAGES, which is not a power of two).
template <class Cfg>
struct RingSlot {
  int slot = 0;
  std::uint32_t phase = 0;
  __device__ __forceinline__ RingSlot next() const {
    return slot + 1 == Cfg::STAGES ? RingSlot{0, phase ^ 1u} : RingSlot{slot + 1, phase};
  }
};

// Step 5 for one output dtype: acc[4j + 2h + e] = D(token m0 + 8j + 2t + e, column n0 + row + 8h),
// stored as store(index, alpha * acc) where inside M x N.
template <class Cfg, class Store>
__device__ __forceinline__ void store_tile(const Params& p, const float (&acc)[Cfg::kAcc],
                                           std::int64_t m0, std::int64_t n0, int row, int t,
                                           Store store) {
  // NVFP4 weights were converted as E2M1 x scale x 2^-kNvfp4Shift (step 3): the power of two
  // goes back here, exactly, folded into alpha.
  const float alpha = p.mxfp4 ? p.alpha : p.alpha * float(1 << mma::kNvfp4Shift);
  // A tile wholly inside D (all but the last row and column of tiles) stores without a bounds
  // check per element: its indices are this thread's first plus multiples of N and 8.
  const auto store_all = [&](auto checked) {
    const std::int64_t first = (m0 + 2 * t) * p.n + n0 + row;
#pragma unroll
    for (int j = 0; j < Cfg::BM / 8; ++j)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int dm = 8 * j + e, dn = 8 * h;
          if (!checked.value || (m0 + 2 * t + dm < p.m && n0 + row + dn < p.n))
            store(first + dm * p.n + dn, alpha * acc[4 * j + 2 * h + e]);
        }
  };
  if (m0 + Cfg::BM <= p.m && n0 + Cfg::BN <= p.n)
    store_all(std::false_type{});
  else
    store_all(std::true_type{});
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

// The ring's barriers (step 1).
struct Barriers {
  std::uint64_t* loaded;  // TMA boxes and the scale tile landed
  std::uint64_t* empty;   // the consumers' MMAs on the slot are done
};

// Step 2: the producer's loop (lane 0 of warp 0; the other lanes have nothing to do).
template <class Cfg>
__device__ void produce(const Params& p, const CUtensorMap* act_map, const CUtensorMap* code_map,
                        const CUtensorMap* scale_map, std::uint8_t* smem, const Barriers& bar) {
  if (threadIdx.x != 0) return;
  RingSlot<Cfg> at;
  for (int u = int(blockIdx.x); u < p.units; u += int(gridDim.x)) {
    const Unit w = unit_of<Cfg>(p, u);
    const int first_scale_row = (w.tile % p.tiles_n) * p.k_tiles * (Cfg::kScaleBytes / 128);
    for (int kt = w.kt_begin; kt < w.kt_end; ++kt, at = at.next()) {
      sm90::mbarrier_wait(&bar.empty[at.slot], at.phase ^ 1u);
      std::uint8_t* stage = smem + at.slot * Cfg::kStageBytes;
      std::uint64_t* loaded = &bar.loaded[at.slot];
      sm90::mbarrier_arrive_expect_tx(loaded, Cfg::kLoadedBytes);
      sm90::tma_load_2d(stage, act_map, loaded, kt * Cfg::BK, int(w.m0));
      sm90::tma_load_2d(stage + Cfg::kCodeOffset, code_map, loaded, kt * Cfg::BK / 2, int(w.n0));
      sm90::tma_load_2d(stage + Cfg::kScaleOffset, scale_map, loaded, 0,
                        first_scale_row + kt * (Cfg::kScaleBytes / 128));
    }
  }
}

// Step 3: the fragments of the K-tile in `stage` for consumer lane 4g + t of the warp whose rows
// are `row` = 64c + 16w + g and row + 8 (tile-local), once `loaded` (parity `phase`) says the
// slot's boxes landed; the format is a template parameter, so that the conversion is one basic
// block. Code word t of group j of a row is at word kRowWords * row + 4j + t.
template <class Cfg, bool kMxfp4>
__device__ __forceinline__ void convert_fragments(const std::uint8_t* stage, std::uint64_t* loaded,
                                                  std::uint32_t phase, int row, int t,
                                                  Fragments<Cfg>& frag) {
  sm90::mbarrier_wait(loaded, phase);
  const std::uint32_t* codes = reinterpret_cast<const std::uint32_t*>(stage + Cfg::kCodeOffset);
  const std::uint32_t* words = reinterpret_cast<const std::uint32_t*>(stage + Cfg::kScaleOffset);
  std::uint32_t code_word[2][Cfg::kGroups], scale_word[2];  // [row, row + 8]
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    scale_word[h] = words[row + 8 * h];
#pragma unroll
    for (int j = 0; j < Cfg::kGroups; ++j)
      code_word[h][j] = codes[(row + 8 * h) * Cfg::kRowWords + 4 * j + t];
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    std::uint32_t scale2[Cfg::kSteps];  // the block scale of each k16 step, in both halves
    if constexpr (kMxfp4) {
#pragma unroll
      for (int s = 0; s < Cfg::kSteps; ++s)  // one 32-element block per group
        scale2[s] = mma::scale_to_bf16x2(true, (scale_word[h] >> (8 * (s / 2))) & 0xFF);
    } else {
#pragma unroll
      for (int s = 0; s < Cfg::kSteps; s += 2)  // bytes s, s + 1 (the conversion reads 16 bits)
        mma::nvfp4_scale_x2_to_bf16x2(scale_word[h] >> (8 * s), scale2[s], scale2[s + 1]);
    }
#pragma unroll
    for (int j = 0; j < Cfg::kGroups; ++j) {
      std::uint32_t v[4];  // (step 2j: k 2t.., 2t + 8..), (step 2j + 1: the same)
      placed_codes_to_bf16_bits(code_word[h][j], v);
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int s = 2 * j + q / 2;
        frag[s][h + 2 * (q % 2)] =
            mma::bf16x2_mul(kMxfp4 ? mma::e2m1_bits_to_bf16_times_2_126(v[q]) : v[q], scale2[s]);
      }
    }
  }
}

// Step 5 with split-K: every unit writes its fp32 partial tile to the workspace (float4 per
// consumer thread, coalesced); the last unit of a tile (last_to_arrive's handshake, its counter
// reset after use) sums the partials in split order (bit-reproducible) into acc and returns true.
// Consumer threads only (named barrier 1 of 256 threads); `last` is a shared flag.
template <class Cfg>
__device__ __forceinline__ bool reduce_splits(const Params& p, const Unit& w, int thread,
                                              float (&acc)[Cfg::kAcc], int* last) {
  constexpr int kThreads = 128 * Cfg::kConsumers, kVectors = Cfg::kAcc / 4;
  float4* tile_ws = reinterpret_cast<float4*>(p.workspace) +
                    std::int64_t(w.tile) * p.splits * kVectors * kThreads;
  float4* mine = tile_ws + std::int64_t(w.split) * kVectors * kThreads;
#pragma unroll
  for (int v = 0; v < kVectors; ++v)
    mine[v * kThreads + thread] =
        make_float4(acc[4 * v], acc[4 * v + 1], acc[4 * v + 2], acc[4 * v + 3]);
  if (!last_to_arrive(&p.counters[w.tile], p.splits, thread == 0, last,
                      [] { sm90::named_barrier_sync(1, kThreads); }))
    return false;
#pragma unroll
  for (int v = 0; v < kVectors; ++v) {
    const float4 sum = sum_partials(tile_ws + v * kThreads + thread,
                                    std::int64_t(kVectors) * kThreads, p.splits);
    acc[4 * v] = sum.x;
    acc[4 * v + 1] = sum.y;
    acc[4 * v + 2] = sum.z;
    acc[4 * v + 3] = sum.w;
  }
  if (thread == 0) p.counters[w.tile] = 0;  // ready for the next launch
  return true;
}

// Steps 3-5: one consumer warpgroup's loop (thread = threadIdx.x - 128).
template <class Cfg, bool kMxfp4>
__device__ void consume_format(const Params& p, std::uint8_t* smem, const Barriers& bar, int* last) {
  const int thread = int(threadIdx.x) - 128;
  const int group = thread / 128, warp = (thread / 32) % 4, lane = thread % 32;
  const int g = lane / 4, t = lane % 4;
  const int row = 64 * group + 16 * warp + g;  // tile-local weight row (and row + 8)
  Fragments<Cfg> frag[2];
  // Step 3 for the K-tile at ring position `at` into fragment set `set`.
  const auto convert = [&](RingSlot<Cfg> at, auto set) {
    convert_fragments<Cfg, kMxfp4>(smem + at.slot * Cfg::kStageBytes, &bar.loaded[at.slot],
                                   at.phase, row, t, frag[set.value]);
  };
  // Step 4 for the K-tile at `at`, its fragments in set P; `previous` is the K-tile before it
  // (released here unless this is a unit's first); then the next K-tile's fragments into 1 - P.
  const auto mma_step = [&](auto set, float (&acc)[Cfg::kAcc], RingSlot<Cfg> at,
                            RingSlot<Cfg> previous, bool release_previous, bool convert_next) {
    constexpr int P = decltype(set)::value;
    // The k16 step's descriptor is the K-tile's plus 32 bytes (2 in the >> 4 address field) per
    // step: the slot is 1024-byte aligned, so the field never carries.
    const std::uint64_t desc = sm90::sw128_kmajor_desc(smem + at.slot * Cfg::kStageBytes, 0);
    sm90::wgmma_fence();
#pragma unroll
    for (int j = 0; j < Cfg::kSteps; ++j)
      sm90::wgmma_m64k16_rs<Cfg::BM>(acc, frag[P][j], desc + 2 * j);
    sm90::wgmma_commit();
    sm90::wgmma_wait<1>();  // the previous K-tile's MMAs are done: its slot and set 1 - P are free
    if (release_previous && lane == 0) sm90::mbarrier_arrive(&bar.empty[previous.slot]);
    if (convert_next) convert(at.next(), std::integral_constant<int, 1 - P>{});
  };
  RingSlot<Cfg> at, previous;
  int set = 0;
  if (int(blockIdx.x) < p.units) convert(at, std::integral_constant<int, 0>{});
  for (int u = int(blockIdx.x); u < p.units; u += int(gridDim.x)) {
    const Unit w = unit_of<Cfg>(p, u);
    const bool next_unit = u + int(gridDim.x) < p.units;
    float acc[Cfg::kAcc];
#pragma unroll
    for (int i = 0; i < Cfg::kAcc; ++i) acc[i] = 0.0f;
    for (int kt = w.kt_begin; kt < w.kt_end; ++kt, previous = at, at = at.next(), set ^= 1) {
      // The next K-tile of the sequence (the next unit's first after this unit's last, before
      // the epilogue) is converted while this K-tile's MMAs run.
      const bool release_previous = kt > w.kt_begin, convert_next = kt + 1 < w.kt_end || next_unit;
      if (set == 0)
        mma_step(std::integral_constant<int, 0>{}, acc, at, previous, release_previous, convert_next);
      else
        mma_step(std::integral_constant<int, 1>{}, acc, at, previous, release_previous, convert_next);
    }
    sm90::wgmma_wait<0>();
    if (lane == 0) sm90::mbarrier_arrive(&bar.empty[previous.slot]);
#pragma unroll
    for (int i = 0; i < Cfg::kAcc; ++i) sm90::fence_operand(acc[i]);

    if constexpr (Cfg::kSplitK)
      if (p.splits > 1 && !reduce_splits<Cfg>(p, w, thread, acc, last)) continue;
    store_output<Cfg>(p, acc, w.m0, w.n0, row, t);
  }
}

template <class Cfg>
__device__ void consume(const Params& p, std::uint8_t* smem, const Barriers& bar, int* last) {
  sm90::setmaxnreg_inc<Cfg::kConsumerRegisters>();
  if (p.mxfp4)
    consume_format<Cfg, true>(p, smem, bar, last);
  else
    consume_format<Cfg, false>(p, smem, bar, last);
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// The kernel. Built for every architecture of the fatbinary, it has a body only on sm_90a; the
// backend admits only sm_90 devices, and an sm_90 image without the 'a' features traps rather
// than return without computing.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap act_map,
                      const __grid_constant__ CUtensorMap code_map,
                      const __grid_constant__ CUtensorMap scale_map, const Params p) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ std::uint8_t smem_raw[];
  __shared__ std::uint64_t loaded[Cfg::STAGES], empty[Cfg::STAGES];
  __shared__ int last_split;  // split-K: whether this CTA's consumers reduce the tile
  std::uint8_t* smem = smem_raw + ((1024 - (mma::smem_address(smem_raw) & 1023)) & 1023);
  if (threadIdx.x == 0) {
    for (int s = 0; s < Cfg::STAGES; ++s) {
      sm90::mbarrier_init(&loaded[s], Cfg::kLoadedArrivals);
      sm90::mbarrier_init(&empty[s], Cfg::kEmptyArrivals);
    }
    sm90::fence_barrier_init();
  }
  __syncthreads();
  const Barriers bar{loaded, empty};
  if (threadIdx.x < 128) {
    sm90::setmaxnreg_dec<Cfg::kProducerRegisters>();
    produce<Cfg>(p, &act_map, &code_map, &scale_map, smem, bar);
  } else {
    consume<Cfg>(p, smem, bar, &last_split);
  }
#else
  __trap();
#endif
}

}  // namespace fp4gemm::cuda::wgmma
