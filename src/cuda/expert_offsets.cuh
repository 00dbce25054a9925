#pragma once
// The device view of a grouped GEMM's expert offsets (fp4gemm/grouped.hpp): E + 1 first rows,
// int32 or int64, known only on the device (a router may write them). Read by the grouped GEMM
// kernel (grouped_gemm.cuh) and by the grouped FP4 -> bf16 dequantization of A
// (fp4_dequantize.cu).
#include <cuda_runtime.h>

#include <cstdint>

#include "fp4gemm/layout.hpp"

namespace fp4gemm::cuda {

struct ExpertOffsets {
  const void* rows = nullptr;  // E + 1 entries: expert e owns rows rows[e] .. rows[e + 1] - 1
  bool int64 = false;

  __device__ __forceinline__ std::int64_t operator[](std::int64_t i) const {
    return int64 ? static_cast<const std::int64_t*>(rows)[i] : std::int64_t(static_cast<const std::int32_t*>(rows)[i]);
  }
};

// Sum over experts j < e of M_j rounded up to 128: the first row of expert e's block of swizzled
// A scales (each expert's block starts on a 128-row boundary). Every thread of the CTA (kThreads)
// calls it (two barriers).
template <int kThreads>
__device__ std::int64_t padded_rows_before(ExpertOffsets offsets, int e) {
  __shared__ unsigned long long total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  unsigned long long mine = 0;
  for (int j = int(threadIdx.x); j < e; j += kThreads)
    mine += static_cast<unsigned long long>(round_up(offsets[j + 1] - offsets[j], 128));
#pragma unroll
  for (int d = 16; d > 0; d /= 2) mine += __shfl_down_sync(0xFFFFFFFFu, mine, d);
  if (threadIdx.x % 32 == 0 && mine != 0) atomicAdd(&total, mine);
  __syncthreads();
  return std::int64_t(total);
}

}  // namespace fp4gemm::cuda
