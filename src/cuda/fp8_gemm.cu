// Host launcher of the cuda-fp8-lossy kernel: admission, one tile config (128 tokens x 128 weight
// rows x 128, 6 stages), a persistent grid of min(tiles, SMs) CTAs, TMA tensor maps.
#include "cuda/fp8_gemm.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/fp8_gemm.cuh"
#include "cuda/gpu_requirement.hpp"
#include "format/fp8_blocks.hpp"

namespace fp4gemm::cuda {
namespace {

using Cfg = fp8::Tile128;

}  // namespace

std::string Fp8Plan::describe() const {
  return fmt::format("{}x{}x{} (M x N x K), {} stages, {} threads, {} B smem, {} tiles on {} "
                     "persistent CTAs, K padded to {}",
                     block_m, block_n, block_k, stages, threads, smem_bytes, tiles, grid, padded_k);
}

Verdict fp8_can_implement(const GemmProblem& problem) {
  const GemmShape& s = problem.shape;
  if (const Verdict shape = shape_verdict(s, problem.format); !shape) return shape;
  if (s.m > INT32_MAX || s.n > INT32_MAX || fp8_padded_k(s.k) > INT32_MAX)
    return Verdict::no(fmt::format("M x N x K = {} x {} x {}: TMA box coordinates are signed 32-bit",
                                   s.m, s.n, s.k));
  const std::int64_t tiles = ((s.m + Cfg::BM - 1) / Cfg::BM) * ((s.n + Cfg::BN - 1) / Cfg::BN);
  if (tiles > INT32_MAX)
    return Verdict::no(fmt::format("{} output tiles exceed the 32-bit tile index", tiles));
  return Verdict::yes();
}

Verdict fp8_kernel_image_present() {
  return kernel_image_present(reinterpret_cast<const void*>(fp8::fp8_gemm_kernel<Cfg>), "cuda-fp8-lossy");
}

Fp8Plan fp8_plan_for(const GemmProblem& problem, int multiprocessors) {
  const Verdict verdict = fp8_can_implement(problem);
  if (!verdict) throw InvalidArgument(verdict.reason);
  const GemmShape& s = problem.shape;
  Fp8Plan plan;
  plan.block_m = Cfg::BM;
  plan.block_n = Cfg::BN;
  plan.block_k = Cfg::BK;
  plan.stages = Cfg::STAGES;
  plan.threads = Cfg::kThreads;
  plan.smem_bytes = Cfg::kSmemBytes;
  plan.tiles_m = int((s.m + Cfg::BM - 1) / Cfg::BM);
  plan.tiles_n = int((s.n + Cfg::BN - 1) / Cfg::BN);
  plan.tiles = plan.tiles_m * plan.tiles_n;
  plan.padded_k = fp8_padded_k(s.k);
  plan.k_blocks = int(plan.padded_k / Cfg::BK);
  plan.scale_stride = (s.m + 3) / 4 * 4;  // TMA: 16-byte aligned rows of fp32
  plan.grid = std::max(1, std::min(plan.tiles, multiprocessors));
  return plan;
}

Fp8Plan plan_fp8_gemm(const GemmProblem& problem) {
  const Fp8Plan plan = fp8_plan_for(problem, current_device_attribute(cudaDevAttrMultiProcessorCount));
  allow_dynamic_smem(reinterpret_cast<const void*>(fp8::fp8_gemm_kernel<Cfg>), plan.smem_bytes,
                     fmt::format("cuda-fp8-lossy: the {}x{}x{} config", plan.block_m, plan.block_n,
                                 plan.block_k));
  return plan;
}

TensorMap2d fp8_activation_map(const GemmProblem& problem, const Fp8Plan& plan) {
  return {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, std::uint64_t(plan.padded_k), std::uint64_t(problem.shape.m),
          std::uint64_t(plan.padded_k), Cfg::BK, Cfg::BM, CU_TENSOR_MAP_SWIZZLE_128B};
}

TensorMap2d fp8_weight_map(const GemmProblem& problem, const Fp8Plan& plan) {
  return {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, std::uint64_t(plan.padded_k), std::uint64_t(problem.shape.n),
          std::uint64_t(plan.padded_k), Cfg::BK, Cfg::BN, CU_TENSOR_MAP_SWIZZLE_128B};
}

TensorMap2d fp8_scale_map(const GemmProblem& problem, const Fp8Plan& plan) {
  return {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, std::uint64_t(problem.shape.m), std::uint64_t(plan.k_blocks),
          std::uint64_t(plan.scale_stride) * 4, Cfg::BM, 1, CU_TENSOR_MAP_SWIZZLE_NONE};
}

Fp8TensorMaps encode_fp8_maps(const GemmProblem& problem, const Fp8Plan& plan, const Fp8Operands& ops) {
  return {encode_tensor_map(fp8_activation_map(problem, plan), ops.act_codes),
          encode_tensor_map(fp8_weight_map(problem, plan), ops.weight_codes),
          encode_tensor_map(fp8_scale_map(problem, plan), ops.act_scales)};
}

void launch_fp8_gemm(const GemmProblem& problem, const Fp8Plan& plan, const Fp8TensorMaps& maps,
                     const Fp8Operands& ops, cudaStream_t stream) {
  fp8::Params p;
  p.m = problem.shape.m;
  p.n = problem.shape.n;
  p.k_blocks = plan.k_blocks;
  p.tiles_m = plan.tiles_m;
  p.tiles_n = plan.tiles_n;
  p.tiles = plan.tiles;
  p.weight_scales = ops.weight_scales;
  p.alpha = ops.alpha;
  p.out_dtype = problem.out_dtype;
  p.out = ops.out;
  fp8::fp8_gemm_kernel<Cfg><<<plan.grid, Cfg::kThreads, std::size_t(plan.smem_bytes), stream>>>(
      maps.activations, maps.weights, maps.act_scales, p);
  FP4GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace fp4gemm::cuda
