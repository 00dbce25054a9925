// Host launcher of the cuda-decode kernels.
//
// Plan (printable through DecodePlan::describe):
//   instance      M <= 1 (block columns: decode_gemm.cuh step 3'), 8, 16 or 32 (decode::max_tokens_for);
//   CTA width     4 warps (64 rows), or 8 (128 rows) at M > 8 with many N-tiles (wide_ctas_wanted);
//   K-slices      at M <= 8 enough CTAs for kCtasPerSmTarget per SM: splits = ceil(target /
//                 (N-tiles x the GEMMs of the launch)); at M > 8 the count whose last wave is
//                 fullest (k_slices_by_waves); or DecodeChoices::k_slices. Capped by the K-groups,
//                 and slices short enough that the A slice fits kSliceSmemLimit of shared memory;
//                 then rebalanced to equal lengths (balanced_k_slices);
//   split-K sums  in global memory, or (cluster_sums_wanted: by default where the global plan has
//                 more than kMaxClusterSplits K-slices; sm_90+) in a cluster of the tile's
//                 K-slices, re-planned with at most kMaxClusterSplits of them, where such a
//                 cluster can be resident (cudaOccupancyMaxActiveClusters); else the global plan;
//   w4a4's A      quantized by every CTA for its slice (step 1q) at M = 1 with few N-tiles
//                 (a_quantized_in_kernel_wanted), else by the GPU quantizer's kernel before;
//   launch        programmatic dependent (sm_90+, dependent_launch.cuh): the kernel's start-up
//                 and first weight copies overlap the previous kernel of the stream.
#include "cuda/decode_gemm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "cuda/cuda_check.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/decode_gemm.cuh"
#include "cuda/dependent_launch.cuh"
#include "cuda/environment_choice.hpp"
#include "cuda/gpu_quantize.hpp"

namespace fp4gemm::cuda {
namespace {

// The A slice may use this much shared memory per CTA (several CTAs share an SM; the weight ring,
// decode::ring_bytes, comes on top).
constexpr int kSliceSmemLimit = 48 * 1024;
// CTAs wanted per SM (with the 4-stage ring): enough warps that every SM keeps many copies in
// flight and issues while some wait, few enough K-slices that their split-K sums stay cheap.
// Measured on v8 in one call (bench/results/h200_decode_v8, ctas_*): 4 beat 7 and 12 everywhere,
// most at N = 768 (1 x 768 x 6144 6.67 against 7.75 us); on v7, 7 had beaten 4 by 5-7 %
// (h200_stop15_experiments), when the kernel was issue-bound.
constexpr int kCtasPerSmTarget = 4;

// f(the kernel instance for M <= max_tokens in CTAs of `warps` warps): decode::with_instance's
// choice; quantize_a: the instance that quantizes w4a4's bf16 A itself (DecodePlan::
// a_quantized_in_kernel), else the one that stages A from bf16 (w4a4: A's block values,
// DecodePlan::a_block_values).
template <class F>
decltype(auto) with_kernel(int max_tokens, int warps, bool quantize_a, F&& f) {
  return decode::with_instance(max_tokens, warps, [&](auto tokens, auto cta_warps) {
    constexpr int kTokens = decltype(tokens)::value, kWarps = decltype(cta_warps)::value;
    return quantize_a ? f(decode::decode_gemm_kernel<kTokens, kWarps, true>)
                      : f(decode::decode_gemm_kernel<kTokens, kWarps, false>);
  });
}

// CTAs of cuda-decode's kernel for M <= max_tokens in CTAs of `warps` warps (quantize_a: the
// instance that quantizes A) resident per SM with smem_bytes of dynamic shared memory.
int decode_kernel_occupancy(int max_tokens, int warps, bool quantize_a, int smem_bytes) {
  return with_kernel(max_tokens, warps, quantize_a, [&](auto kernel) {
    return resident_ctas_per_sm(reinterpret_cast<const void*>(kernel), decode::threads_of(warps), smem_bytes,
                                "cuda-decode");
  });
}

// Whether a cluster of the plan's K-slices (1 x splits CTAs) can be resident on this GPU; allows
// the kernel clusters above the portable 8 CTAs first. A GPU (or MIG slice) that refuses the size
// or the query does not fit: the caller keeps the global sums.
template <class Kernel>
bool clusters_fit(Kernel kernel, const DecodePlan& plan) {
  const void* function = reinterpret_cast<const void*>(kernel);
  const auto refused = [](cudaError_t status) {
    if (status == cudaSuccess) return false;
    (void)cudaGetLastError();  // not sticky; cleared so that no later check reports it
    return true;
  };
  if (plan.splits > 8 &&
      refused(cudaFuncSetAttribute(function, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)))
    return false;
  cudaLaunchAttribute attributes[2];
  const cudaLaunchConfig_t config =
      launch_config(dim3(unsigned(plan.tiles_n), unsigned(plan.splits)), dim3(1, unsigned(plan.splits)),
                    decode::threads_of(plan.warps), plan.smem_bytes, false, nullptr, attributes);
  int clusters = 0;
  if (refused(cudaOccupancyMaxActiveClusters(&clusters, function, &config))) return false;
  return clusters >= 1;
}

}  // namespace

std::string DecodePlan::describe() const {
  return fmt::format("M <= {}: {} x {} CTAs of {} threads, K-slices of {}{}, {} B smem, {} CTAs/SM{}{}",
                     max_tokens, tiles_n, splits, decode::threads_of(warps), groups_per_split * decode::kGroupK,
                     splits_in_cluster ? " summed in clusters" : "", smem_bytes, ctas_per_sm,
                     dependent_launch ? ", programmatic dependent launch" : "",
                     a_quantized_in_kernel ? ", w4a4 activations quantized in the kernel" : "");
}

SplitSums parse_split_sums(std::string_view value) {
  return parse_choice<SplitSums>("FP4GEMM_DECODE_SPLIT_SUMS", value,
                                 {{"auto", SplitSums::by_slice_count},
                                  {"global", SplitSums::global},
                                  {"cluster", SplitSums::cluster_where_able}});
}

AQuantize parse_a_quantize(std::string_view value) {
  return parse_choice<AQuantize>("FP4GEMM_DECODE_A_QUANTIZE", value,
                                 {{"auto", AQuantize::by_tile_count},
                                  {"separate", AQuantize::separate},
                                  {"kernel", AQuantize::in_kernel}});
}

CtaWidth parse_cta_width(std::string_view value) {
  return parse_choice<CtaWidth>("FP4GEMM_DECODE_CTA", value,
                                {{"auto", CtaWidth::by_tile_count}, {"narrow", CtaWidth::narrow}, {"wide", CtaWidth::wide}});
}

int parse_k_slices(std::string_view value) {
  return parse_count("FP4GEMM_DECODE_K_SLICES", value, 1, 65535, "a count of K-slices");
}

DecodeChoices decode_choices_from_environment() {
  return {parse_split_sums(environment("FP4GEMM_DECODE_SPLIT_SUMS")),
          parse_a_quantize(environment("FP4GEMM_DECODE_A_QUANTIZE")),
          parse_cta_width(environment("FP4GEMM_DECODE_CTA")),
          parse_k_slices(environment("FP4GEMM_DECODE_K_SLICES"))};
}

KSlicing balanced_k_slices(std::int64_t k_groups, std::int64_t splits_wanted, std::int64_t max_splits,
                           int max_groups) {
  require(k_groups >= 1 && max_splits >= 1 && max_groups >= 1,
          "balanced_k_slices: k_groups = {}, max_splits = {}, max_groups = {} must be >= 1", k_groups, max_splits,
          max_groups);
  const std::int64_t splits = std::clamp<std::int64_t>(splits_wanted, 1, std::min(max_splits, k_groups));
  const std::int64_t longest = std::min<std::int64_t>((k_groups + splits - 1) / splits, max_groups);
  const std::int64_t count = (k_groups + longest - 1) / longest;  // >= splits where max_groups cut them
  const std::int64_t groups = (k_groups + count - 1) / count;      // <= longest; the count stays
  require(count <= INT32_MAX, "balanced_k_slices: {} K-slices exceed the launch grid", count);
  return {int(count), int(groups)};
}

std::int64_t k_slices_by_waves(std::int64_t k_groups, int max_groups, int min_groups, std::int64_t gemm_tiles,
                               std::int64_t sms, int warps, const std::function<int(int groups)>& ctas_per_sm) {
  require(k_groups >= 1 && max_groups >= 1 && min_groups >= 1 && gemm_tiles >= 1 && sms >= 1 && warps >= 1,
          "k_slices_by_waves: k_groups = {}, max_groups = {}, min_groups = {}, gemm_tiles = {}, sms = {}, warps = "
          "{} must be >= 1",
          k_groups, max_groups, min_groups, gemm_tiles, sms, warps);
  std::int64_t best_splits = (k_groups + max_groups - 1) / max_groups;
  double best_score = -1.0;
  for (std::int64_t splits = best_splits; splits <= k_groups; ++splits) {
    const std::int64_t groups = (k_groups + splits - 1) / splits;
    if (groups < min_groups) break;
    if ((k_groups + groups - 1) / groups != splits) continue;  // the same slices as a shorter count
    const int per_sm = ctas_per_sm(int(groups));
    if (per_sm < 1) continue;
    const std::int64_t ctas = gemm_tiles * splits, resident = sms * per_sm;
    const std::int64_t waves = (ctas + resident - 1) / resident;
    const double score = double(ctas) / double(waves * resident) *
                         std::min(1.0, double(warps * per_sm) / kSliceWarpsPerSmWanted);
    if (score > best_score + kSliceScoreTie) {
      best_score = score;
      best_splits = splits;
    }
  }
  return best_splits;
}

bool cluster_sums_wanted(SplitSums sums, int global_splits) {
  if (global_splits <= 1) return false;
  switch (sums) {
    case SplitSums::global: return false;
    case SplitSums::cluster_where_able: return true;
    case SplitSums::by_slice_count: return global_splits > kMaxClusterSplits;
  }
  return false;
}

bool a_quantized_in_kernel_wanted(AQuantize choice, std::int64_t tiles_n, std::int64_t m) {
  switch (choice) {
    case AQuantize::separate: return false;
    case AQuantize::in_kernel: return true;
    case AQuantize::by_tile_count:
      return m == 1 ? tiles_n <= kInKernelQuantizeMaxTiles : m * tiles_n <= kInKernelQuantizeMaxRowTiles;
  }
  return false;
}

bool wide_ctas_wanted(CtaWidth choice, std::int64_t m, std::int64_t narrow_tiles) {
  if (m <= 8) return false;  // no wide instance of the 1- and 8-token kernels
  switch (choice) {
    case CtaWidth::narrow: return false;
    case CtaWidth::wide: return true;
    case CtaWidth::by_tile_count: return narrow_tiles >= kWideCtaMinTiles;
  }
  return false;
}

Verdict decode_can_implement(const GemmProblem& problem) {
  if (const Verdict shape = shape_verdict(problem.shape, problem.format); !shape) return shape;
  if (const Verdict quantizable = gpu_quantizable_verdict(problem); !quantizable) return quantizable;
  if (problem.shape.m > kDecodeMaxM)
    return Verdict::no(fmt::format("M = {} is above {}, the largest M of the decode kernels (use "
                                   "cuda-mma)", problem.shape.m, kDecodeMaxM));
  if (problem.shape.k > kDecodeMaxK)
    return Verdict::no(fmt::format("K = {} is above {}, the largest K of the decode kernels (A's rows are "
                                   "staged at 32-bit offsets)", problem.shape.k, kDecodeMaxK));
  return Verdict::yes();
}

Verdict decode_kernel_image_present() {
  return kernel_image_present(reinterpret_cast<const void*>(decode::decode_gemm_kernel<8, decode::kNarrowWarps>),
                              "cuda-decode");
}

DecodePlan plan_decode_gemm(const GemmProblem& problem, std::int64_t gemms_per_launch, DecodeChoices choices,
                            const KernelOccupancy& occupancy) {
  require(gemms_per_launch >= 1, "gemms_per_launch = {} must be >= 1", gemms_per_launch);
  const Verdict verdict = decode_can_implement(problem);
  if (!verdict) throw InvalidArgument(verdict.reason);
  const GemmShape& s = problem.shape;
  const bool mxfp4 = problem.format == Fp4Format::mxfp4;
  DecodePlan plan;
  plan.max_tokens = decode::max_tokens_for(s.m);
  const int a_rows = decode::a_rows_staged(plan.max_tokens, int(s.m));
  const auto tiles_of = [&](int warps) { return (s.n + decode::rows_per_cta(warps) - 1) / decode::rows_per_cta(warps); };
  plan.warps = wide_ctas_wanted(choices.cta_width, s.m, tiles_of(decode::kNarrowWarps) * gemms_per_launch)
                   ? decode::kWideWarps
                   : decode::kNarrowWarps;
  const std::int64_t tiles_n = tiles_of(plan.warps);
  require(tiles_n <= std::int64_t(INT32_MAX), "{}: N = {} exceeds the launch grid", problem.describe(), s.n);
  plan.tiles_n = int(tiles_n);
  plan.k_groups = int((s.k + decode::kGroupK - 1) / decode::kGroupK);
  plan.b_form = {.scale_tile_order = decode_scale_tile_order(problem.format),
                 .placed_codes = true,
                 .code_tile_order = decode_code_tile_order()};
  plan.dependent_launch = dependent_launch_supported();
  plan.a_block_values = problem.mode == Mode::w4a4;
  plan.a_quantized_in_kernel =
      problem.mode == Mode::w4a4 && a_quantized_in_kernel_wanted(choices.a_quantize, tiles_n, s.m);

  // The K-slices: splits_wanted of them at most, each at most max_groups long.
  int max_groups = 1;
  while (decode::a_tile_bytes(a_rows, max_groups + 1) <= kSliceSmemLimit) ++max_groups;
  const std::int64_t sms = current_device_attribute(cudaDevAttrMultiProcessorCount);
  const std::int64_t gemm_tiles = tiles_n * gemms_per_launch;
  const auto slice_k = [&](DecodePlan& p, std::int64_t splits_wanted, std::int64_t max_splits) {
    const KSlicing slicing = balanced_k_slices(p.k_groups, splits_wanted, max_splits, max_groups);
    p.splits = slicing.splits;
    p.groups_per_split = slicing.groups_per_split;
    p.smem_bytes = decode::smem_bytes(a_rows, p.groups_per_split, mxfp4, p.warps);
  };

  // CTAs resident per SM with a `groups`-group slice, of the launching kernel.
  const auto ctas_per_sm = [&](int groups) {
    const int smem = decode::smem_bytes(a_rows, groups, mxfp4, plan.warps);
    return occupancy ? occupancy(plan.max_tokens, plan.warps, smem)
                     : decode_kernel_occupancy(plan.max_tokens, plan.warps, plan.a_quantized_in_kernel, smem);
  };
  std::int64_t splits_wanted =  // the forced count, or the CTA-count rule's
      choices.k_slices > 0 ? choices.k_slices : (sms * kCtasPerSmTarget + gemm_tiles - 1) / gemm_tiles;
  slice_k(plan, splits_wanted, plan.k_groups);
  if (choices.k_slices == 0 && plan.max_tokens > 8) {
    const int min_groups =
        std::min(plan.max_tokens == 16 ? kMinSliceGroups16 : kMinSliceGroups32, plan.groups_per_split);
    splits_wanted = k_slices_by_waves(plan.k_groups, max_groups, min_groups, gemm_tiles, sms, plan.warps, ctas_per_sm);
    slice_k(plan, splits_wanted, plan.k_groups);
  }
  require(plan.splits <= 65535, "{}: K = {} needs {} K-slices, above the grid limit of 65535",
          problem.describe(), s.k, plan.splits);
  if (cluster_sums_wanted(choices.split_sums, plan.splits) && current_device_sm() >= 90) {
    DecodePlan clustered = plan;
    slice_k(clustered, splits_wanted, kMaxClusterSplits);
    with_kernel(plan.max_tokens, plan.warps, plan.a_quantized_in_kernel, [&](auto kernel) {
      allow_dynamic_smem(reinterpret_cast<const void*>(kernel), clustered.smem_bytes, "cuda-decode");
      clustered.splits_in_cluster = clustered.splits > 1 && clustered.splits <= kMaxClusterSplits &&
                                    clusters_fit(kernel, clustered);
    });
    if (clustered.splits_in_cluster) plan = clustered;
  }
  plan.ctas_per_sm = ctas_per_sm(plan.groups_per_split);
  // (The launching kernel may be cuda-grouped's: the message names the problem, not the backend.)
  require(plan.ctas_per_sm >= 1, "{}: a decode-family CTA with {} B of shared memory cannot be resident on this GPU",
          problem.describe(), plan.smem_bytes);
  if (plan.splits > 1 && !plan.splits_in_cluster) {
    plan.workspace_floats =
        std::size_t(plan.tiles_n) * plan.splits * decode::threads_of(plan.warps) * 4 * decode::token_blocks(plan.max_tokens);
    plan.counters = std::size_t(plan.tiles_n);
  }
  return plan;
}

TileOrder decode_scale_tile_order(Fp4Format format) {
  const bool mxfp4 = format == Fp4Format::mxfp4;
  TileOrder order{16, decode::kGroupK / block_size(format), decode::scale_tile_bytes(mxfp4), {}};
  if (mxfp4)
    order.slot = [](int r, int j) { return 2 * (4 * (r % 8) + j) + r / 8; };
  else
    order.slot = [](int r, int j) { return 4 * (4 * (r % 8) + j / 2) + 2 * (r / 8) + j % 2; };
  return order;
}

TileOrder decode_code_tile_order() {
  return {16, decode::kGroupK / 32, decode::kCodeStageBytes / kCodeUnitBytes,
          [](int r, int u) { return (r / 8) * 32 + 4 * (r % 8) + u; }};
}

void launch_decode_gemm(const GemmProblem& problem, const DecodePlan& plan,
                        const KernelPointers& ops, cudaStream_t stream) {
  decode::Params p;
  static_cast<GemmArgs&>(p) = gemm_args(problem, ops);
  p.groups_per_split = plan.groups_per_split;
  p.scale_tiles = ops.b_scale_tiles;
  p.splits_in_cluster = plan.splits_in_cluster;
  p.a_source = ops.a_source;
  p.a_scale_2 = ops.a_scale_2;
  p.a_status = ops.a_status;
  // The kernel the plan prepared (its shared-memory limit, cluster attribute and occupancy).
  require(plan.a_quantized_in_kernel == (ops.a_source != nullptr),
          "cuda-decode: the plan {} A in the kernel, but the operands {} its bf16 source",
          plan.a_quantized_in_kernel ? "quantizes" : "does not quantize",
          ops.a_source != nullptr ? "hand it" : "do not hand it");
  const dim3 grid(unsigned(plan.tiles_n), unsigned(plan.splits));
  const dim3 cluster(1, plan.splits_in_cluster ? unsigned(plan.splits) : 1u);
  with_kernel(plan.max_tokens, plan.warps, plan.a_quantized_in_kernel, [&](auto kernel) {
    launch_kernel_in_clusters(kernel, grid, cluster, decode::threads_of(plan.warps), plan.smem_bytes,
                              plan.dependent_launch, stream, p);
  });
}

}  // namespace fp4gemm::cuda
