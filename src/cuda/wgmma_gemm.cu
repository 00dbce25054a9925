// Host launcher of the cuda-wgmma kernel: admission, the tile config (128 weight rows x 128 or
// 256 tokens x 64), a persistent grid of min(tiles, SMs) CTAs, TMA tensor maps.
#include "cuda/wgmma_gemm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "cuda/cuda_check.hpp"
#include "cuda/environment_choice.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/wgmma_gemm.cuh"

namespace fp4gemm::cuda {
namespace {

// Both configs share BN, BK and the thread count; they differ in BM and the ring depth.
static_assert(wgmma::Tile128::BN == wgmma::Tile256::BN &&
              wgmma::Tile128::BK == wgmma::Tile256::BK &&
              wgmma::Tile128::kThreads == wgmma::Tile256::kThreads);
constexpr int kBlockN = wgmma::Tile256::BN, kBlockK = wgmma::Tile256::BK;

// Calls f(Cfg{}) with the config of `block_m` (128 or 256).
template <class F>
decltype(auto) with_config(int block_m, F&& f) {
  if (block_m == wgmma::Tile256::BM) return f(wgmma::Tile256{});
  return f(wgmma::Tile128{});
}

std::int64_t tiles_of(const GemmShape& s, int block_m) {
  return ((s.m + block_m - 1) / block_m) * ((s.n + kBlockN - 1) / kBlockN);
}

// The tile config and split-K of a problem. BM = 256 halves the conversion and the activation
// reloads per FLOP; BM = 128 and split-K quantize the persistent grid's waves more finely. A
// K-tile costs time proportional to BM, so a choice costs
//   waves x (K-tiles per split + reduction) x BM,  waves = ceil(tiles x splits / SMs),
// the reduction (workspace write of the partial tile, the last unit's read of all of them)
// estimated as splits + 1 K-tiles when splits > 1. The cheapest wins; on ties BM = 256, then fewer
// splits. At most kMaxSplits splits, none empty, and only in a config with the reduction.
// `forced` (the experiment switches) leaves only its token tile and its split count.
constexpr int kMaxSplits = 16;
struct Choice {
  int block_m = 0, splits = 1, k_tiles_per_split = 0;
};
Choice choose(const GemmShape& s, int multiprocessors, const WgmmaChoices& forced) {
  const std::int64_t k_tiles = (s.k + kBlockK - 1) / kBlockK;
  Choice best;
  std::int64_t best_cost = -1;
  for (auto [bm, split_k] : {std::pair{wgmma::Tile256::BM, wgmma::Tile256::kSplitK},
                             std::pair{wgmma::Tile128::BM, wgmma::Tile128::kSplitK}}) {
    if (forced.block_m != 0 && forced.block_m != bm) continue;
    if (forced.splits > 1 && !split_k) continue;
    const std::int64_t most = split_k ? std::min<std::int64_t>(k_tiles, kMaxSplits) : 1;
    const std::int64_t first = forced.splits != 0 ? std::min<std::int64_t>(forced.splits, most) : 1;
    const std::int64_t last = forced.splits != 0 ? first : most;
    for (std::int64_t want = first; want <= last; ++want) {
      const std::int64_t per_split = (k_tiles + want - 1) / want;
      const std::int64_t splits = (k_tiles + per_split - 1) / per_split;
      const std::int64_t waves = (tiles_of(s, bm) * splits + multiprocessors - 1) / multiprocessors;
      const std::int64_t cost = waves * (per_split + (splits > 1 ? splits + 1 : 0)) * bm;
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        best = {bm, int(splits), int(per_split)};
      }
    }
  }
  return best;
}

}  // namespace

std::string WgmmaPlan::describe() const {
  return fmt::format("{}x{}x{} (N x M x K), {} stages, {} threads, {} B smem, {} tiles x {} "
                     "K-splits on {} persistent CTAs",
                     block_n, block_m, block_k, stages, threads, smem_bytes, tiles, splits, grid);
}

Verdict wgmma_can_implement(const GemmProblem& problem) {
  const GemmShape& s = problem.shape;
  if (const Verdict shape = shape_verdict(s, problem.format); !shape) return shape;
  if (s.k % 32 != 0)
    return Verdict::no(fmt::format("K = {}: rows of B (K/2 = {} bytes) must be 16-byte aligned for "
                                   "TMA (K a multiple of 32)", s.k, s.k / 2));
  if (s.m > INT32_MAX || s.n > INT32_MAX || s.k > INT32_MAX)
    return Verdict::no(fmt::format("M x N x K = {} x {} x {}: TMA box coordinates are signed 32-bit",
                                   s.m, s.n, s.k));
  const std::int64_t tiles = tiles_of(s, wgmma::Tile128::BM);  // the larger count
  if (tiles > INT32_MAX)
    return Verdict::no(fmt::format("{} output tiles exceed the 32-bit tile index", tiles));
  return Verdict::yes();
}

Verdict wgmma_kernel_image_present() {
  return kernel_image_present(
      reinterpret_cast<const void*>(wgmma::wgmma_gemm_kernel<wgmma::Tile256>), "cuda-wgmma");
}

WgmmaChoices parse_wgmma_choices(std::string_view block_m, std::string_view splits) {
  const WgmmaChoices choices{parse_choice<int>("FP4GEMM_WGMMA_BM", block_m,
                                               {{"auto", 0},
                                                {"128", wgmma::Tile128::BM},
                                                {"256", wgmma::Tile256::BM}}),
                             parse_count("FP4GEMM_WGMMA_SPLITS", splits, 1, kMaxSplits, "a count of K-splits")};
  static_assert(!wgmma::Tile256::kSplitK && wgmma::Tile128::kSplitK);
  if (choices.block_m == wgmma::Tile256::BM && choices.splits > 1)
    throw InvalidArgument(fmt::format("FP4GEMM_WGMMA_SPLITS = {} needs FP4GEMM_WGMMA_BM = 128 or auto: the "
                                      "256-token tile has no split-K reduction",
                                      choices.splits));
  return choices;
}

WgmmaChoices wgmma_choices_from_environment() {
  return parse_wgmma_choices(environment("FP4GEMM_WGMMA_BM"), environment("FP4GEMM_WGMMA_SPLITS"));
}

WgmmaPlan wgmma_plan_for(const GemmProblem& problem, int multiprocessors, const WgmmaChoices& choices) {
  const Verdict verdict = wgmma_can_implement(problem);
  if (!verdict) throw InvalidArgument(verdict.reason);
  const GemmShape& s = problem.shape;
  const Choice choice = choose(s, multiprocessors, choices);
  if (choice.block_m == 0)
    throw InvalidArgument(fmt::format("cuda-wgmma: no tile config takes BM = {} with {} K-splits (BM is 128 or "
                                      "256; more than one K-split needs BM = 128)",
                                      choices.block_m, choices.splits));
  return with_config(choice.block_m, [&](auto cfg) {
    using Cfg = decltype(cfg);
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
    plan.splits = choice.splits;
    plan.k_tiles_per_split = choice.k_tiles_per_split;
    plan.units = plan.tiles * plan.splits;
    plan.grid = std::max(1, std::min(plan.units, multiprocessors));
    plan.workspace_floats =
        plan.splits > 1 ? std::size_t(plan.units) * std::size_t(Cfg::BN * Cfg::BM) : 0;
    plan.counters = plan.splits > 1 ? std::size_t(plan.tiles) : 0;
    return plan;
  });
}

WgmmaPlan plan_wgmma_gemm(const GemmProblem& problem, const WgmmaChoices& choices) {
  const WgmmaPlan plan =
      wgmma_plan_for(problem, current_device_attribute(cudaDevAttrMultiProcessorCount), choices);
  with_config(plan.block_m, [&](auto cfg) {
    allow_dynamic_smem(reinterpret_cast<const void*>(wgmma::wgmma_gemm_kernel<decltype(cfg)>), plan.smem_bytes,
                       fmt::format("cuda-wgmma: the {}x{}x{} config", plan.block_n, plan.block_m,
                                   plan.block_k));
  });
  return plan;
}

TensorMap2d wgmma_activation_map(const GemmProblem& problem, int block_m) {
  const GemmShape& s = problem.shape;
  return {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, std::uint64_t(s.k), std::uint64_t(s.m),
          std::uint64_t(s.k) * 2, kBlockK, std::uint32_t(block_m), CU_TENSOR_MAP_SWIZZLE_128B};
}

TensorMap2d wgmma_weight_map(const GemmProblem& problem) {
  const GemmShape& s = problem.shape;
  return {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, std::uint64_t(s.k / 2), std::uint64_t(s.n),
          std::uint64_t(s.k / 2), kBlockK / 2, kBlockN, CU_TENSOR_MAP_SWIZZLE_NONE};
}

TensorMap2d wgmma_scale_map(const GemmProblem& problem) {
  const GemmShape& s = problem.shape;
  const std::uint64_t tiles = std::uint64_t((s.n + kBlockN - 1) / kBlockN) * std::uint64_t((s.k + kBlockK - 1) / kBlockK);
  constexpr std::uint32_t kRowBytes = 128, kRows = wgmma::Tile256::kScaleBytes / kRowBytes;
  return {CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, kRowBytes, tiles * kRows, kRowBytes, kRowBytes, kRows,
          CU_TENSOR_MAP_SWIZZLE_NONE};
}

WgmmaTensorMaps encode_wgmma_maps(const GemmProblem& problem, const WgmmaPlan& plan,
                                  const std::uint16_t* activations, const std::uint8_t* weights,
                                  const std::uint8_t* scale_tiles) {
  return {encode_tensor_map(wgmma_activation_map(problem, plan.block_m), activations),
          encode_tensor_map(wgmma_weight_map(problem), weights),
          encode_tensor_map(wgmma_scale_map(problem), scale_tiles)};
}

TileOrder wgmma_scale_tile_order(Fp4Format format) {
  return {kBlockN, kBlockK / block_size(format), wgmma::Tile256::kScaleBytes,
          [](int row, int block) { return 4 * row + block; }};
}

void launch_wgmma_gemm(const GemmProblem& problem, const WgmmaPlan& plan,
                       const WgmmaTensorMaps& maps, const KernelPointers& ops, cudaStream_t stream) {
  wgmma::Params p;
  static_cast<GemmArgs&>(p) = gemm_args(problem, ops);
  p.tiles_n = plan.tiles_n;
  p.tiles = plan.tiles;
  p.k_tiles = plan.k_tiles;
  p.splits = plan.splits;
  p.k_tiles_per_split = plan.k_tiles_per_split;
  p.units = plan.units;
  with_config(plan.block_m, [&](auto cfg) {
    using Cfg = decltype(cfg);
    wgmma::wgmma_gemm_kernel<Cfg>
        <<<plan.grid, Cfg::kThreads, std::size_t(plan.smem_bytes), stream>>>(
            maps.activations, maps.weights, maps.scales, p);
  });
  FP4GEMM_CUDA_CHECK_LAUNCH();
}

}  // namespace fp4gemm::cuda
