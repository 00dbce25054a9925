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
//     round*kMaxTokens .. +kMaxTokens-1, of which the round computes those within the host's
//     bound on an expert's tokens (the plan sized the A tile for min(bound, kMaxTokens) rows: a
//     bound of 5 plans the 8-token instance for 5 rows, a bound of 0 computes nothing); a CTA
//     with no rows to compute returns at once (uniformly, before any barrier), so empty experts
//     cost one offsets load per CTA. In the last round an expert with more tokens than the bound
//     records e + 1 in *status (atomicMax) instead of being computed silently wrong.
//  2. Build expert e's decode::Params from the launch's base pointers: B's re-laid codes and
//     scales of expert e (e times one expert's code and scale tiles), A (bf16: w4a16's, or w4a4's
//     FP4 activations dequantized once per call by the kernel before this one, fp4_dequantize.cu)
//     and D rows of the chunk, alpha_e, and expert e's own split-K workspace and counters
//     (concurrent experts never share a counter; successive rounds are separate launches, so they
//     may reuse them).
//  3. decode::decode_cta<kMaxTokens> computes the (N-tile, K-slice) tile of that GEMM.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/decode_gemm.cuh"
#include "cuda/expert_offsets.cuh"

namespace fp4gemm::cuda::grouped {

struct Params {
  decode::Params base;                 // shapes, formats, groups_per_split; pointers of expert 0,
                                       // row 0 (m unused)
  ExpertOffsets offsets;
  const float* alphas = nullptr;       // E: alpha * scale_2(A) * scale_2(B_e)
  std::int64_t b_expert_code_tile_bytes = 0;    // one expert's re-laid codes (code_tiles_bytes)
  std::int64_t b_expert_scale_tile_bytes = 0;   // one expert's re-laid scales (scale_tiles_bytes)
  std::int64_t workspace_expert_floats = 0;     // one expert's split-K partials
  std::int64_t counters_per_expert = 0;         // one expert's split-K counters (its N-tiles)
  int round = 0, rounds = 1;           // this launch's chunk of kMaxTokens tokens, of `rounds`
  std::int64_t bound = 0;              // the host's bound on an expert's tokens (>= 0)
  int* status = nullptr;               // 0, or 1 + an expert with more tokens than the bound
};

// Steps 1-2: expert e's Params for this round's chunk, or false when the chunk is empty (the same
// answer in every thread of the CTA).
template <int kMaxTokens>
__device__ __forceinline__ bool expert_params(const Params& p, int e, decode::Params& x) {
  constexpr std::int64_t kChunk = kMaxTokens;
  const std::int64_t first = p.offsets[e], end = p.offsets[e + 1];
  if (p.round == p.rounds - 1 && end - first > p.bound && threadIdx.x == 0 && blockIdx.x == 0 &&
      blockIdx.y == 0)
    atomicMax(p.status, e + 1);
  const std::int64_t row0 = first + p.round * kChunk;  // the chunk's first row
  // Its rows that exist and lie within the bound (the A tile's rows: step 1).
  const auto smaller = [](std::int64_t a, std::int64_t b) { return a < b ? a : b; };
  const std::int64_t rows = smaller(end - row0, smaller(kChunk, p.bound - p.round * kChunk));
  if (rows <= 0) return false;

  x = p.base;
  x.m = rows;
  x.b.data += std::int64_t(e) * p.b_expert_code_tile_bytes;
  x.scale_tiles += std::int64_t(e) * p.b_expert_scale_tile_bytes;
  x.a_bf16 += row0 * x.k;
  x.out = static_cast<char*>(x.out) + row0 * x.n * dtype_bytes(x.out_dtype);
  x.alpha = p.alphas[e];
  x.workspace += std::int64_t(e) * p.workspace_expert_floats;
  x.counters += std::int64_t(e) * p.counters_per_expert;
  return true;
}

// The kernel's launch bound: CTAs of `warps` warps that must fit an SM by registers, 24 warps in
// all, so at most 80 registers per thread (cuda-decode's kernel takes at most 80 unbounded).
// Unbounded, ptxas (sm_90a) gives the 32-token instances 86 (2 wide CTAs per SM instead of 3;
// bounded: 8 bytes of spills; measured in bench/results/grouped_own_occupancy, 384 -> 337 us at
// 32 tokens per expert) and the others 72-79. (Before w4a4's A was dequantized by a kernel of its
// own, the FP4 staging took the 16-token wide instance to 103.)
constexpr int min_ctas_per_sm(int warps) { return 24 / warps; }

// CTAs of kWarps warps (the decode plan's); dynamic shared memory: the decode plan's smem_bytes.
template <int kMaxTokens, int kWarps>
__global__ void __launch_bounds__(decode::threads_of(kWarps), min_ctas_per_sm(kWarps))
grouped_gemm_kernel(const Params p) {
  extern __shared__ uint4 smem[];
  wait_for_prerequisite_grids();
  decode::Params expert;
  if (!expert_params<kMaxTokens>(p, int(blockIdx.z), expert)) return;
  decode::decode_cta<kMaxTokens, kWarps>(
      expert, decode::CtaCoord{int(blockIdx.x), int(blockIdx.y), int(gridDim.y)}, reinterpret_cast<std::uint16_t*>(smem));
}

}  // namespace fp4gemm::cuda::grouped
