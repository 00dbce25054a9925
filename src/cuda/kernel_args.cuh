#pragma once
// The arguments every FP4 GEMM kernel of fp4gemm takes (each family's Params adds its launch
// geometry), filled from a problem and its device pointers; the scale-addressing property both
// families rely on; and the split-K handshake and partial sum both use.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/kernel_operands.hpp"
#include "cuda/mma_primitives.cuh"
#include "fp4gemm/gemm.hpp"
#include "fp4gemm/layout.hpp"
#include "fp4gemm/matrix.hpp"

namespace fp4gemm::cuda {

struct GemmArgs {
  std::int64_t m = 0, n = 0, k = 0;
  bool mxfp4 = false;                      // else NVFP4
  ScaleLayout layout = ScaleLayout::linear;
  mma::Fp4View b;                          // N x K; data in the family's BForm (kernel_operands.hpp)
  mma::Fp4View a_fp4;                      // M x K (w4a4)
  const std::uint16_t* a_bf16 = nullptr;   // M x K bf16 codes (w4a16)
  float alpha = 1.0f;                      // alpha_total
  DType out_dtype = DType::f32;
  void* out = nullptr;                     // M x N row-major
  float* workspace = nullptr;              // split-K partials (layout: the family's)
  int* counters = nullptr;                 // split-K: one per output tile, zero between launches
};

inline GemmArgs gemm_args(const GemmProblem& problem, const KernelPointers& ops) {
  GemmArgs a;
  a.m = problem.shape.m;
  a.n = problem.shape.n;
  a.k = problem.shape.k;
  a.mxfp4 = problem.format == Fp4Format::mxfp4;
  a.layout = problem.scale_layout;
  a.b = {ops.b_data, ops.b_scales, ops.b_scale_bytes};
  a.a_fp4 = {ops.a_data, ops.a_scales, ops.a_scale_bytes};
  a.a_bf16 = ops.a_bf16;
  a.alpha = ops.alpha;
  a.out_dtype = problem.out_dtype;
  a.out = ops.out;
  a.workspace = ops.workspace;
  a.counters = ops.counters;
  return a;
}

// Scale offsets split into a row part and a k part in both layouts,
//   scale_offset(r, kb) = scale_offset(r, 0) + scale_offset(0, kb),  scale_offset(0, kb) = kb (mod 4),
// so a thread computes its rows' parts once and one k part per K-step; the byte lane of
// scale(r, kb) in its aligned word is (scale_offset(r, 0) + kb) & 3, and for even kb the scale of
// kb + 1 is the next byte. Both kernel families address scales this way.
constexpr bool scale_offsets_separate() {
  for (ScaleLayout layout : {ScaleLayout::linear, ScaleLayout::swizzled})
    for (std::int64_t cols : {1, 2, 3, 5, 8, 9, 13})
      for (std::int64_t r = 0; r < 260; ++r)
        for (std::int64_t kb = 0; kb < cols; ++kb) {
          const std::int64_t k_part = scale_offset(layout, 0, kb, cols);
          if (scale_offset(layout, r, kb, cols) != scale_offset(layout, r, 0, cols) + k_part ||
              (k_part & 3) != (kb & 3))
            return false;
        }
  return true;
}
static_assert(scale_offsets_separate(), "the kernels' scale addressing assumes this of layout.hpp");

// Split-K handshake, called after storing their partials by every thread that `sync` joins (a
// barrier of exactly those threads: a whole CTA, or cuda-wgmma's consumer warps on a named
// barrier): true in the CTA that arrives last of `splits` at `counter`, which may then read the
// others' partials. The `leader` thread counts, after the barrier, with an acq_rel atomic: its
// release orders the threads' stores (made its own by the barrier: cumulativity) before the
// count, its acquire the last CTA's partial loads (after the second barrier) after the other
// CTAs' counts. `flag`: a shared word, free again once every thread has read the result. One
// round trip; a __threadfence in every thread before the count cost another
// (bench/results/h200_decode_fixed_cost).
template <class Sync>
__device__ __forceinline__ bool last_to_arrive(int* counter, int splits, bool leader, int* flag, Sync&& sync) {
  sync();
  if (leader) {
    int before;
    asm volatile("atom.acq_rel.gpu.global.add.s32 %0, [%1], 1;\n" : "=r"(before) : "l"(counter) : "memory");
    *flag = before == splits - 1;
  }
  sync();
  return *flag != 0;
}

// The same for every thread of the CTA.
__device__ __forceinline__ bool last_to_arrive(int* counter, int splits) {
  __shared__ int last;
  return last_to_arrive(counter, splits, threadIdx.x == 0, &last, [] { __syncthreads(); });
}

// The sum of `count` float4 partials load(0) .. load(count - 1), added in split order (so runs are
// bit-reproducible, and the global and the cluster sums of cuda-decode give the same bits), kBatch
// loads in flight: one dependent round trip per partial would dominate at decode sizes (tens of
// splits).
template <class Load>
__device__ __forceinline__ float4 sum_in_split_order(int count, Load&& load) {
  constexpr int kBatch = 8;
  float4 sum = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int s0 = 0; s0 < count; s0 += kBatch) {
    float4 v[kBatch];
#pragma unroll
    for (int b = 0; b < kBatch; ++b)
      if (s0 + b < count) v[b] = load(s0 + b);
#pragma unroll
    for (int b = 0; b < kBatch; ++b) {
      if (s0 + b >= count) break;
      sum.x += v[b].x;
      sum.y += v[b].y;
      sum.z += v[b].z;
      sum.w += v[b].w;
    }
  }
  return sum;
}

// The partials first[s * stride], s = 0 .. count-1, in global memory (L2: other CTAs stored them),
// summed by the one CTA that owes the sum; they are dead afterwards, so their L2 lines are then
// discarded (discard.global.L2, sm_80+) instead of being written back to DRAM when evicted: a
// dirty line costs a DRAM write, and for GLM-5's gate_up experts at 16 tokens (6 K-slices) the
// partials are 50 MB per call against 453 MB of weights. The lanes of a warp must call it together
// with consecutive lanes' `first` consecutive float4s (the split-K layouts of cuda-decode,
// cuda-mma and cuda-wgmma): a line is discarded by the lane whose float4 starts it, when the
// other 7 float4s of the line are those of the 7 lanes after it (so every reader of the line has
// its values: __syncwarp orders their loads before the discard).
__device__ __forceinline__ float4 sum_partials(const float4* first, std::int64_t stride, int count) {
  const float4 sum = sum_in_split_order(count, [&](int s) { return __ldcg(first + std::int64_t(s) * stride); });
  __syncwarp();
  if (reinterpret_cast<std::uintptr_t>(first) % 128 == 0 && threadIdx.x % 32 % 8 == 0)
    for (int s = 0; s < count; ++s)
      asm volatile("discard.global.L2 [%0], 128;\n" ::"l"(first + std::int64_t(s) * stride) : "memory");
  return sum;
}

}  // namespace fp4gemm::cuda
