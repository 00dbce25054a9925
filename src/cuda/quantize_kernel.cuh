#pragma once
// Kernels of GPU quantization to NVFP4 / MXFP4 (launchers: gpu_quantize.cu). Every rounding rule
// comes from format/quantize_rules.hpp and codecs.hpp, which the CPU quantizer calls too: the two
// are bit-identical by construction. Compile without --use_fast_math (IEEE division, no FTZ).
//
// Input x: rows x cols of f32/bf16/f16, row-major, 16-byte aligned; cols is a multiple of 16, so
// every group of 16 consecutive elements starts 16-byte aligned and never crosses a row.
//
// amax_kernel (measure_scale_2_on_device), x seen as rows*cols/16 groups of 16 elements:
//   1. each thread walks the groups grid-stride: two 16-byte loads (bf16/f16) or four (f32),
//      widened to fp32 exactly; keeps the max of |x| as fp32 bits;
//   2. a group holding NaN/inf records its first such element (atomicMin on its key);
//   3. the block reduces the maxima (warp shuffles, then one value per warp through shared
//      memory) and thread 0 does one atomicMax on the bits.
//
// quantize_kernel<D, F, E>, one scale block (16 NVFP4 / 32 MXFP4 elements) per group of kLanes =
// block / E consecutive lanes, each lane owning E consecutive elements. E = 16 (one lane per
// NVFP4 block: the scale, an fp32 division and two E4M3 conversions, is computed once per 16
// elements) where the tensor fills the GPU; E = 4 (4 / 8 lanes per block, each lane computing
// the block's scale itself) for small tensors (a decode step's activations: 16 x 6144 is 6,144
// lanes of 16), whose time is one lane's latency (16 IEEE divisions in series), not the work
// (bench/results/w4a4_small_split: ~4.9 us under ncu for 768 lanes as for 6,144):
//   0. launched as a programmatic dependent launch (sm_90+, dependent_launch.cuh), wait for the
//      previous kernel of the stream before touching memory, then let the next kernel start (a
//      w4a4 decode GEMM's first weight copies overlap this kernel);
//   1. task t -> (row r, scale column kb, part p of the block) over the scale grid padded to the
//      layout (swizzled: rows to 128, scale columns to 4; linear: no padding); consecutive tasks
//      read consecutive pieces of a row, so a warp's loads cover one contiguous span. A padding
//      task writes its zero scale byte and stops;
//   2. load the lane's 16 elements and widen them to fp32 exactly (codecs.hpp);
//   3. block amax: max of |x| bits over the lane, then over the group (__shfl_xor_sync on the
//      group's lanes); NaN/inf records its position (the host check rejects the tensor);
//   4. scale code and divisor (quantize_rules.hpp); part 0 writes the scale byte at
//      scale_offset(layout, r, kb);
//   5. E E2M1 codes fp4_code(x, divisor) packed into E / 2 bytes (element 2i in the low nibble
//      of byte i), one store (8 or 2 bytes): a warp stores 16 E contiguous bytes;
//   6. if block_values is given: the E elements' block values e2m1(code) x block scale (no
//      scale_2; exact in bf16), two 16-byte stores or one 8-byte store.
//   (Steps 2-6 of one lane: quantize_lane.cuh, shared with cuda-decode's w4a4 staging.)
//
// Bytes, 16384 x 6144 NVFP4 from bf16 (a large GLM-5 activation): read 201.3 MB, write 50.3 MB of
// codes and 6.3 MB of scales, 257.9 MB: ~60 us at the 4.3 TB/s measured on the H200. A measured
// scale_2 adds the amax pass, 201.3 MB read (~47 us). From f32: 402.7 + 56.6 MB (~107 us).
// Measured on the H200 (graph replay, 2026-12-02): 192 us, 1.34 TB/s: compute-bound, not
// memory-bound. Each element costs one IEEE division (MUFU.RCP, FFMA refinement, FCHK and its
// slow-path branch) and the 7-compare E2M1 chain, ~35 instructions; 8 elements per lane with the
// earlier branchy E2M1 took 256 us. The amax pass took 105 us with its synchronization. Reaching
// the memory floor needs a division-free fp4_code proven equal to x / divisor, in
// quantize_rules.hpp so that the CPU shares it.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/dependent_launch.cuh"
#include "cuda/quantize_lane.cuh"
#include "fp4gemm/layout.hpp"

namespace fp4gemm::cuda {

inline constexpr int kQuantizeThreads = 256;  // threads per CUDA block, both kernels

struct QuantizeArgs {
  const void* x;            // rows x cols of the kernel's DType
  std::int64_t rows, cols;  // rows, cols < 2^31 (keys of QuantizeStatusWords)
  ScaleLayout layout;
  std::int64_t padded_rows;        // rows rounded up to the layout's row tile (128 or 1)
  std::int64_t padded_scale_cols;  // cols / block rounded up to the layout's column tile (4 or 1)
  float scale_2;                   // NVFP4 tensor scale, positive and finite; 1 for MXFP4
  std::uint8_t* data;              // rows x cols/2 bytes
  std::uint8_t* scales;            // scale_bytes(layout, rows, cols / block) bytes
  QuantizeStatusWords* status;
  std::uint16_t* block_values;     // optional (nullptr): rows x cols bf16, step 6
};

// groups = rows * cols / kElementsPerLane. Result: status->amax_bits = max(itself, max |x| bits)
// and status->first_non_finite lowered to the first NaN/inf.
template <DType D>
__global__ void __launch_bounds__(kQuantizeThreads)
    amax_kernel(const void* __restrict__ x, std::int64_t groups, std::int64_t cols,
                QuantizeStatusWords* status) {
  std::uint32_t local = 0;
  for (std::int64_t g = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; g < groups;
       g += std::int64_t(gridDim.x) * blockDim.x) {
    float v[kElementsPerLane];
    const std::int64_t element = g * kElementsPerLane;
    load_lane<D>(x, element, v);
    const std::uint32_t m = max_abs_bits(v);
    if (m >= kInfBits) record_non_finite(v, element / cols, element % cols, status);
    local = max(local, m);
  }
  for (int offset = 16; offset > 0; offset /= 2)
    local = max(local, __shfl_xor_sync(0xFFFFFFFFu, local, offset));
  __shared__ std::uint32_t warp_max[kQuantizeThreads / 32];
  if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = local;
  __syncthreads();
  if (threadIdx.x == 0) {
    std::uint32_t m = 0;
    for (int w = 0; w < kQuantizeThreads / 32; ++w) m = max(m, warp_max[w]);
    atomicMax(&status->amax_bits, m);
  }
}

template <DType D, Fp4Format F, int E>
__global__ void __launch_bounds__(kQuantizeThreads) quantize_kernel(QuantizeArgs a) {
  constexpr int kBlock = block_size(F);
  constexpr int kLanes = kBlock / E;  // E = 16: 1 (NVFP4) or 2 (MXFP4); E = 4: 4 or 8
  static_assert(kBlock % E == 0 && 32 % kLanes == 0, "a scale block is whole lanes of one warp");
  wait_for_prerequisite_grids();  // 0.
  allow_dependent_grids();
  const std::int64_t scale_cols = a.cols / kBlock;
  const std::int64_t tasks = a.padded_rows * a.padded_scale_cols * kLanes;
  // A group's kLanes lanes share one block: the grid stride and blockDim are multiples of 32, so
  // a group is always whole, and every branch below is uniform over it.
  const unsigned lane = threadIdx.x % 32;
  const unsigned group_mask = ((1u << kLanes) - 1u) << (lane & ~unsigned(kLanes - 1));
  for (std::int64_t t = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; t < tasks;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const int part = int(t % kLanes);
    const std::int64_t block_index = t / kLanes;
    const std::int64_t r = block_index / a.padded_scale_cols;
    const std::int64_t kb = block_index % a.padded_scale_cols;
    std::uint8_t* scale_byte = a.scales + scale_offset(a.layout, r, kb, scale_cols);
    if (r >= a.rows || kb >= scale_cols) {  // padding of the swizzled layout
      if (part == 0) *scale_byte = 0;
      continue;
    }
    const std::int64_t column0 = kb * kBlock + part * E;
    float v[E];
    load_lane<D>(a.x, r * a.cols + column0, v);
    std::uint32_t amax_bits = max_abs_bits(v);
    if (amax_bits >= kInfBits) record_non_finite(v, r, column0, a.status);
#pragma unroll
    for (int offset = kLanes / 2; offset > 0; offset /= 2)
      amax_bits = max(amax_bits, __shfl_xor_sync(group_mask, amax_bits, offset));
    const float block_amax = float_from_bits(amax_bits);
    const std::uint8_t scale = block_scale_code<F>(block_amax, a.scale_2);
    if (part == 0) *scale_byte = scale;
    const unsigned long long packed = lane_codes<F>(v, scale, a.scale_2);
    // column0 is a multiple of E and cols / 2 of 8: the E / 2-byte store is aligned.
    std::uint8_t* codes = a.data + (r * a.cols + column0) / 2;
    if constexpr (E == kElementsPerLane)
      *reinterpret_cast<unsigned long long*>(codes) = packed;
    else
      *reinterpret_cast<std::uint16_t*>(codes) = std::uint16_t(packed);
    if (a.block_values) {  // 6.
      std::uint32_t pairs[E / 2];
      lane_block_values<F, E>(packed, scale, pairs);
      std::uint16_t* out = a.block_values + r * a.cols + column0;
      if constexpr (E == kElementsPerLane) {
        reinterpret_cast<uint4*>(out)[0] = make_uint4(pairs[0], pairs[1], pairs[2], pairs[3]);
        reinterpret_cast<uint4*>(out)[1] = make_uint4(pairs[4], pairs[5], pairs[6], pairs[7]);
      } else {
        *reinterpret_cast<uint2*>(out) = make_uint2(pairs[0], pairs[1]);
      }
    }
  }
}

}  // namespace fp4gemm::cuda
