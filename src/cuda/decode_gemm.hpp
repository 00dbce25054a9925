#pragma once
// Host side of the cuda-decode kernel family (decode_gemm.cuh): admission, the launch plan
// (token blocks, K-slices to fill the GPU) and the launch.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/kernel_operands.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

// The largest M the decode kernels take (4 blocks of 8 tokens).
inline constexpr std::int64_t kDecodeMaxM = 32;

struct DecodePlan {
  int token_blocks = 1;         // MT: M <= 8 * MT
  int tiles_n = 0;              // CTAs along N (64 rows each)
  int k_groups = 0;             // ceil(K / 128)
  int splits = 1;               // K-slices (grid y)
  int groups_per_split = 0;     // 128-k groups per K-slice
  int smem_bytes = 0;           // the A slice
  int ctas_per_sm = 0;          // occupancy, from the runtime
  std::size_t workspace_floats = 0;
  std::size_t counters = 0;
  std::string describe() const;  // "M <= 8: 96 x 6 CTAs of 128 threads, K-slices of 1024, ..."
};

// Format rules (validate_shape) and M <= kDecodeMaxM.
Verdict decode_can_implement(const GemmProblem& problem);
// Whether this build holds machine code of the kernels for the current device.
Verdict decode_kernel_image_present();
// Throws InvalidArgument when decode_can_implement refuses the problem.
DecodePlan plan_decode_gemm(const GemmProblem& problem);
// The kernels copy swizzled scales as whole aligned 4-byte words (one 4-block column group of a
// row each): a swizzled scale array must start 4-byte aligned (every allocation does, and each
// expert's array of a grouped launch is a whole number of 512-byte blocks). Throws otherwise.
void require_decode_scale_alignment(ScaleLayout layout, const std::uint8_t* scales);

void launch_decode_gemm(const GemmProblem& problem, const DecodePlan& plan,
                        const KernelPointers& ops, cudaStream_t stream);

}  // namespace fp4gemm::cuda
