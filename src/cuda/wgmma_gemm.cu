// Host launcher of the cuda-wgmma kernel: admission, the tile config (128 weight rows x 32, 64,
// 128 or 256 tokens x 64), a persistent grid of min(tiles, SMs) CTAs, TMA tensor maps.
#include "cuda/wgmma_gemm.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/environment_choice.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/wgmma_gemm.cuh"

namespace fp4gemm::cuda {
namespace {

// The configs share BN, BK and the thread count; they differ in BM, the ring depth and split-K.
template <class... Cfg>
constexpr bool kSameFrame = ((Cfg::BN == wgmma::Tile256::BN && Cfg::BK == wgmma::Tile256::BK &&
                              Cfg::kThreads == wgmma::Tile256::kThreads) && ...);
static_assert(kSameFrame<wgmma::Tile128, wgmma::Tile64, wgmma::Tile32>);
constexpr int kBlockN = wgmma::Tile256::BN, kBlockK = wgmma::Tile256::BK;

// Calls f(Cfg{}) with the config of `block_m` (32, 64, 128 or 256).
template <class F>
decltype(auto) with_config(int block_m, F&& f) {
  switch (block_m) {
    case wgmma::Tile256::BM: return f(wgmma::Tile256{});
    case wgmma::Tile64::BM: return f(wgmma::Tile64{});
    case wgmma::Tile32::BM: return f(wgmma::Tile32{});
    default: return f(wgmma::Tile128{});
  }
}

std::int64_t tiles_of(const GemmShape& s, int block_m) {
  return ((s.m + block_m - 1) / block_m) * ((s.n + kBlockN - 1) / kBlockN);
}

// The tile config and split-K of a problem, by a cost model fitted (least squares on relative
// error, bench/results/wgmma_choose/fit.py) to stop 38's grid on an H100 (36 points of
// bench/results/stop38_decide/call_c at M >= 33: 128 and 256 tokens, 1, 2 and 4 splits, 1 to 63
// waves; worst error 18 %, the earlier model's 43 %):
//   time = waves x (unit(BM) + K-tiles per split x k_tile(BM)) + [splits > 1] x waves x splits x R
// (waves = ceil(tiles x splits / SMs), plus a launch-and-fill constant of ~7.7 us that does not
// change the choice). A K-tile of 128 tokens costs 0.64 of one of 256 (the conversion of the
// weights is the same for both); a unit's fixed cost (its epilogue, the ring's refill) grows with
// BM; R is the split-K reduction's share per partial tile (its workspace write and read). Both
// costs are linear in BM through the two fitted tiles, which also gives the forced 32- and
// 64-token tiles a split count (their own times are not measured yet: the model never picks them
// unforced). The cheapest wins; on ties the earlier candidate (BM = 256 first), then fewer splits.
// At most kMaxSplits splits, none empty, and only in a config with the reduction. `forced` (the
// experiment switches) leaves only its token tile and its split count.
constexpr int kMaxSplits = 16;
struct Choice {
  int block_m = 0, splits = 1, k_tiles_per_split = 0;
};
struct Candidate {
  int block_m;
  bool split_k, modelled;
};
constexpr Candidate kCandidates[] = {{wgmma::Tile256::BM, wgmma::Tile256::kSplitK, true},
                                     {wgmma::Tile128::BM, wgmma::Tile128::kSplitK, true},
                                     {wgmma::Tile64::BM, wgmma::Tile64::kSplitK, false},
                                     {wgmma::Tile32::BM, wgmma::Tile32::kSplitK, false}};
// The fit's terms (us): k_tile(128) = 0.408, k_tile(256) = 0.637; unit(128) = 3.42, unit(256) =
// 6.11; R = 1.78.
constexpr double k_tile_us(int bm) { return 0.179 + 0.001785 * bm; }
constexpr double unit_us(int bm) { return 0.723 + 0.02103 * bm; }
constexpr double kReductionUs = 1.78;
Choice choose(const GemmShape& s, int multiprocessors, const WgmmaChoices& forced) {
  const std::int64_t k_tiles = (s.k + kBlockK - 1) / kBlockK;
  Choice best;
  double best_cost = -1;
  for (const auto [bm, split_k, modelled] : kCandidates) {
    if (forced.block_m != 0 ? forced.block_m != bm : !modelled) continue;
    if (forced.splits > 1 && !split_k) continue;
    const std::int64_t most = split_k ? std::min<std::int64_t>(k_tiles, kMaxSplits) : 1;
    const std::int64_t first = forced.splits != 0 ? std::min<std::int64_t>(forced.splits, most) : 1;
    const std::int64_t last = forced.splits != 0 ? first : most;
    for (std::int64_t want = first; want <= last; ++want) {
      const std::int64_t per_split = (k_tiles + want - 1) / want;
      const std::int64_t splits = (k_tiles + per_split - 1) / per_split;
      const double waves = double((tiles_of(s, bm) * splits + multiprocessors - 1) / multiprocessors);
      const double cost = waves * (unit_us(bm) + double(per_split) * k_tile_us(bm) +
                                   (splits > 1 ? double(splits) * kReductionUs : 0.0));
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
  const std::int64_t tiles = tiles_of(s, wgmma::Tile32::BM);  // the largest count
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
                                                {"32", wgmma::Tile32::BM},
                                                {"64", wgmma::Tile64::BM},
                                                {"128", wgmma::Tile128::BM},
                                                {"256", wgmma::Tile256::BM}}),
                             parse_count("FP4GEMM_WGMMA_SPLITS", splits, 1, kMaxSplits, "a count of K-splits")};
  static_assert(!wgmma::Tile256::kSplitK && wgmma::Tile128::kSplitK && wgmma::Tile64::kSplitK &&
                wgmma::Tile32::kSplitK);
  if (choices.block_m == wgmma::Tile256::BM && choices.splits > 1)
    throw InvalidArgument(fmt::format("FP4GEMM_WGMMA_SPLITS = {} needs FP4GEMM_WGMMA_BM = 32, 64, 128 or "
                                      "auto: the 256-token tile has no split-K reduction",
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
    throw InvalidArgument(fmt::format("cuda-wgmma: no tile config takes BM = {} with {} K-splits (BM is 32, "
                                      "64, 128 or 256; more than one K-split needs BM below 256)",
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
