// Host launcher of the cuda-wgmma kernel: admission, one tile config (128 weight rows x 128
// tokens x 64, 8 stages), a persistent grid of min(tiles, SMs) CTAs, TMA tensor maps.
#include "cuda/wgmma_gemm.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/wgmma_gemm.cuh"

namespace fp4gemm::cuda {
namespace {

using Cfg = wgmma::Tile128;

}  // namespace

std::string WgmmaPlan::describe() const {
  return fmt::format("{}x{}x{} (N x M x K), {} stages, {} threads, {} B smem, {} tiles on {} "
                     "persistent CTAs",
                     block_n, block_m, block_k, stages, threads, smem_bytes, tiles, grid);
}

Verdict wgmma_can_implement(const GemmProblem& problem) {
  const GemmShape& s = problem.shape;
  try {
    validate_shape(s, problem.format);
  } catch (const InvalidArgument& e) {
    return Verdict::no(e.what());
  }
  if (s.k % 32 != 0)
    return Verdict::no(fmt::format("K = {}: rows of B (K/2 = {} bytes) must be 16-byte aligned for "
                                   "TMA (K a multiple of 32)", s.k, s.k / 2));
  if (s.m > INT32_MAX || s.n > INT32_MAX || s.k > INT32_MAX)
    return Verdict::no(fmt::format("M x N x K = {} x {} x {}: TMA box coordinates are signed 32-bit",
                                   s.m, s.n, s.k));
  const std::int64_t tiles = ((s.m + Cfg::BM - 1) / Cfg::BM) * ((s.n + Cfg::BN - 1) / Cfg::BN);
  if (tiles > INT32_MAX)
    return Verdict::no(fmt::format("{} output tiles exceed the 32-bit tile index", tiles));
  return Verdict::yes();
}

Verdict wgmma_kernel_image_present() {
  return kernel_image_present(reinterpret_cast<const void*>(wgmma::wgmma_gemm_kernel<Cfg>),
                              "cuda-wgmma");
}

WgmmaPlan wgmma_plan_for(const GemmProblem& problem, int multiprocessors) {
  const Verdict verdict = wgmma_can_implement(problem);
  if (!verdict) throw InvalidArgument(verdict.reason);
  const GemmShape& s = problem.shape;
  WgmmaPlan plan;
  plan.block_n = Cfg::BN;
  plan.block_m = Cfg::BM;
  plan.block_k = Cfg::BK;
  plan.stages = Cfg::STAGES;
  plan.threads = Cfg::kThreads;
  plan.smem_bytes = Cfg::kSmemBytes;
  plan.tiles_n = int((s.n + Cfg::BN - 1) / Cfg::BN);
  plan.tiles_m = int((s.m + Cfg::BM - 1) / Cfg::BM);
  plan.tiles = plan.tiles_n * plan.tiles_m;
  plan.k_tiles = int((s.k + Cfg::BK - 1) / Cfg::BK);
  plan.grid = std::max(1, std::min(plan.tiles, multiprocessors));
  return plan;
}

WgmmaPlan plan_wgmma_gemm(const GemmProblem& problem) {
  const WgmmaPlan plan =
      wgmma_plan_for(problem, current_device_attribute(cudaDevAttrMultiProcessorCount));
  const int optin = current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
  if (plan.smem_bytes > optin)
    throw Error(fmt::format("cuda-wgmma: the {}x{}x{} config needs {} B of shared memory, this GPU "
                            "allows {} B per block", plan.block_n, plan.block_m, plan.block_k,
                            plan.smem_bytes, optin));
  FP4GEMM_CUDA_CHECK(cudaFuncSetAttribute(wgmma::wgmma_gemm_kernel<Cfg>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          plan.smem_bytes));
  return plan;
}

TensorMap2d wgmma_activation_map(const GemmProblem& problem) {
  const GemmShape& s = problem.shape;
  return {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, std::uint64_t(s.k), std::uint64_t(s.m),
          std::uint64_t(s.k) * 2, Cfg::BK, Cfg::BM, CU_TENSOR_MAP_SWIZZLE_128B};
}

TensorMap2d wgmma_weight_map(const GemmProblem& problem) {
  const GemmShape& s = problem.shape;
  return {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, std::uint64_t(s.k / 2), std::uint64_t(s.n),
          std::uint64_t(s.k / 2), Cfg::BK / 2, Cfg::BN, CU_TENSOR_MAP_SWIZZLE_NONE};
}

WgmmaTensorMaps encode_wgmma_maps(const GemmProblem& problem, const std::uint16_t* activations,
                                  const std::uint8_t* weights) {
  return {encode_tensor_map(wgmma_activation_map(problem), activations),
          encode_tensor_map(wgmma_weight_map(problem), weights)};
}

void launch_wgmma_gemm(const GemmProblem& problem, const WgmmaPlan& plan,
                       const WgmmaTensorMaps& maps, const KernelPointers& ops, cudaStream_t stream) {
  wgmma::Params p;
  static_cast<GemmArgs&>(p) = gemm_args(problem, ops);
  p.tiles_n = plan.tiles_n;
  p.tiles = plan.tiles;
  p.k_tiles = plan.k_tiles;
  wgmma::wgmma_gemm_kernel<Cfg><<<plan.grid, Cfg::kThreads, std::size_t(plan.smem_bytes), stream>>>(
      maps.activations, maps.weights, p);
  FP4GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace fp4gemm::cuda
