#pragma once
// cuda-decode kernel: D = alpha * A B^T for small M (1..32), B block-scaled FP4 (NVFP4 or
// MXFP4, N x K, K-major), A BF16 (w4a16; cuda-decode's w4a4: A's block values, which the GPU
// quantizer writes next to its codes or the CTA quantizes; cuda-grouped's w4a4: its FP4 A
// dequantized by a kernel before the GEMM's, fp4_dequantize.cu). A decode GEMM is a
// stream of weight bytes, so the kernel is built around reading B once at full bandwidth with
// as few instructions per weight as the exact dequantization allows (notes_decode.md has the
// budget: ~4 thread instructions per weight element at the HBM rate).
//
// Algorithm (CTA = kWarps warps, 4 or 8 (the plan's choice), owns rows_per_cta(kWarps) = 16 kWarps
// rows of B and one K-slice; grid = N-tiles x K-splits):
//  0. Issue the first kStages - 1 weight groups' copies (step 2), then wait for the previous
//     kernel of the stream (programmatic dependent launch: the CTA may start during its tail).
//  1. Stage the K-slice of A (its M rows; fragments of rows past M are zero) into shared memory as
//     bf16, several loads in flight per thread, or (1q, cuda-decode's w4a4 when Params::a_source
//     is set) quantizing the bf16 activations of the slice in the CTA, each scale block spread
//     over 4 / 8 threads, into their block values (quantize_lane.cuh: the GPU quantizer's bytes), so that no
//     quantization kernel runs before the GEMM. Each 128-k group is stored chunk-transposed
//     (8-element chunk c = 4t + jj at unit 4jj + t, k order inside a chunk), rows padded by 64
//     bytes: the fragment loads of step 3 are conflict-free 16-byte loads.
//  2. Warp w streams rows n0 + 16w .. +15 of B through a kStages-deep shared-memory ring, one
//     128-k group per stage. prepare() re-lays B as the ring's image: per 16 rows x 128 k a
//     1024-byte code tile (decode_code_tile_order: lane (g, t)'s 16 code bytes of rows g and
//     g + 8, k = 32t .. 32t + 31, at its two slots) and a 128-byte scale tile (MXFP4 64;
//     decode_scale_tile_order: lane (g, t)'s scales of both rows in one word), zeros past N and
//     K. So per group each lane issues two 16-byte cp.async of codes (a warp-wide copy reads 512
//     contiguous bytes; a warp's groups follow each other in memory) and lanes 0..7 (MXFP4 0..3)
//     one of scales: no edge masks, no per-row addresses. The copies hold no registers, so
//     kStages - 1 groups per lane are in flight while the lane computes; a lane waits for its own
//     copies (cp.async.wait_group) and the warp then syncs once per group, because the scale
//     tile is read across lanes. (v6 read B's rows in place: each warp read 64 bytes from each of
//     16 rows K/2 bytes apart per group, and DRAM ran at 40 % of its rate: notes_decode.md.)
//  3. The MMA is D^T = B A^T: m16n8k16 with B's 16 rows as the MMA rows and 8 tokens of A as its
//     columns (MT MMAs for 8*MT tokens). The codes, re-packed by prepare() as placed codes
//     (format/placed_codes.hpp), are dequantized by bit placement (rotations and masks, 9 logic
//     ops per 8 codes, E2M1 x 2^-126 exactly, pairs in k order) times one bf16x2 multiply by the
//     block scale, which carries the 2^126 (NVFP4: scale x 2^118, the result x 2^8 at the end;
//     MXFP4: x 2^126, then x scale). Word jj's pairs meet the activation chunk jj in k order.
//     Token rows past M load zeros; the 16-token instances run a copy of the loop without that
//     predicate where M = 16 (every row real).
//  3'. M = 1 ("block columns", the kMaxTokens = 1 instance): the 8 MMA columns are not 8 tokens
//     (7 would be zeros) but the 8 scale blocks of the lane quad's 128 k: MMA j takes k = 32t +
//     2j, +1 (block 2t) and 32t + 16 + 2j, +1 (block 2t + 1) of each lane's own codes, and column c
//     of its activation operand holds the token's activations of block c only (lane (g, t) loads
//     them when g = 2t or 2t + 1, zeros else). After a group's 8 MMAs, D(row, c) is block c's
//     unscaled dot product, and the block scales are applied to D, 4 FFMA per lane, instead of to
//     the weights, 32 bf16x2 multiplies (64 for MXFP4) per lane and group. The codes' E2M1 x 2^-126
//     then meet the activations unscaled, so step 1 shifts the A slice by 2^c, c = 126 - (the
//     exponent of its largest |a|) clamped to 0..127: products stay normal fp32 down to 2^-125
//     of that largest activation (smaller ones are lost, as the other instances lose products
//     below 2^-126 absolute), and the partial sums are multiplied back by 2^(126 - c), exactly.
//  4. With one K-split the CTA writes D directly. Otherwise each CTA stores its fp32 partial
//     fragments (fragment order: coalesced float4 stores) in the workspace; the last CTA of an
//     N-tile (atomic counter, which it resets) adds the partials in split order, so the result
//     does not depend on timing. Then D = alpha * acc in f32/bf16/f16.
//  4'. Or (Params::splits_in_cluster, sm_90+) the K-slices of an N-tile are the CTAs of one
//     thread-block cluster: each CTA puts its partial fragments in its own shared memory, and CTA s
//     sums share s of the tile's fragments over the cluster in split order through distributed
//     shared memory and stores them: no workspace, counter or L2 round trip, the same bits.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/dependent_launch.cuh"
#include "cuda/kernel_args.cuh"
#include "cuda/mma_primitives.cuh"
#include "cuda/quantize_lane.cuh"
#include "format/placed_codes.hpp"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/layout.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm::cuda::decode {

// Warps per CTA: 4, or 8 where the plan wants wide CTAs (decode_gemm.hpp: wide_ctas_wanted; M > 8
// only, so that only the 16- and 32-token instances exist in both widths). A wide CTA stages its A
// slice once for twice the rows: half the A traffic and staging per weight byte.
inline constexpr int kNarrowWarps = 4;
inline constexpr int kWideWarps = 8;
constexpr int threads_of(int warps) { return 32 * warps; }
constexpr int rows_per_cta(int warps) { return 16 * warps; }  // B rows (outputs) per CTA
inline constexpr int kGroupK = 128;                  // k per step of a warp (32 per lane)
inline constexpr int kStages = 4;                    // ring depth: kStages - 1 groups in flight
                                                     // (with more CTAs per SM: decode_gemm.cu)
inline constexpr int kRowPadElements = 32;           // 64 bytes: rows start 4 units apart
inline constexpr int kMaxTokenBlocks = 4;            // MT: 8 tokens each, so M <= 32
// The kernel instances, by the largest M they serve: 1 (block columns, step 3'), 8, 16, 32.
constexpr int token_blocks(int max_tokens) { return max_tokens <= 8 ? 1 : max_tokens / 8; }
constexpr bool block_columns(int max_tokens) { return max_tokens == 1; }
constexpr int max_tokens_for(std::int64_t m) { return m == 1 ? 1 : m <= 8 ? 8 : m <= 16 ? 16 : 32; }
// Independent accumulator chains per token block: with one token block a warp's 8 MMAs per group
// would all wait on the previous one's result; two chains (summed at the end) halve that
// dependence. With more token blocks the MT chains are already independent.
constexpr int chains(int mt) { return mt == 1 ? 2 : 1; }

// One ring stage of one warp: each lane's two rows' 16 code bytes, lanes' slots interleaved
// (slot i of lane l at i * 32 + l) so the ring reads are conflict-free, then the group's scale
// tile: 16 rows x 128 k of scale bytes (NVFP4 128 bytes: lane l's word at 4l holds its blocks
// 2t, 2t + 1 of row g, then of row g + 8; MXFP4 64 bytes: lane l's half-word at 2l holds block t
// of rows g and g + 8).
inline constexpr int kCodeSlotBytes = 16;
inline constexpr int kCodeStageBytes = 2 * 32 * kCodeSlotBytes;
constexpr int scale_tile_bytes(bool mxfp4) { return mxfp4 ? 64 : 128; }
constexpr int stage_bytes(bool mxfp4) { return kCodeStageBytes + scale_tile_bytes(mxfp4); }
constexpr int ring_bytes(bool mxfp4, int warps) { return warps * kStages * stage_bytes(mxfp4); }

// Shared memory: the A slice (the M real rows of groups * 128 + 32 bf16; token rows past M are
// never stored, their MMA fragments are zero; the block-column instance stores a row of zeros
// after its one token, read by the lanes whose columns hold no activations), then the weight ring.
constexpr int a_rows_staged(int max_tokens, int m) { return block_columns(max_tokens) ? 2 : m; }
constexpr int a_stride_elements(int groups) { return groups * kGroupK + kRowPadElements; }
constexpr int a_tile_bytes(int a_rows, int groups) { return a_rows * a_stride_elements(groups) * 2; }
constexpr int smem_bytes(int a_rows, int groups, bool mxfp4, int warps) {
  return a_tile_bytes(a_rows, groups) + ring_bytes(mxfp4, warps);
}

// Which part of the GEMM a CTA computes: B rows rows_per_cta * tile .. and K-slice `split` of
// `splits`; `tile` also indexes the split-K workspace and counters.
struct CtaCoord {
  int tile = 0, split = 0, splits = 1;
};

struct Params : GemmArgs {
  int groups_per_split = 0;  // 128-k groups of one K-slice (gridDim.y slices)
  // workspace: N-tiles x splits x threads x 4*MT partials; counters: one per N-tile.
  // B re-laid by prepare(): GemmArgs' b.data holds its code tiles (decode_code_tile_order), the
  // tile of rows 16 rt .. + 15 and group i at (rt * k_groups + i) * kCodeStageBytes, and
  // scale_tiles its scale tiles (decode_scale_tile_order) at (rt * k_groups + i) *
  // scale_tile_bytes(mxfp4); k_groups = ceil(K / 128). (b.scales, B's scales in their own
  // layout, are not read.)
  const std::uint8_t* scale_tiles = nullptr;
  // Step 4' (cuda-decode's kernel only): the launch is in clusters of 1 x gridDim.y CTAs (an
  // N-tile's K-slices; cluster rank = split) that sum their partials through distributed shared
  // memory; workspace and counters are not used.
  bool splits_in_cluster = false;
  // Step 1q (cuda-decode's w4a4 only): if set, M x K bf16 activations that each CTA quantizes
  // (scale_2 a_scale_2) into its A slice's block values; NaN/inf is recorded in a_status as the
  // GPU quantizer records it. Else the A slice comes from a_bf16.
  const std::uint16_t* a_source = nullptr;
  float a_scale_2 = 1.0f;
  QuantizeStatusWords* a_status = nullptr;
};

// Step 4' keeps a CTA's partials (MT x threads float4) where the A slice and the ring were.
constexpr bool partials_fit_ring(int warps) {
  return ring_bytes(false, warps) >= kMaxTokenBlocks * threads_of(warps) * 16 &&
         ring_bytes(true, warps) >= kMaxTokenBlocks * threads_of(warps) * 16;
}
static_assert(partials_fit_ring(kNarrowWarps) && partials_fit_ring(kWideWarps),
              "the partials of step 4' fit in the shared memory of every plan");

// ------------------------------------------------------------------ step 1: A into shared memory
// Unit (16 bytes = 8 bf16) u = 4jj + t of a 128-k group holds k = 32t + 8jj .. +7.
__device__ __forceinline__ int transposed_unit(int chunk) { return (chunk & 3) * 4 + (chunk >> 2); }
// Where chunk `chunk` (k = 8 chunk .. + 7 of the slice) of row `row` is staged.
__device__ __forceinline__ uint4* staged_unit(std::uint16_t* a_tile, int row, int chunk, int stride) {
  return reinterpret_cast<uint4*>(a_tile + row * stride + (chunk / 16 * 16 + transposed_unit(chunk % 16)) * 8);
}
// The largest bf16 exponent field among the 8 bf16 of v.
__device__ __forceinline__ std::uint32_t max_exponent_field(uint4 v) {
  std::uint32_t e = 0;
  for (std::uint32_t w : {v.x, v.y, v.z, v.w}) e = max(e, max((w >> 7) & 0xFFu, (w >> 23) & 0xFFu));
  return e;
}

// A thread's walk over its share of rows x items_per_row (item i of the flat order
// row * items_per_row + item goes to thread i % kThreads), the row and item advanced by adds: one
// division per thread, not one per item (the staging loops ran on IMAD/IABS division sequences
// before: bench/results/ncu_breakdown).
template <int kThreads>
struct ItemWalk {
  int items_per_row, step_rows, step_items, row, item;
  __device__ explicit ItemWalk(int items)
      : items_per_row(items),
        step_rows(kThreads / items),
        step_items(kThreads % items),
        row(int(threadIdx.x) / items),
        item(int(threadIdx.x) % items) {}
  __device__ void next() {
    row += step_rows;
    item += step_items;
    if (item >= items_per_row) {
      item -= items_per_row;
      ++row;
    }
  }
};

// Calls f(row, item) for every item of this thread's walk over rows x items_per_row.
template <int kThreads, class F>
__device__ __forceinline__ void for_each_item(int rows, int items_per_row, F&& f) {
  for (ItemWalk<kThreads> walk(items_per_row); walk.row < rows; walk.next()) f(walk.row, walk.item);
}

// Stages rows 0 .. a_rows_staged - 1 of the slice (rows past M and k past the slice as zeros) with
// the CTA's kThreads threads, kLoadsInFlight chunks (16 bytes, k = 8 chunk .. + 7 of the slice)
// per thread at a time: all of a batch's loads are issued before its first store, so a thread
// waits one load round trip per batch, not per chunk (ncu: the staging warps stalled on each
// store's load, a quarter of the warps' time at 16 x 16384, bench/results/ncu_breakdown).
// Thread t stages chunks t, t + kThreads, ... of every row: kThreads is a multiple of 16, so its
// unit within each 16-chunk group (transposed_unit) is fixed, and both of its addresses advance
// by constant steps (by a chunk step of kThreads, by a row of k / stride elements). A batch is
// kBatchRows rows (predicated by M) of kBatchSteps chunk steps. (A walk of the flat row x chunk
// order cost ~51 instructions per chunk in index arithmetic and branches: the SASS census in
// bench/results/grouped_all_rows.) Staging by cp.async instead, one commit group after the first
// weight groups', made the kernel wait for those too: 5-33 % slower on an H100
// (bench/results/decode_batched_staging/RUN.md).
template <int kMaxTokens, int kThreads>
__device__ void stage_activations(const Params& p, std::uint16_t* a_tile, std::int64_t k_begin, int slice,
                                  int stride) {
  static_assert(kThreads % 16 == 0, "a thread's unit within a 16-chunk group is fixed");
  constexpr int kLoadsInFlight = 8;
  constexpr int kRows = a_rows_staged(kMaxTokens, kMaxTokens);  // rows of the instance, >= M
  constexpr int kBatchRows = kRows < kLoadsInFlight ? kRows : kLoadsInFlight;
  constexpr int kBatchSteps = kLoadsInFlight / kBatchRows;
  // The row batches unrolled up to 16 rows, by two at 32 (ptxas, sm_90a: all four unrolled
  // spilled 28 bytes in cuda-grouped's 80-register bound, none unrolled 48 in cuda-decode's
  // narrow 32-token instance; by two, cuda-decode's 32-token instances take 80 registers, no
  // spill, and cuda-grouped's 4 bytes: the expert's alpha, reloaded for each output store).
  constexpr int kRowBatchesUnrolled = kRows <= 16 ? kRows / kBatchRows : 2;
  const int m = int(p.m), rows = a_rows_staged(kMaxTokens, m), row_step = int(p.k);
  const int chunks = (slice + kGroupK - 1) / kGroupK * (kGroupK / 8), real_chunks = slice / 8;
  const int t = int(threadIdx.x);
  const std::uint16_t* source = p.a_bf16 + k_begin + t * 8;
  std::uint16_t* unit = a_tile + (t - t % 16 + transposed_unit(t % 16)) * 8;
  for (int chunk = t; chunk < chunks; chunk += kBatchSteps * kThreads) {
#pragma unroll kRowBatchesUnrolled
    for (int row0 = 0; row0 < kRows; row0 += kBatchRows) {
      if (row0 >= rows) break;
      uint4 v[kLoadsInFlight];
#pragma unroll
      for (int s = 0; s < kBatchSteps; ++s)
#pragma unroll
        for (int j = 0; j < kBatchRows; ++j) {
          const int row = row0 + j, offset = s * kThreads * 8;
          v[s * kBatchRows + j] =
              row < m && chunk + s * kThreads < real_chunks
                  ? *reinterpret_cast<const uint4*>(source + offset + row * row_step)
                  : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
      for (int s = 0; s < kBatchSteps; ++s)
#pragma unroll
        for (int j = 0; j < kBatchRows; ++j) {
          const int row = row0 + j, offset = s * kThreads * 8;
          if (row < rows && chunk + s * kThreads < chunks)
            *reinterpret_cast<uint4*>(unit + offset + row * stride) = v[s * kBatchRows + j];
        }
    }
    source += kBatchSteps * kThreads * 8;
    unit += kBatchSteps * kThreads * 8;
  }
}

// Step 1q: stages rows 0 .. a_rows_staged - 1 of the slice as the block values of p.a_source's
// activations quantized to format F (rows past M and k past the slice as zeros). A scale block
// (16 NVFP4 / 32 MXFP4 elements) is spread over kLanes = 4 / 8 consecutive threads of one warp,
// 4 elements each (quantize_lane.cuh's spread lanes, as the quantizer kernel for small tensors):
// at small M the slice has few blocks (1 x 384 k: 24), and a thread per block left most threads
// idle while each of the others ran 16 IEEE divisions in series. The block's lanes share its max
// |x| by shuffles; a row holds whole blocks and kThreads is a multiple of kLanes, so a block's
// lanes are always in one warp and one step of the walk together.
template <int kMaxTokens, Fp4Format F, int kThreads>
__device__ void stage_quantized_activations(const Params& p, std::uint16_t* a_tile, std::int64_t k_begin, int slice,
                                            int stride) {
  constexpr int E = kSpreadElementsPerLane, kBlock = block_size(F), kLanes = kBlock / E;
  static_assert(kThreads % kLanes == 0 && 32 % kLanes == 0, "a block's lanes are in one warp and one step");
  const int groups = (slice + kGroupK - 1) / kGroupK;
  const unsigned lane = threadIdx.x % 32;
  const unsigned block_mask = ((1u << kLanes) - 1u) << (lane & ~unsigned(kLanes - 1));
  const int items_per_row = groups * (kGroupK / kBlock) * kLanes;
  for_each_item<kThreads>(a_rows_staged(kMaxTokens, int(p.m)), items_per_row, [&](int row, int item) {
    const int k_local = item * E;  // block item / kLanes, part item % kLanes
    std::uint32_t pairs[E / 2] = {};  // bf16 pairs in k order
    if (row < p.m && k_local / kBlock * kBlock < slice) {  // uniform over the block's lanes (K % kBlock == 0)
      const std::int64_t column = k_begin + k_local;
      float v[E];
      load_lane<DType::bf16>(p.a_source, row * p.k + column, v);
      std::uint32_t amax_bits = max_abs_bits(v);
      if (amax_bits >= kInfBits) record_non_finite(v, row, column, p.a_status);
#pragma unroll
      for (int offset = kLanes / 2; offset > 0; offset /= 2)
        amax_bits = max(amax_bits, __shfl_xor_sync(block_mask, amax_bits, offset));
      const std::uint8_t scale = block_scale_code<F>(float_from_bits(amax_bits), p.a_scale_2);
      lane_block_values<F, E>(lane_codes<F>(v, scale, p.a_scale_2), scale, pairs);
    }
    // elements k_local .. + 3: half (k_local % 8) / 4 of chunk k_local / 8
    reinterpret_cast<uint2*>(staged_unit(a_tile, row, k_local / 8, stride))[k_local % 8 / 4] =
        make_uint2(pairs[0], pairs[1]);
  });
}

// Step 1 of the block-column instance, after staging: the shift
// c = 126 - (largest exponent of the slice) clamped to 0..127, and the slice's token row times 2^c
// (exact: a power of two, no overflow; the staged zero row stays zero). Every thread calls it;
// after a barrier that makes the whole staged slice visible, each thread takes the largest
// exponent of its share of the row's 16-byte units, the CTA's kWarps warps reduce it, and each
// thread scales its share; the caller's barrier follows. Returns c.
template <int kWarps>
__device__ inline int shift_activations(std::uint16_t* a_tile, int chunks_per_row, int stride) {
  __shared__ std::uint32_t warp_exponent[kWarps];
  __syncthreads();
  std::uint32_t exponent = 0;
  for_each_item<threads_of(kWarps)>(1, chunks_per_row, [&](int row, int chunk) {
    exponent = max(exponent, max_exponent_field(*staged_unit(a_tile, row, chunk, stride)));
  });
  exponent = __reduce_max_sync(0xFFFFFFFFu, exponent);
  if (threadIdx.x % 32 == 0) warp_exponent[threadIdx.x / 32] = exponent;
  __syncthreads();
#pragma unroll
  for (int w = 0; w < kWarps; ++w) exponent = max(exponent, warp_exponent[w]);
  // exponent field e: the largest |a| is below 2^(e - 126); c = 126 - (e - 127)
  const int c = min(max(253 - int(exponent), 0), 127);
  const std::uint32_t factor = (std::uint32_t(127 + c) << 7) * 0x10001u;  // bf16x2 2^c
  for_each_item<threads_of(kWarps)>(1, chunks_per_row, [&](int row, int chunk) {
    uint4* unit = staged_unit(a_tile, row, chunk, stride);
    uint4 v = *unit;
    v.x = mma::bf16x2_mul(v.x, factor);
    v.y = mma::bf16x2_mul(v.y, factor);
    v.z = mma::bf16x2_mul(v.z, factor);
    v.w = mma::bf16x2_mul(v.w, factor);
    *unit = v;
  });
  return c;
}

// ------------------------------------------------------------------ step 2: the weight ring
// What a lane copies of one group, advanced by one group per step: the code and scale tiles are
// images of a ring stage (decode_code_tile_order, decode_scale_tile_order), so the lane's slots
// sit at the same offsets in the tile as in the stage, and every copy is a whole 16 bytes.
struct LaneStream {
  const std::uint8_t* codes;   // the lane's slot of row pair 0 in the current group's code tile
  const std::uint8_t* scales;  // this lane's 16 bytes of the current group's scale tile
  bool copies;                 // the warp's rows start below N (no tiles exist past N)
  bool copies_scales;          // ... and the lane is one of the scale tile's copying lanes
  int scale_step;              // scale_tile_bytes: one group

  __device__ __forceinline__ void next_group() {
    codes += kCodeStageBytes;
    scales += scale_step;
  }
};

// A lane's slot of one stage for row pair r (rows g + 8r), and the stage's scale tile.
__device__ __forceinline__ std::uint8_t* code_slot(std::uint8_t* stage, int r, int lane) {
  return stage + (r * 32 + lane) * kCodeSlotBytes;
}
__device__ __forceinline__ std::uint8_t* scale_tile_of(std::uint8_t* stage) { return stage + kCodeStageBytes; }

// A warp whose rows all lie past N has no tiles: its stages are zeroed once (zero codes times zero
// scales), and it copies nothing. (Rows past N inside a warp's 16 are zeros of its tiles.)
__device__ __forceinline__ void zero_stages(std::uint8_t* ring, int stage_step, int lane) {
  for (int at = 16 * lane; at < kStages * stage_step; at += 16 * 32)
    *reinterpret_cast<uint4*>(ring + at) = make_uint4(0, 0, 0, 0);
}

// Copies one group: the lane's two 16-byte code slots (each warp-wide copy reads 512 contiguous
// bytes) and, for the copying lanes, 16 bytes of the scale tile.
__device__ __forceinline__ void copy_group(const LaneStream& s, std::uint8_t* stage, int lane) {
  if (!s.copies) return;
#pragma unroll
  for (int r = 0; r < 2; ++r) mma::cp_async_16(code_slot(stage, r, lane), s.codes + r * 32 * kCodeSlotBytes);
  if (s.copies_scales) mma::cp_async_16(scale_tile_of(stage) + 16 * lane, s.scales);
}

// ------------------------------------------------------------------ step 3: MMAs of one group
template <int MT, bool kMxfp4, bool kAllRowsReal>
__device__ __forceinline__ void multiply_group(std::uint8_t* stage, int lane, const std::uint16_t* a_group,
                                               int stride, int m, int g, int t,
                                               float (&acc)[chains(MT)][MT][4]) {
  uint4 codes[2];
  std::uint32_t scale[2][2];  // [row][first / second 16 of the lane's 32], bf16x2
#pragma unroll
  for (int r = 0; r < 2; ++r) codes[r] = *reinterpret_cast<const uint4*>(code_slot(stage, r, lane));
  if constexpr (kMxfp4) {
    const std::uint32_t pair = *reinterpret_cast<const std::uint16_t*>(scale_tile_of(stage) + 2 * lane);
#pragma unroll
    for (int r = 0; r < 2; ++r) scale[r][0] = scale[r][1] = mma::scale_to_bf16x2(true, (pair >> (8 * r)) & 0xFF);
  } else {
    const std::uint32_t word = *reinterpret_cast<const std::uint32_t*>(scale_tile_of(stage) + 4 * lane);
    mma::nvfp4_scale_x2_to_bf16x2(word, scale[0][0], scale[0][1]);
    mma::nvfp4_scale_x2_to_bf16x2(word >> 16, scale[1][0], scale[1][1]);
  }
#pragma unroll
  for (int jj = 0; jj < 4; ++jj) {
    uint4 act[MT];  // k = 32t + 8jj .. +7 of tokens 8mt + g, in k order
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
      act[mt] = kAllRowsReal || 8 * mt + g < m ? *reinterpret_cast<const uint4*>(a_group + (8 * mt + g) * stride + (4 * jj + t) * 8)
                               : make_uint4(0, 0, 0, 0);
    std::uint32_t w[2][4];  // [row][pair]: (c0, c1), (c2, c3), (c4, c5), (c6, c7) of word jj
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      placed_codes_to_bf16_bits((&codes[r].x)[jj], w[r]);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const std::uint32_t value = kMxfp4 ? mma::e2m1_bits_to_bf16_times_2_126(w[r][i]) : w[r][i];
        w[r][i] = mma::bf16x2_mul(value, scale[r][jj >= 2]);
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const std::uint32_t a[4] = {w[0][2 * h], w[1][2 * h], w[0][2 * h + 1], w[1][2 * h + 1]};
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        const std::uint32_t b[2] = {h == 0 ? act[mt].x : act[mt].z, h == 0 ? act[mt].y : act[mt].w};
        mma::mma_bf16_16816(acc[h % chains(MT)][mt], a, b);
      }
    }
  }
}

// Step 3' (M = 1): one group's 8 MMAs with the group's 8 scale blocks as the MMA columns, then the
// block scales on D. x0 / x1: the lane's activation operand for MMA j's b0 / b1, k = 32t + 2j and
// 32t + 16 + 2j of the group (block 2t / 2t + 1; staged chunk-transposed: units at x and x + 32
// elements), or the staged zero row where the lane's column g is not that block.
template <bool kMxfp4>
__device__ __forceinline__ void multiply_group_block_columns(std::uint8_t* stage, int lane, const std::uint16_t* x0,
                                                             const std::uint16_t* x1, float (&y)[4]) {
  uint4 codes[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) codes[r] = *reinterpret_cast<const uint4*>(code_slot(stage, r, lane));
  float scale[4];  // of D's fragment: (row g, block 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1)
  if constexpr (kMxfp4) {  // one 32-k block per lane: block t of rows g and g + 8
    const std::uint32_t pair = *reinterpret_cast<const std::uint16_t*>(scale_tile_of(stage) + 2 * lane);
    scale[0] = scale[1] = mma::ue8m0_scale_to_float(pair & 0xFF);
    scale[2] = scale[3] = mma::ue8m0_scale_to_float(pair >> 8);
  } else {
    const std::uint32_t word = *reinterpret_cast<const std::uint32_t*>(scale_tile_of(stage) + 4 * lane);
    const float2 row_g = mma::e4m3x2_to_float2(word), row_g8 = mma::e4m3x2_to_float2(word >> 16);
    scale[0] = row_g.x;
    scale[1] = row_g.y;
    scale[2] = row_g8.x;
    scale[3] = row_g8.y;
  }
  uint4 x[2][2];  // [b0 / b1][k 8h .. 8h + 7 of the block]
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    x[0][h] = *reinterpret_cast<const uint4*>(x0 + 32 * h);
    x[1][h] = *reinterpret_cast<const uint4*>(x1 + 32 * h);
  }
  float d[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    std::uint32_t lo[2][4], hi[2][4];  // [row][pair] of words h (block 2t) and 2 + h (block 2t + 1)
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      placed_codes_to_bf16_bits((&codes[r].x)[h], lo[r]);
      placed_codes_to_bf16_bits((&codes[r].x)[2 + h], hi[r]);
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) {  // MMA j = 4h + q
      const std::uint32_t a[4] = {lo[0][q], lo[1][q], hi[0][q], hi[1][q]};
      const std::uint32_t b[2] = {(&x[0][h].x)[q], (&x[1][h].x)[q]};
      mma::mma_bf16_16816(d, a, b);
    }
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) y[i] = fmaf(scale[i], d[i], y[i]);
}

// ------------------------------------------------------------------ step 4: output
__device__ __forceinline__ void store_output(const Params& p, std::int64_t token, std::int64_t row,
                                             float value) {
  if (token >= p.m || row >= p.n) return;
  const float v = p.alpha * value;
  const std::int64_t offset = token * p.n + row;
  switch (p.out_dtype) {
    case DType::f32: static_cast<float*>(p.out)[offset] = v; break;
    case DType::bf16: static_cast<std::uint16_t*>(p.out)[offset] = bf16_from_float(v); break;
    case DType::f16: static_cast<std::uint16_t*>(p.out)[offset] = fp16_from_float(v); break;
  }
}

// The fragment of thread `tid`, token block mt, of N-tile `tile` of CTAs of kWarps warps:
// v[2r + e] = D(token 8 mt + 2t + e, row 16 kWarps tile + 16 warp + g + 8r) for lane (g, t) of warp
// `warp`.
template <int kWarps>
__device__ __forceinline__ void store_fragment(const Params& p, int tile, int tid, int mt, const float (&v)[4]) {
  const int warp = tid / 32, g = tid % 32 / 4, t = tid % 4;
  const std::int64_t row0 = std::int64_t(tile) * rows_per_cta(kWarps) + warp * 16 + g;
#pragma unroll
  for (int r = 0; r < 2; ++r)
#pragma unroll
    for (int e = 0; e < 2; ++e) store_output(p, 8 * mt + 2 * t + e, row0 + 8 * r, v[2 * r + e]);
}

// Split-K: store this CTA's partials; true (with acc = the sum over splits in split order) in
// the last CTA of the N-tile, false in the others.
template <int MT, int kWarps>
__device__ bool reduce_splits(const Params& p, CtaCoord cta, float (&acc)[MT][4]) {
  constexpr int kThreads = threads_of(kWarps);
  const int splits = cta.splits, tile = cta.tile, tid = int(threadIdx.x);
  float4* tile_ws = reinterpret_cast<float4*>(p.workspace) + std::int64_t(tile) * splits * MT * kThreads;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
    __stcg(tile_ws + (std::int64_t(cta.split) * MT + mt) * kThreads + tid,
           make_float4(acc[mt][0], acc[mt][1], acc[mt][2], acc[mt][3]));
  if (!last_to_arrive(&p.counters[tile], splits)) return false;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
    const float4 sum = sum_partials(tile_ws + mt * kThreads + tid, std::int64_t(MT) * kThreads, splits);
    acc[mt][0] = sum.x;
    acc[mt][1] = sum.y;
    acc[mt][2] = sum.z;
    acc[mt][3] = sum.w;
  }
  if (tid == 0) p.counters[tile] = 0;  // ready for the next launch
  return true;
}

// Step 4': split-K in the N-tile's cluster (rank = split). `partials`: the CTA's shared memory,
// whose A slice and ring every warp is done with after the first barrier. Share s of the tile's
// MT x kThreads fragments (those with a token below M) is summed by CTA s, in split order, from
// every CTA's partials, and stored. The second cluster barrier keeps each CTA's shared memory
// alive until the others have read it.
template <int MT, int kWarps>
__device__ void reduce_splits_in_cluster(const Params& p, CtaCoord cta, const float (&acc)[MT][4], float4* partials) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int kThreads = threads_of(kWarps);
  const cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
  const int tid = int(threadIdx.x);
  mma::cp_async_wait<0>();  // (the ring's last copies are empty groups; none may land later)
  __syncthreads();
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) partials[mt * kThreads + tid] = make_float4(acc[mt][0], acc[mt][1], acc[mt][2], acc[mt][3]);
  cluster.sync();  // release and acquire: every CTA's partials are visible to the cluster
  constexpr int kFragments = MT * kThreads;
  const int share = (kFragments + cta.splits - 1) / cta.splits;
  const int end = min(kFragments, (cta.split + 1) * share);
  for (int f = cta.split * share + tid; f < end; f += kThreads) {
    const int mt = f / kThreads, thread = f % kThreads;
    if (8 * mt + 2 * (thread % 4) >= p.m) continue;  // no token of this fragment is stored
    const float4 sum = sum_in_split_order(cta.splits, [&](int s) { return *cluster.map_shared_rank(partials + f, s); });
    store_fragment<kWarps>(p, cta.tile, thread, mt, {sum.x, sum.y, sum.z, sum.w});
  }
  cluster.sync();
#else
  __trap();  // plan_decode_gemm sums in clusters on sm_90+ only
#endif
}

// ------------------------------------------------------------------ one CTA's work
// The block-column instance's K-slice result in the fragment order of the others (acc[2r + e]:
// token 2t + e, row g + 8r): y's blocks summed per row over the lane quad, times 2^(126 - shift)
// (exact); lane (g, 0) holds token 0, the other lanes' values are of tokens >= 1 and never stored.
__device__ __forceinline__ void block_column_result(const float (&y)[4], int shift, float (&acc)[4]) {
  float row_sum[2] = {y[0] + y[1], y[2] + y[3]};
  const float unshift = __uint_as_float(std::uint32_t(253 - shift) << 23);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    row_sum[r] += __shfl_xor_sync(0xFFFFFFFFu, row_sum[r], 1);
    row_sum[r] += __shfl_xor_sync(0xFFFFFFFFu, row_sum[r], 2);
    acc[2 * r] = row_sum[r] * unshift;
    acc[2 * r + 1] = 0.f;
  }
}

// kMaxTokens: the instance (M <= kMaxTokens: 1, 8, 16 or 32). kMxfp4: the format (p.mxfp4), a
// template parameter so that the group loop is one basic block. kDecodeKernel: cuda-decode's own
// kernel, whose launch may be in clusters (step 4', p.splits_in_cluster decides); cuda-grouped's
// kernel carries no code (nor registers) of it. kQuantizeA (cuda-decode's only): the instance
// that quantizes w4a4's A in the CTA (step 1q, from p.a_source); the others stage bf16 and carry
// no code of it, so that it cannot change the registers of the instances w4a16 runs (the spread
// step 1q took the 32-token instances from 80 to 96: notes_decode.md v20). kWarps: the CTA's
// warps (kNarrowWarps or kWideWarps).
template <int kMaxTokens, bool kDecodeKernel, bool kQuantizeA, bool kMxfp4, int kWarps>
__device__ __forceinline__ void decode_cta_of_format(const Params& p, CtaCoord cta, std::uint16_t* a_tile) {
  constexpr int MT = token_blocks(kMaxTokens), kThreads = threads_of(kWarps);
  static_assert(MT >= 1 && MT <= kMaxTokenBlocks, "1..32 tokens");
  static_assert(kDecodeKernel || !kQuantizeA, "only cuda-decode's kernel quantizes A");
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;

  const std::int64_t k_begin = std::int64_t(cta.split) * p.groups_per_split * kGroupK;
  const std::int64_t k_end = k_begin + p.groups_per_split * kGroupK < p.k
                                 ? k_begin + p.groups_per_split * kGroupK
                                 : p.k;
  const int slice = int(k_end - k_begin);
  const int groups = (slice + kGroupK - 1) / kGroupK;
  const int stride = a_stride_elements(groups);
  const int a_rows = a_rows_staged(kMaxTokens, int(p.m));

  // 2. This lane's stream: the warp's code and scale tiles (rows warp_row0 .. + 15) from group
  // k_begin / 128 on; lane (g, t) computes rows warp_row0 + g and warp_row0 + g + 8.
  const std::int64_t warp_row0 = std::int64_t(cta.tile) * rows_per_cta(kWarps) + warp * 16;
  constexpr int kScaleTileBytes = scale_tile_bytes(kMxfp4), kStageStep = stage_bytes(kMxfp4);
  const std::int64_t k_groups = (p.k + kGroupK - 1) / kGroupK;
  const std::int64_t first_tile = (warp_row0 / 16) * k_groups + k_begin / kGroupK;
  LaneStream lane_stream;
  lane_stream.copies = warp_row0 < p.n;
  lane_stream.copies_scales = lane_stream.copies && 16 * lane < kScaleTileBytes;
  lane_stream.codes = p.b.data + (lane_stream.copies ? first_tile * kCodeStageBytes + lane * kCodeSlotBytes : 0);
  lane_stream.scales = p.scale_tiles + (lane_stream.copies_scales ? first_tile * kScaleTileBytes + 16 * lane : 0);
  lane_stream.scale_step = kScaleTileBytes;
  std::uint8_t* ring = reinterpret_cast<std::uint8_t*>(a_tile) + a_tile_bytes(a_rows, groups) +
                       warp * kStages * kStageStep;
  const auto copy_group_at = [&](int group, int stage) {
    if (group < groups) copy_group(lane_stream, ring + stage * kStageStep, lane);
  };
  if (!lane_stream.copies) zero_stages(ring, kStageStep, lane);
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    copy_group_at(s, s);
    mma::cp_async_commit();
    lane_stream.next_group();
  }
  // 1. (after the first weight copies are on their way). Launched as a programmatic dependent
  // launch (dependent_launch.cuh), the CTA may have started before the previous kernel of the
  // stream ended: the copies above read only B, while A, the output and the split-K workspace
  // and counters are the previous kernel's until it has completed. From here on the next kernel
  // may start (its own weight copies then overlap this kernel's work and tail).
  wait_for_prerequisite_grids();
  allow_dependent_grids();
  constexpr Fp4Format kFormat = kMxfp4 ? Fp4Format::mxfp4 : Fp4Format::nvfp4;
  if constexpr (kQuantizeA)
    stage_quantized_activations<kMaxTokens, kFormat, kThreads>(p, a_tile, k_begin, slice, stride);
  else
    stage_activations<kMaxTokens, kThreads>(p, a_tile, k_begin, slice, stride);
  int shift = 0;  // the block-column instance's A slice is staged times 2^shift
  if constexpr (block_columns(kMaxTokens)) shift = shift_activations<kWarps>(a_tile, groups * (kGroupK / 8), stride);
  __syncthreads();  // the A slice

  // 3. Group i is consumed while groups i + 1 .. i + kStages - 1 are in flight: wait for this
  // lane's copies of group i, sync the warp (the scale tile is read across lanes, and every lane
  // is done with group i - 1's stage), refill that stage with group i + kStages - 1, multiply.
  const auto stream_groups = [&](auto&& multiply) {
    int stage = 0;
    for (int i = 0; i < groups; ++i) {
      mma::cp_async_wait<kStages - 2>();
      __syncwarp();
      const int refill = stage == 0 ? kStages - 1 : stage - 1;  // the stage consumed last step
      copy_group_at(i + kStages - 1, refill);
      mma::cp_async_commit();
      lane_stream.next_group();
      multiply(ring + stage * kStageStep, i);
      stage = stage == kStages - 1 ? 0 : stage + 1;
    }
  };
  // acc[mt][2r + e]: this K-slice's D(token 8mt + 2t + e, row warp_row0 + g + 8r).
  float acc[MT][4];
  if constexpr (block_columns(kMaxTokens)) {
    float y[4] = {0.f, 0.f, 0.f, 0.f};
    const std::uint16_t* x0 = a_tile + (g == 2 * t ? 0 : stride) + 8 * t;
    const std::uint16_t* x1 = a_tile + (g == 2 * t + 1 ? 0 : stride) + 8 * t + 64;
    stream_groups([&](std::uint8_t* stage, int i) {
      multiply_group_block_columns<kMxfp4>(stage, lane, x0 + i * kGroupK, x1 + i * kGroupK, y);
    });
    block_column_result(y, shift, acc[0]);
  } else {
    float chain_acc[chains(MT)][MT][4] = {};
    // Where both token blocks of the 16-token instances lie below M, the loop's activation loads
    // need no predicate, and the zero fills of rows past M (16 CS2R per group) are not issued:
    // 2-6 % at M = 16 on an H100 (bench/results/grouped_all_rows and staging_walk). At 8 tokens
    // it measured -3..+3 %, and at 32 the second loop took ptxas from 80 to 90 registers.
    const auto stream_and_multiply = [&](auto all_rows_real) {
      stream_groups([&](std::uint8_t* stage, int i) {
        multiply_group<MT, kMxfp4, decltype(all_rows_real)::value>(stage, lane, a_tile + i * kGroupK, stride,
                                                                    int(p.m), g, t, chain_acc);
      });
    };
    if (MT == 2 && p.m >= 8 * MT)
      stream_and_multiply(std::true_type{});
    else
      stream_and_multiply(std::false_type{});
    const float unshift = kMxfp4 ? 1.0f : float(1 << mma::kNvfp4Shift);  // exact: a power of two
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        acc[mt][i] = chain_acc[0][mt][i];
#pragma unroll
        for (int c = 1; c < chains(MT); ++c) acc[mt][i] += chain_acc[c][mt][i];
        acc[mt][i] *= unshift;
      }
  }

  // 4.
  if (cta.splits > 1) {
    if constexpr (kDecodeKernel) {
      if (p.splits_in_cluster) {
        reduce_splits_in_cluster<MT, kWarps>(p, cta, acc, reinterpret_cast<float4*>(a_tile));
        return;
      }
    }
    if (!reduce_splits<MT, kWarps>(p, cta, acc)) return;
  }
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) store_fragment<kWarps>(p, cta.tile, int(threadIdx.x), mt, acc[mt]);
}

// `cta` names the rows tile (B rows 16 kWarps tile ..) and the K-slice; a caller that runs several
// GEMMs in one launch (grouped) passes each GEMM's Params with its own pointers, workspace and
// counters.
template <int kMaxTokens, int kWarps, bool kDecodeKernel = false, bool kQuantizeA = false>
__device__ __forceinline__ void decode_cta(const Params& p, CtaCoord cta, std::uint16_t* a_tile) {
  if (p.mxfp4)
    decode_cta_of_format<kMaxTokens, kDecodeKernel, kQuantizeA, true, kWarps>(p, cta, a_tile);
  else
    decode_cta_of_format<kMaxTokens, kDecodeKernel, kQuantizeA, false, kWarps>(p, cta, a_tile);
}

// ------------------------------------------------------------------ the kernel
// grid = N-tiles x K-splits of threads_of(kWarps) threads; dynamic shared memory
// smem_bytes(a_rows_staged, groups_per_split, format, kWarps). kQuantizeA: A quantized from
// p.a_source in the CTA (step 1q), else staged from p.a_bf16.
template <int kMaxTokens, int kWarps, bool kQuantizeA = false>
__global__ void __launch_bounds__(threads_of(kWarps)) decode_gemm_kernel(const Params p) {
  extern __shared__ uint4 smem[];
  decode_cta<kMaxTokens, kWarps, true, kQuantizeA>(p, CtaCoord{int(blockIdx.x), int(blockIdx.y), int(gridDim.y)},
                                                   reinterpret_cast<std::uint16_t*>(smem));
}

// ------------------------------------------------------------------ the instances
// The instances of decode_cta a launcher picks from (M <= 1, 8, 16 or 32: max_tokens_for(M); CTAs
// of 4 or 8 warps): calls f(std::integral_constant<int, kMaxTokens>, std::integral_constant<int,
// kWarps>). Host code; the launchers of cuda-decode and cuda-grouped pass each their own kernel.
// The wide CTAs (`warps` = kWideWarps) exist for the 16- and 32-token instances only; the planner
// asks for them only there (plan_decode_gemm).
template <class F>
decltype(auto) with_instance(int max_tokens, int warps, F&& f) {
  const std::integral_constant<int, kNarrowWarps> narrow;
  const std::integral_constant<int, kWideWarps> wide;
  switch (max_tokens) {
    case 1: return f(std::integral_constant<int, 1>{}, narrow);
    case 8: return f(std::integral_constant<int, 8>{}, narrow);
    case 16:
      return warps == kWideWarps ? f(std::integral_constant<int, 16>{}, wide)
                                 : f(std::integral_constant<int, 16>{}, narrow);
    default:
      return warps == kWideWarps ? f(std::integral_constant<int, 8 * kMaxTokenBlocks>{}, wide)
                                 : f(std::integral_constant<int, 8 * kMaxTokenBlocks>{}, narrow);
  }
}

}  // namespace fp4gemm::cuda::decode
