// Host launcher of the cuda-mma kernels: tile config by M, split-K by occupancy, launch.
//
// Heuristic (printable through MmaPlan::describe):
//   M <= 16   TileM16  (16 x 64 x 128, 4 warps)   decode: weight streaming, split-K fills the GPU
//   M <= 64   TileM64  (64 x 128 x 64, 8 warps)
//   else      TileM128 (128 x 128 x 64, 8 warps)
//   split-K   when the output tiles fill less than one wave (multiprocessors x resident CTAs):
//             splits = min(wave / tiles, K-tiles / 2), then rebalanced so no split is empty.
#include "cuda/mma_gemm.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/gpu_quantize.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/mma_gemm.cuh"

namespace fp4gemm::cuda {
namespace {

// A split gets at least this many K-tiles, so that its pipeline has something to overlap.
constexpr int kMinKTilesPerSplit = 2;

template <class Cfg>
auto kernel_for(Mode mode) {
  return mode == Mode::w4a4 ? mma::mma_gemm_kernel<Cfg, true> : mma::mma_gemm_kernel<Cfg, false>;
}

// Calls f(Cfg{}) with the config of `tile`.
template <class F>
decltype(auto) with_config(MmaTile tile, F&& f) {
  switch (tile) {
    case MmaTile::m16: return f(mma::TileM16{});
    case MmaTile::m64: return f(mma::TileM64{});
    case MmaTile::m128: break;
  }
  return f(mma::TileM128{});
}

MmaTile choose_tile(std::int64_t m) {
  if (m <= mma::TileM16::BM) return MmaTile::m16;
  if (m <= mma::TileM64::BM) return MmaTile::m64;
  return MmaTile::m128;
}

}  // namespace

std::string MmaPlan::describe() const {
  return fmt::format("{}x{}x{}, {} stages, {} threads, {} B smem, {} CTAs/SM, split-K {} ({} CTAs)",
                     block_m, block_n, block_k, stages, threads, smem_bytes, ctas_per_sm, splits,
                     std::int64_t(tiles_m) * tiles_n * splits);
}

Verdict mma_can_implement(const GemmProblem& problem) {
  if (const Verdict shape = shape_verdict(problem.shape, problem.format); !shape) return shape;
  return gpu_quantizable_verdict(problem);
}

Verdict mma_kernel_image_present() {
  return kernel_image_present(reinterpret_cast<const void*>(mma::mma_gemm_kernel<mma::TileM16, false>), "cuda-mma");
}

MmaPlan plan_mma_gemm(const GemmProblem& problem) {
  const Verdict verdict = mma_can_implement(problem);
  if (!verdict) throw InvalidArgument(verdict.reason);
  const GemmShape& s = problem.shape;
  MmaPlan plan;
  plan.tile = choose_tile(s.m);
  with_config(plan.tile, [&](auto cfg) {
    using Cfg = decltype(cfg);
    const bool a_fp4 = problem.mode == Mode::w4a4;
    plan.block_m = Cfg::BM;
    plan.block_n = Cfg::BN;
    plan.block_k = Cfg::BK;
    plan.threads = Cfg::kThreads;
    plan.stages = Cfg::STAGES;
    plan.smem_bytes = Cfg::smem_bytes(a_fp4);
    const std::int64_t tiles_m = (s.m + Cfg::BM - 1) / Cfg::BM;
    const std::int64_t tiles_n = (s.n + Cfg::BN - 1) / Cfg::BN;
    const std::int64_t k_tiles = (s.k + Cfg::BK - 1) / Cfg::BK;
    require(tiles_m * tiles_n <= std::int64_t(INT32_MAX) && k_tiles <= std::int64_t(INT32_MAX),
            "{}: {} x {} output tiles exceed the launch grid", problem.describe(), tiles_m, tiles_n);
    plan.tiles_m = int(tiles_m);
    plan.tiles_n = int(tiles_n);
    plan.k_tiles = int(k_tiles);

    const auto kernel = kernel_for<Cfg>(problem.mode);
    plan.ctas_per_sm = resident_ctas_per_sm(reinterpret_cast<const void*>(kernel), Cfg::kThreads, plan.smem_bytes,
                                            fmt::format("cuda-mma: the {}x{}x{} config", Cfg::BM, Cfg::BN, Cfg::BK));
    require(plan.ctas_per_sm >= 1, "cuda-mma: the {}x{}x{} config cannot be resident on this GPU",
            Cfg::BM, Cfg::BN, Cfg::BK);

    const std::int64_t wave =
        std::int64_t(current_device_attribute(cudaDevAttrMultiProcessorCount)) * plan.ctas_per_sm;
    const std::int64_t tiles = tiles_m * tiles_n;
    std::int64_t splits = 1;
    if (tiles < wave)
      splits = std::clamp<std::int64_t>(std::min(wave / tiles, k_tiles / kMinKTilesPerSplit), 1,
                                        k_tiles);
    plan.k_tiles_per_split = int((k_tiles + splits - 1) / splits);
    plan.splits = int((k_tiles + plan.k_tiles_per_split - 1) / plan.k_tiles_per_split);
    if (plan.splits > 1) {
      plan.workspace_floats = std::size_t(tiles) * plan.splits * Cfg::BM * Cfg::BN;
      plan.counters = std::size_t(tiles);
    }
  });
  return plan;
}

void launch_mma_gemm(const GemmProblem& problem, const MmaPlan& plan, const KernelPointers& ops,
                     cudaStream_t stream) {
  mma::Params p;
  static_cast<GemmArgs&>(p) = gemm_args(problem, ops);
  p.tiles_n = plan.tiles_n;
  p.k_tiles = plan.k_tiles;
  p.k_tiles_per_split = plan.k_tiles_per_split;
  const dim3 grid(unsigned(plan.tiles_m) * unsigned(plan.tiles_n), unsigned(plan.splits));
  with_config(plan.tile, [&](auto cfg) {
    using Cfg = decltype(cfg);
    kernel_for<Cfg>(problem.mode)<<<grid, Cfg::kThreads, std::size_t(plan.smem_bytes), stream>>>(p);
    FP4GEMM_CUDA_CHECK_LAUNCH();
  });
}

}  // namespace fp4gemm::cuda
