#pragma once
// Host side of the cuda-grouped kernel (grouped_gemm.cuh): the launch plan and the launch. The
// launch takes the counts only as device offsets; the host gives a bound on the tokens of any
// one expert (max_tokens_per_expert, e.g. the batch's T_total in the worst case), which picks
// the token blocks and the number of rounds. No allocation per launch: the caller sizes the
// workspace and counters from the plan once.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "cuda/decode_gemm.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm::cuda {

inline constexpr std::int64_t kMaxGroupedExperts = 65535;  // grid z

struct GroupedPlan {
  GemmProblem expert;        // one expert's GEMM at its largest chunk (M = min(bound, 32))
  DecodePlan decode;         // the decode plan of `expert` as one of max(1, E / 2) GEMMs of the launch:
                             // token blocks, tiles, K-splits, smem
  std::int64_t experts = 0;  // E (grid z)
  std::int64_t max_tokens_per_expert = 0;
  int rounds = 1;            // launches of 8*MT tokens per expert: ceil(bound / (8*MT)), >= 1
  std::size_t workspace_floats = 0;  // all experts: E x the decode plan's
  std::size_t counters = 0;          // all experts: E x the decode plan's
  std::string describe() const;
};

// The device pointers of one grouped GEMM (layouts: fp4gemm/grouped.hpp).
struct GroupedPointers {
  const std::uint8_t* b_data = nullptr;    // E blocks of B's codes in decode_code_tile_order
  const std::uint8_t* b_scale_tiles = nullptr;  // E blocks of B's scales in decode_scale_tile_order
  const float* alphas = nullptr;           // [E]
  const std::uint8_t* a_data = nullptr;    // w4a4: [T_total, K/2]
  const std::uint8_t* a_scales = nullptr;  // w4a4: the experts' scale blocks
  std::uint16_t* a_dequantized = nullptr;  // w4a4: [T_total, K] bf16 scratch, A's values (each call
                                           // writes it before the GEMM reads it)
  const std::uint16_t* a_bf16 = nullptr;   // w4a16: [T_total, K]
  const void* expert_offsets = nullptr;    // [E + 1], int32 or int64
  bool offsets_int64 = false;
  void* out = nullptr;                     // [T_total, N] of out_dtype
  float* workspace = nullptr;              // plan.workspace_floats
  int* counters = nullptr;                 // plan.counters, zero before the first launch
  int* status = nullptr;                   // one int, zero before the first launch
};

// `expert`: N, K, mode, format, layout and output of every expert (its M is ignored).
// `choices`: the decode planner's CTA width and K-slice count (decode_gemm.hpp: DecodeChoices;
// the width counts the N-tiles of the experts the K-splits are planned for); the grouped kernel
// always sums its K-slices in global memory and reads A as bf16, whatever the other two say.
// InvalidArgument for shapes the decode kernels refuse, E < 1 or above the grid's 65535, or a
// negative bound.
GroupedPlan plan_grouped_gemm(const GemmProblem& expert, std::int64_t experts,
                              std::int64_t max_tokens_per_expert, DecodeChoices choices = {});
// Enqueues plan.rounds launches on `stream` (w4a4: after the dequantization of A into
// a_dequantized). Afterwards *status is 0, or 1 + the index of an expert that had more than
// max_tokens_per_expert tokens (its rows past the bound are not written).
void launch_grouped_gemm(const GroupedPlan& plan, const GroupedPointers& pointers, cudaStream_t stream);
// Whether this build holds machine code of the grouped kernels for the current device.
Verdict grouped_kernel_image_present();

}  // namespace fp4gemm::cuda
