// Host launcher of the cuda-grouped kernels.
//
// Plan: one expert's GEMM at its largest chunk, M = min(bound, 32), is planned by the decode
// planner (kernel instance, N-tiles, K-splits, shared memory; with the grouped kernel's occupancy)
// as one of experts / kExpertShareDivisor GEMMs in the launch, and the grid repeats it for every
// expert (grid z).
// Bounds above 32 take ceil(bound / 32) rounds (launches). w4a4 first dequantizes the experts' FP4
// activations into bf16 scratch (one small kernel, fp4_dequantize.cu), once per call: when every
// CTA decoded its own A slice, each slice was decoded by every N-tile of its expert (32 times for
// GLM-5's gate_up experts), and the staging code took the 16-token instance to 103 registers.
// Each launch is a programmatic dependent launch on sm_90+ (each kernel waits for the previous one
// before reading anything).
#include "cuda/grouped_gemm.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "cuda/dependent_launch.cuh"
#include "cuda/fp4_dequantize.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/grouped_gemm.cuh"

namespace fp4gemm::cuda {
namespace {

// The K-splits are planned as if experts / kExpertShareDivisor experts receive tokens: the
// launch's CTAs of all of them fill the GPU, while a routing that leaves only half of the experts
// with tokens still finds as many CTAs as one dense GEMM would have. Measured on an H100
// (bench/results/grouped_expert_share: 32 experts x 1 token x 4096 x 6144, one process per
// divisor, each with the per-expert cublas-bf16 loop): divisor 1 164.88 us (1 K-split), 2 165.04
// (1 K-split), 4 174.05 (2 K-splits), 8 167.34 (3 K-splits); at 16 tokens per expert all 290.6-291.8
// (the A slice's shared memory sets the K-splits there). Earlier, on the H200: each expert planned
// alone for 7 CTAs per SM, 12 K-slices of 4 groups, 167.5 us against divisor 4's 134.2
// (bench/results/h200_decode_v8, h200_decode_fixed_cost).
constexpr std::int64_t kExpertShareDivisor = 2;

// f(the kernel instance for M <= max_tokens, CTAs of `warps` warps): decode::with_instance's choice
// (A is bf16 in both modes).
template <class F>
decltype(auto) with_kernel(int max_tokens, int warps, F&& f) {
  return decode::with_instance(max_tokens, warps, [&](auto tokens, auto cta_warps) {
    return f(grouped::grouped_gemm_kernel<decltype(tokens)::value, decltype(cta_warps)::value>);
  });
}

}  // namespace

std::string GroupedPlan::describe() const {
  return fmt::format("{} experts x ({}), {} round(s) for <= {} tokens per expert", experts,
                     decode.describe(), rounds, max_tokens_per_expert);
}

Verdict grouped_kernel_image_present() {
  return kernel_image_present(
      reinterpret_cast<const void*>(grouped::grouped_gemm_kernel<8, decode::kNarrowWarps>), "cuda-grouped");
}

GroupedPlan plan_grouped_gemm(const GemmProblem& expert, std::int64_t experts,
                              std::int64_t max_tokens_per_expert, DecodeChoices choices) {
  require(experts >= 1 && experts <= kMaxGroupedExperts, "experts = {} must be in 1..{} (the launch grid's z)",
          experts, kMaxGroupedExperts);
  require(max_tokens_per_expert >= 0, "max_tokens_per_expert = {} must be >= 0", max_tokens_per_expert);
  GroupedPlan plan;
  plan.expert = expert;
  plan.expert.shape.m = std::clamp<std::int64_t>(max_tokens_per_expert, 1, kDecodeMaxM);
  // The planner asks the grouped kernel's own occupancy (its registers are not cuda-decode's).
  const KernelOccupancy occupancy = [&](int max_tokens, int warps, int smem_bytes) {
    return with_kernel(max_tokens, warps, [&](auto kernel) {
      return resident_ctas_per_sm(reinterpret_cast<const void*>(kernel), decode::threads_of(warps), smem_bytes,
                                  "cuda-grouped");
    });
  };
  plan.decode = plan_decode_gemm(plan.expert, std::max<std::int64_t>(1, experts / kExpertShareDivisor),
                                 {SplitSums::global, AQuantize::separate, choices.cta_width, choices.k_slices},
                                 occupancy);
  plan.experts = experts;
  plan.max_tokens_per_expert = max_tokens_per_expert;
  const std::int64_t chunk = plan.decode.max_tokens;
  plan.rounds = int(std::max<std::int64_t>(1, (max_tokens_per_expert + chunk - 1) / chunk));
  plan.workspace_floats = std::size_t(experts) * plan.decode.workspace_floats;
  plan.counters = std::size_t(experts) * plan.decode.counters;
  return plan;
}

void launch_grouped_gemm(const GroupedPlan& plan, const GroupedPointers& ptr, cudaStream_t stream) {
  const GemmProblem& e = plan.expert;
  const bool w4a4 = e.mode == Mode::w4a4;
  if (w4a4) {
    require(ptr.a_dequantized != nullptr, "cuda-grouped: w4a4 needs GroupedPointers::a_dequantized (T_total x K bf16)");
    dequantize_grouped_fp4_to_bf16(ptr.a_data, ptr.a_scales, e.format, e.scale_layout, ptr.expert_offsets,
                                   ptr.offsets_int64, int(plan.experts), plan.max_tokens_per_expert, e.shape.k,
                                   ptr.a_dequantized, stream);
  }
  grouped::Params p;
  KernelPointers base;  // the pointers of expert 0 and row 0; the kernel offsets them per expert
  base.b_data = ptr.b_data;
  base.a_bf16 = w4a4 ? ptr.a_dequantized : ptr.a_bf16;
  base.out = ptr.out;
  base.workspace = ptr.workspace;
  base.counters = ptr.counters;
  static_cast<GemmArgs&>(p.base) = gemm_args(e, base);
  p.base.groups_per_split = plan.decode.groups_per_split;
  p.offsets = {ptr.expert_offsets, ptr.offsets_int64};
  p.alphas = ptr.alphas;
  p.base.scale_tiles = ptr.b_scale_tiles;
  p.b_expert_code_tile_bytes = code_tiles_bytes(e.shape.n, e.shape.k, *plan.decode.b_form.code_tile_order);
  p.b_expert_scale_tile_bytes =
      scale_tiles_bytes(e.shape.n, e.shape.k / block_size(e.format), *plan.decode.b_form.scale_tile_order);
  p.workspace_expert_floats = std::int64_t(plan.decode.workspace_floats);
  p.counters_per_expert = std::int64_t(plan.decode.counters);
  p.rounds = plan.rounds;
  p.bound = plan.max_tokens_per_expert;
  p.status = ptr.status;
  const dim3 grid(unsigned(plan.decode.tiles_n), unsigned(plan.decode.splits), unsigned(plan.experts));
  with_kernel(plan.decode.max_tokens, plan.decode.warps, [&](auto kernel) {
    for (int round = 0; round < plan.rounds; ++round) {
      p.round = round;
      launch_kernel(kernel, grid, decode::threads_of(plan.decode.warps), plan.decode.smem_bytes,
                    plan.decode.dependent_launch, stream, p);
    }
  });
}

}  // namespace fp4gemm::cuda
