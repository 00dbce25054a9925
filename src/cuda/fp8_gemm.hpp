#pragma once
// Host side of the cuda-fp8-lossy kernel (fp8_gemm.cuh, sm_90a): admission, the launch plan, the
// three TMA tensor maps (activation codes, weight codes, activation scales) and the launch.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "cuda/tensor_map.hpp"
#include "fp4gemm/backend.hpp"

namespace fp4gemm::cuda {

struct Fp8Plan {
  int block_m = 0, block_n = 0, block_k = 0;  // tokens x weight rows x K per tile
  int stages = 0, threads = 0, smem_bytes = 0;
  int tiles_m = 0, tiles_n = 0, tiles = 0, k_blocks = 0;
  std::int64_t padded_k = 0;   // K rounded up to 128 (zero codes)
  std::int64_t scale_stride = 0;  // floats per row of the activation scales (M rounded up to 4)
  int grid = 0;                // persistent CTAs: min(tiles, multiprocessors)
  std::string describe() const;  // "128x128x128 (M x N x K), 6 stages, ..."
};

// What the kernel cannot take: the format's rules (validate_shape) and sizes past TMA's signed
// 32-bit coordinates. Any K the format allows is taken (padded to 128). Needs no GPU.
Verdict fp8_can_implement(const GemmProblem& problem);

// Whether this build holds machine code of the kernel for the current device.
Verdict fp8_kernel_image_present();

// The plan for a GPU with `multiprocessors` SMs (no device call). Throws InvalidArgument if the
// problem is refused by fp8_can_implement.
Fp8Plan fp8_plan_for(const GemmProblem& problem, int multiprocessors);

// fp8_plan_for on the current device, with the kernel's shared-memory limit raised.
Fp8Plan plan_fp8_gemm(const GemmProblem& problem);

// The tensor maps' parameters (no GPU needed): activation codes (M x Kp, boxes 128 k x 128
// tokens, 128-byte swizzle), weight codes (N x Kp, 128 k x 128 rows, 128-byte swizzle) and
// activation scales ([Kp/128] rows of scale_stride floats, boxes of 128 tokens x 1 block).
TensorMap2d fp8_activation_map(const GemmProblem& problem, const Fp8Plan& plan);
TensorMap2d fp8_weight_map(const GemmProblem& problem, const Fp8Plan& plan);
TensorMap2d fp8_scale_map(const GemmProblem& problem, const Fp8Plan& plan);

struct Fp8Operands {
  const std::uint8_t* act_codes = nullptr;   // M x Kp
  const float* act_scales = nullptr;         // [Kp/128][scale_stride]
  const std::uint8_t* weight_codes = nullptr;  // N x Kp
  const float* weight_scales = nullptr;      // [ceil(N/128)][Kp/128]
  float alpha = 1.0f;                        // alpha_total
  void* out = nullptr;                       // M x N of out_dtype
};

struct Fp8TensorMaps {
  CUtensorMap activations{}, weights{}, act_scales{};
};
Fp8TensorMaps encode_fp8_maps(const GemmProblem& problem, const Fp8Plan& plan, const Fp8Operands& ops);

// Enqueue the GEMM on `stream` (no allocation, no synchronization).
void launch_fp8_gemm(const GemmProblem& problem, const Fp8Plan& plan, const Fp8TensorMaps& maps,
                     const Fp8Operands& ops, cudaStream_t stream);

}  // namespace fp4gemm::cuda
