#pragma once
// cuda-grouped kernel: the MoE grouped GEMM (fp4gemm/grouped.hpp) of all experts in one launch,
// each CTA running the cuda-decode kernel's CTA (decode::decode_cta) on one expert's GEMM.
//
// Algorithm (grid = N-tiles x K-splits x E: the decode plan of one expert's GEMM, its K-splits
// planned for max(1, E / 2) such GEMMs filling the GPU together (grouped_gemm.cu), repeated for
// every expert; one launch per round of kMaxTokens (1, 8, 16 or 32) tokens per expert, a single
// one when the host's bound on the tokens of an expert is <= kMaxTokens):
//  0. Launched as a programmatic dependent launch (sm_90+, dependent_launch.cuh), the CTA may
//     start during the previous kernel's tail; it waits for that kernel first, since the offsets,
//     A, D, the workspace, counters and status may be its (a router writes the offsets). So only
//     the launch and the CTA's start overlap; decode_cta then lets the next kernel start.
//  1. Read expert e = blockIdx.z's token range from the device offsets (int32 or int64):
//     rows offsets[e] .. offsets[e+1]-1 of A and D. This round's chunk is its rows
//     round*kMaxTokens .. +kMaxTokens-1; a CTA whose chunk is empty returns at once (uniformly, before any
//     barrier), so empty experts cost one offsets load per CTA. In the last round an expert with
//     rows past the chunk (more tokens than the host's bound) records e + 1 in *status
//     (atomicMax) instead of being computed silently wrong.
//  2. Build expert e's decode::Params from the launch's base pointers: B's re-laid codes and
//     scales of expert e (e times one expert's code and scale tiles), A and D rows of the chunk, alpha_e, and
//     expert e's own split-K workspace and counters (concurrent experts never share a counter;
//     successive rounds are separate launches, so they may reuse them). A's FP4 scales (w4a4):
//     linear, the chunk's first row times the scale columns; swizzled, the start of expert e's
//     block (the 128-padded counts of the experts before it, summed by the CTA from the
//     offsets) plus the chunk's row part (exact because kMaxTokens divides 32: see the
//     static_assert).
//  3. decode::decode_cta<kMaxTokens, kAFp4> computes the (N-tile, K-slice) tile of that GEMM.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/decode_gemm.cuh"

namespace fp4gemm::cuda::grouped {

struct Params {
  decode::Params base;                 // shapes, formats, groups_per_split; pointers of expert 0,
                                       // row 0 (m unused)
  const void* offsets = nullptr;       // E + 1 first rows, int32 or int64
  bool offsets_int64 = false;
  const float* alphas = nullptr;       // E: alpha * scale_2(A) * scale_2(B_e)
  std::int64_t b_expert_code_tile_bytes = 0;    // one expert's re-laid codes (code_tiles_bytes)
  std::int64_t b_expert_scale_tile_bytes = 0;   // one expert's re-laid scales (scale_tiles_bytes)
  std::int64_t workspace_expert_floats = 0;     // one expert's split-K partials
  std::int64_t counters_per_expert = 0;         // one expert's split-K counters (its N-tiles)
  int round = 0, rounds = 1;           // this launch's chunk of kMaxTokens tokens, of `rounds`
  int* status = nullptr;               // 0, or 1 + an expert with more tokens than the rounds hold
};

// Step 2's swizzled A-scale split: for a chunk starting at row r0 (a multiple of `chunk`, which
// divides 32), scale_offset(r0 + r, kb) = scale_offset(r0, 0) + scale_offset(r, kb), r < chunk.
constexpr bool chunk_scale_offsets_separate() {
  for (std::int64_t chunk : {1, 8, 16, 32})
    for (std::int64_t cols : {1, 3, 4, 9})
      for (std::int64_t r0 = 0; r0 < 384; r0 += chunk)
        for (std::int64_t r = 0; r < chunk; ++r)
          for (std::int64_t kb = 0; kb < cols; ++kb)
            if (swizzled_offset(r0 + r, kb, cols) != swizzled_offset(r0, 0, cols) + swizzled_offset(r, kb, cols))
              return false;
  return true;
}
static_assert(chunk_scale_offsets_separate(), "chunks of kMaxTokens rows must not straddle a 32-row group");
static_assert(32 % (8 * decode::kMaxTokenBlocks) == 0, "kMaxTokens must divide 32");

__device__ __forceinline__ std::int64_t load_offset(const Params& p, std::int64_t i) {
  return p.offsets_int64 ? static_cast<const std::int64_t*>(p.offsets)[i]
                         : std::int64_t(static_cast<const std::int32_t*>(p.offsets)[i]);
}

// Sum over experts j < e of M_j rounded up to 128: the first row of expert e's swizzled A-scale
// block. Every thread of the CTA (kThreads) calls it (two barriers).
template <int kThreads>
__device__ std::int64_t padded_rows_before(const Params& p, int e) {
  __shared__ unsigned long long total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  unsigned long long mine = 0;
  for (int j = int(threadIdx.x); j < e; j += kThreads)
    mine += static_cast<unsigned long long>(round_up(load_offset(p, j + 1) - load_offset(p, j), 128));
#pragma unroll
  for (int d = 16; d > 0; d /= 2) mine += __shfl_down_sync(0xFFFFFFFFu, mine, d);
  if (threadIdx.x % 32 == 0 && mine != 0) atomicAdd(&total, mine);
  __syncthreads();
  return std::int64_t(total);
}

// Steps 1-2: expert e's Params for this round's chunk, or false when the chunk is empty (every
// thread of the CTA of kWarps warps calls it).
template <int kMaxTokens, bool kAFp4, int kWarps>
__device__ __forceinline__ bool expert_params(const Params& p, int e, decode::Params& x) {
  constexpr int kChunk = kMaxTokens;
  const std::int64_t first = load_offset(p, e), end = load_offset(p, e + 1);
  const std::int64_t row0 = first + std::int64_t(p.round) * kChunk;  // the chunk's first row
  if (p.round == p.rounds - 1 && row0 + kChunk < end && threadIdx.x == 0 && blockIdx.x == 0 &&
      blockIdx.y == 0)
    atomicMax(p.status, e + 1);
  if (row0 >= end) return false;

  x = p.base;
  x.m = end - row0 < kChunk ? end - row0 : kChunk;
  const std::int64_t k = x.k, scale_cols = k / (x.mxfp4 ? 32 : 16);
  x.b.data += std::int64_t(e) * p.b_expert_code_tile_bytes;
  x.scale_tiles += std::int64_t(e) * p.b_expert_scale_tile_bytes;
  if constexpr (kAFp4) {
    x.a_fp4.data += row0 * (k / 2);
    if (x.layout == ScaleLayout::linear) {
      x.a_fp4.scales += row0 * scale_cols;
    } else {
      x.a_fp4.scales += padded_rows_before<decode::threads_of(kWarps)>(p, e) * round_up(scale_cols, 4) +
                        swizzled_offset(row0 - first, 0, scale_cols);
    }
    x.a_fp4.scale_bytes = scale_bytes(x.layout, x.m, scale_cols);
  } else {
    x.a_bf16 += row0 * k;
  }
  x.out = static_cast<char*>(x.out) + row0 * x.n * dtype_bytes(x.out_dtype);
  x.alpha = p.alphas[e];
  x.workspace += std::int64_t(e) * p.workspace_expert_floats;
  x.counters += std::int64_t(e) * p.counters_per_expert;
  return true;
}

// The kernel's launch bound: CTAs of `warps` warps that must fit an SM by registers, 24 warps in
// all, so at most 80 registers per thread (cuda-decode's kernel takes at most 80 unbounded).
// Unbounded, ptxas gave the 16-token w4a4 wide instance 103 (2 CTAs per SM instead of 3; bounded:
// no spills) and the 32-token ones 86-101 (bounded: 8-20 bytes of spills).
constexpr int min_ctas_per_sm(int warps) { return 24 / warps; }

// CTAs of kWarps warps (the decode plan's); dynamic shared memory: the decode plan's smem_bytes.
template <int kMaxTokens, bool kAFp4, int kWarps>
__global__ void __launch_bounds__(decode::threads_of(kWarps), min_ctas_per_sm(kWarps))
grouped_gemm_kernel(const Params p) {
  extern __shared__ uint4 smem[];
  wait_for_prerequisite_grids();
  decode::Params expert;
  if (!expert_params<kMaxTokens, kAFp4, kWarps>(p, int(blockIdx.z), expert)) return;
  decode::decode_cta<kMaxTokens, kAFp4, kWarps>(
      expert, decode::CtaCoord{int(blockIdx.x), int(blockIdx.y), int(gridDim.y)}, reinterpret_cast<std::uint16_t*>(smem));
}

}  // namespace fp4gemm::cuda::grouped
