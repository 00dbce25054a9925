#pragma once
// cuda-decode kernel: D = alpha * A B^T for small M (1..32), B block-scaled FP4 (NVFP4 or
// MXFP4, N x K, K-major), A FP4 of the same format (w4a4) or BF16 (w4a16). A decode GEMM is a
// stream of weight bytes, so the kernel is built around reading B once at full bandwidth:
//
// Algorithm (CTA = kWarps warps, owns kRowsPerCta rows of B and one K-slice; grid = N-tiles x
// K-splits):
//  1. Stage the K-slice of A (rows 0..8*MT-1, rows past M zero) into shared memory as bf16,
//     dequantizing it first for w4a4 (exact, like the weights). Each 128-k group of a row is
//     stored chunk-transposed (16-byte chunk c = 4t + jj at unit 4jj + t) and rows are padded by
//     64 bytes, so the fragment loads of step 3 are conflict-free.
//  2. Warp w streams rows n0 + 16w .. +15 of B: lane (g, t) loads rows g and g + 8, k = 32t ..
//     32t + 31 of each 128-k group (one 16-byte load per row: every byte is read once, in full
//     32-byte sectors), and their scale bytes; kUnroll groups are loaded before any is used, so
//     2 * kUnroll 16-byte loads per lane are in flight.
//  3. The MMA is D^T = B A^T: m16n8k16 with B's 16 rows as the MMA rows and 8 tokens of A as its
//     columns (MT MMAs for 8*MT tokens). Inside a 128-k group the MMA's k slots are permuted
//     (the same way for both operands): at step j (0..7) lane t supplies k = 32t + 4j .. +3, so
//     its weight fragment comes from its own 16-byte load and its A fragment is half of one
//     16-byte shared-memory load. E2M1 x scale -> bf16 in registers (mma_primitives.cuh): exact.
//  4. With one K-split the CTA writes D directly. Otherwise each CTA stores its fp32 partial
//     fragments (fragment order: coalesced float4 stores) in the workspace; the last CTA of an
//     N-tile (atomic counter, which it resets) adds the partials in split order, so the result
//     does not depend on timing. Then D = alpha * acc in f32/bf16/f16.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/kernel_args.cuh"
#include "cuda/mma_primitives.cuh"
#include "fp4gemm/codecs.hpp"
#include "fp4gemm/layout.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm::cuda::decode {

inline constexpr int kWarps = 4;                     // warps per CTA
inline constexpr int kThreads = 32 * kWarps;
inline constexpr int kRowsPerCta = 16 * kWarps;      // B rows (outputs) per CTA
inline constexpr int kGroupK = 128;                  // k per step of a warp (32 per lane)
inline constexpr int kUnroll = 4;                    // 128-k groups whose loads fly together
inline constexpr int kRowPadElements = 32;           // 64 bytes: rows start 4 units apart
inline constexpr int kMaxTokenBlocks = 4;            // MT: 8 tokens each, so M <= 32

// Shared memory of the A slice: 8*MT rows of (groups * 128 + 32) bf16.
constexpr int a_stride_elements(int groups) { return groups * kGroupK + kRowPadElements; }
constexpr int smem_bytes(int token_blocks, int groups) {
  return 8 * token_blocks * a_stride_elements(groups) * 2;
}

// Which part of the GEMM a CTA computes: B rows kRowsPerCta*tile .. and K-slice `split` of
// `splits`; `tile` also indexes the split-K workspace and counters.
struct CtaCoord {
  int tile = 0, split = 0, splits = 1;
};

struct Params : GemmArgs {
  int groups_per_split = 0;  // 128-k groups of one K-slice (gridDim.y slices)
  // workspace: N-tiles x splits x kThreads x 4*MT partials; counters: one per N-tile
};

// scale_offset(layout, 0, kb, cols) (layout.hpp) with shifts in place of its general arithmetic
// (signed divisions, the padded column count), which the hot loop would pay per load; the row
// part is added once per row (kernel_args.cuh). Checked against layout.hpp below.
constexpr std::int64_t scale_k_part(ScaleLayout layout, std::int64_t kb) {
  return layout == ScaleLayout::linear ? kb : (kb >> 2) * 512 + (kb & 3);
}
constexpr bool scale_k_part_matches_layout() {
  for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled})
    for (std::int64_t cols : {1, 2, 3, 5, 8, 9, 13, 384})
      for (std::int64_t kb = 0; kb < cols; ++kb)
        if (scale_k_part(layout, kb) != scale_offset(layout, 0, kb, cols)) return false;
  return true;
}
static_assert(scale_k_part_matches_layout(), "scale_k_part must equal layout.hpp's k part");

// ------------------------------------------------------------------ step 1: A into shared memory
// Unit (16 bytes = 8 bf16) u = 4jj + t of a 128-k group holds k = 32t + 8jj .. +7.
__device__ __forceinline__ int transposed_unit(int chunk) { return (chunk & 3) * 4 + (chunk >> 2); }

template <int MT, bool kAFp4>
__device__ void stage_activations(const Params& p, std::uint16_t* a_tile, std::int64_t k_begin,
                                  int slice, int stride) {
  const int groups = (slice + kGroupK - 1) / kGroupK;
  const int chunks_per_row = groups * (kGroupK / 8);
  const std::int64_t scale_cols = p.k / (p.mxfp4 ? 32 : 16);
  for (int i = int(threadIdx.x); i < 8 * MT * chunks_per_row; i += kThreads) {
    const int row = i / chunks_per_row, chunk = i % chunks_per_row;
    const int group = chunk / 16;
    const int k_local = chunk * 8;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (row < p.m && k_local < slice) {  // a chunk of 8 is wholly inside K (K % 16 == 0)
      const std::int64_t k = k_begin + k_local;
      if constexpr (kAFp4) {
        const std::uint32_t codes =
            *reinterpret_cast<const std::uint32_t*>(p.a_fp4.data + row * (p.k / 2) + k / 2);
        const std::int64_t kb = k >> (p.mxfp4 ? 5 : 4);
        const std::uint32_t scale = mma::scale_to_bf16x2(
            p.mxfp4, p.a_fp4.scales[scale_offset(p.layout, row, kb, scale_cols)]);
        mma::e2m1x4_to_bf16(codes, scale, v.x, v.y);
        mma::e2m1x4_to_bf16(codes >> 16, scale, v.z, v.w);
      } else {
        v = *reinterpret_cast<const uint4*>(p.a_bf16 + row * p.k + k);
      }
    }
    const int unit = group * 16 + transposed_unit(chunk % 16);
    *reinterpret_cast<uint4*>(a_tile + row * stride + unit * 8) = v;
  }
}

// ------------------------------------------------------------------ step 2: B loads
// One lane's share of one 128-k group of two rows: 32 codes per row and their scale bytes
// (NVFP4: two, low byte for k 32t..+15; MXFP4: one).
struct WeightSlice {
  uint4 codes[2];
  std::uint32_t scales[2];
};

__device__ __forceinline__ uint2 load_8(const std::uint8_t* p) {
  return __ldcs(reinterpret_cast<const uint2*>(p));
}

// Loads rows' data at `k` (the lane's first element); zero where past N or the slice end.
__device__ __forceinline__ WeightSlice load_weights(const Params& p, const std::uint8_t* const row_data[2],
                                                    const std::int64_t row_scale[2], std::int64_t k,
                                                    std::int64_t k_end, bool aligned_16) {
  WeightSlice w;
  const bool lo = k < k_end, hi = k + 16 < k_end;
  const std::int64_t kb = k >> (p.mxfp4 ? 5 : 4);
  const std::int64_t k_part = scale_k_part(p.layout, kb);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    w.codes[r] = make_uint4(0, 0, 0, 0);
    w.scales[r] = 0;
    if (row_data[r] == nullptr || !lo) continue;
    const std::uint8_t* src = row_data[r] + k / 2;
    if (aligned_16 && hi) {
      w.codes[r] = __ldcs(reinterpret_cast<const uint4*>(src));
    } else {
      const uint2 first = load_8(src);
      const uint2 second = hi ? load_8(src + 8) : make_uint2(0, 0);
      w.codes[r] = make_uint4(first.x, first.y, second.x, second.y);
    }
    const std::uint8_t* scale = p.b.scales + row_scale[r] + k_part;
    w.scales[r] = scale[0];
    // NVFP4: the second block kb + 1 is the next byte in both layouts (kb is even: k % 32 == 0).
    if (!p.mxfp4 && hi) w.scales[r] |= std::uint32_t(scale[1]) << 8;
  }
  return w;
}

// ------------------------------------------------------------------ step 3: MMAs of one group
template <int MT>
__device__ __forceinline__ void multiply_group(const Params& p, const WeightSlice& w,
                                               const std::uint16_t* a_group, int stride, int g,
                                               int t, float (&acc)[MT][4]) {
  std::uint32_t scale[2][2];  // [row][first / second 16 of the lane's 32]
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    scale[r][0] = mma::scale_to_bf16x2(p.mxfp4, w.scales[r] & 0xFF);
    scale[r][1] = p.mxfp4 ? scale[r][0] : mma::scale_to_bf16x2(false, w.scales[r] >> 8);
  }
#pragma unroll
  for (int jj = 0; jj < 4; ++jj) {
    uint4 act[MT];  // k = 32t + 8jj .. +7 of tokens 8mt + g
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
      act[mt] = *reinterpret_cast<const uint4*>(a_group + (8 * mt + g) * stride + (4 * jj + t) * 8);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int j = 2 * jj + h;  // codes 4j .. 4j+3 of the lane's 32: word jj, half h
      std::uint32_t a[4];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const std::uint32_t word = (&w.codes[r].x)[jj];
        mma::e2m1x4_to_bf16(word >> (16 * h), scale[r][j >= 4], a[r], a[r + 2]);
      }
#pragma unroll
      for (int mt = 0; mt < MT; ++mt) {
        const std::uint32_t b[2] = {h == 0 ? act[mt].x : act[mt].z, h == 0 ? act[mt].y : act[mt].w};
        mma::mma_bf16_16816(acc[mt], a, b);
      }
    }
  }
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

// Split-K: store this CTA's partials; true (with acc = the sum over splits in split order) in
// the last CTA of the N-tile, false in the others.
template <int MT>
__device__ bool reduce_splits(const Params& p, CtaCoord cta, float (&acc)[MT][4]) {
  __shared__ bool last;
  const int splits = cta.splits, tile = cta.tile, tid = int(threadIdx.x);
  float4* tile_ws = reinterpret_cast<float4*>(p.workspace) + std::int64_t(tile) * splits * MT * kThreads;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
    __stcg(tile_ws + (std::int64_t(cta.split) * MT + mt) * kThreads + tid,
           make_float4(acc[mt][0], acc[mt][1], acc[mt][2], acc[mt][3]));
  __threadfence();
  __syncthreads();
  if (tid == 0) last = atomicAdd(&p.counters[tile], 1) == splits - 1;
  __syncthreads();
  if (!last) return false;
  __threadfence();
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

// ------------------------------------------------------------------ one CTA's work
// MT: token blocks of 8 (M <= 8 * MT). kAFp4: A is FP4 (w4a4), else bf16 (w4a16). `cta` names
// the rows tile (B rows 64*tile ..) and the K-slice; a caller that runs several GEMMs in one
// launch (grouped) passes each GEMM's Params with its own pointers, workspace and counters.
template <int MT, bool kAFp4>
__device__ __forceinline__ void decode_cta(const Params& p, CtaCoord cta, std::uint16_t* a_tile) {
  static_assert(MT >= 1 && MT <= kMaxTokenBlocks, "8..32 tokens");
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32, g = lane / 4, t = lane % 4;

  const std::int64_t k_begin = std::int64_t(cta.split) * p.groups_per_split * kGroupK;
  const std::int64_t k_end = k_begin + p.groups_per_split * kGroupK < p.k
                                 ? k_begin + p.groups_per_split * kGroupK
                                 : p.k;
  const int slice = int(k_end - k_begin);
  const int groups = (slice + kGroupK - 1) / kGroupK;
  const int stride = a_stride_elements(groups);

  // 1.
  stage_activations<MT, kAFp4>(p, a_tile, k_begin, slice, stride);

  // 2. This lane's rows, once: data pointers (null past N) and the row parts of scale offsets.
  const std::int64_t row0 = std::int64_t(cta.tile) * kRowsPerCta + warp * 16 + g;
  const std::int64_t scale_cols = p.k / (p.mxfp4 ? 32 : 16);
  const std::uint8_t* row_data[2];
  std::int64_t row_scale[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const std::int64_t row = row0 + 8 * r;
    row_data[r] = row < p.n ? p.b.data + row * (p.k / 2) : nullptr;
    row_scale[r] = row < p.n ? scale_offset(p.layout, row, 0, scale_cols) : 0;
  }
  const bool aligned_16 = p.k % 32 == 0;  // rows of K/2 bytes start 16-byte aligned
  __syncthreads();

  // 3.
  float acc[MT][4] = {};
  for (int g0 = 0; g0 < groups; g0 += kUnroll) {
    WeightSlice w[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      w[u] = load_weights(p, row_data, row_scale, k_begin + std::int64_t(g0 + u) * kGroupK + 32 * t,
                          k_end, aligned_16);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (g0 + u < groups)
        multiply_group<MT>(p, w[u], a_tile + (g0 + u) * kGroupK, stride, g, t, acc);
  }

  // 4. acc[mt][2r + e] is D(token 8mt + 2t + e, row row0 + 8r).
  if (cta.splits > 1 && !reduce_splits<MT>(p, cta, acc)) return;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt)
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int e = 0; e < 2; ++e) store_output(p, 8 * mt + 2 * t + e, row0 + 8 * r, acc[mt][2 * r + e]);
}

// ------------------------------------------------------------------ the kernel
// grid = N-tiles x K-splits; dynamic shared memory smem_bytes(MT, groups_per_split).
template <int MT, bool kAFp4>
__global__ void __launch_bounds__(kThreads) decode_gemm_kernel(const Params p) {
  extern __shared__ uint4 smem[];
  decode_cta<MT, kAFp4>(p, CtaCoord{int(blockIdx.x), int(blockIdx.y), int(gridDim.y)},
                        reinterpret_cast<std::uint16_t*>(smem));
}

}  // namespace fp4gemm::cuda::decode
