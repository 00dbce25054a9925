#pragma once
// The grouped GEMM of a mixture-of-experts layer: E experts, each D_e = alpha_e A_e B_e^T, in one
// call.
//
//   B_e       expert e's weights, N x K FP4 (NVFP4 or MXFP4), its own block scales and scale_2;
//             on the device all experts' data are one [E, N, K/2] array and their scales E
//             consecutive blocks of scale_bytes(layout, N, K/block) bytes (each block in the
//             problem's layout, swizzled padding included).
//   A         the tokens of all experts, T_total x K, sorted by expert: expert e owns rows
//             offsets[e] .. offsets[e+1]-1 (M_e = tokens[e] >= 0; empty experts allowed).
//             w4a16: bf16. w4a4: FP4 of the problem's format, scales as the experts' scale
//             blocks one after another, block e = scale_bytes(layout, M_e, K/block) bytes (for
//             the linear layout this is the T_total-row linear tensor; swizzled blocks start at
//             a 128-row boundary, like the blockscale offsets of CUTLASS's grouped FP4 GEMMs).
//   D         T_total x N, rows in A's order.
// alpha_e = alpha * scale_2(A_e) (w4a4) * scale_2(B_e). The host keeps the counts (tokens) for
// the reference and the benchmarks; a grouped kernel reads them as device offsets.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fp4gemm/backend.hpp"
#include "fp4gemm/gemm.hpp"

namespace fp4gemm {

struct GroupedProblem {
  std::vector<std::int64_t> tokens;  // M_e per expert, >= 0; tokens.size() = E >= 1
  std::int64_t n = 0, k = 0;
  Mode mode = Mode::w4a16;
  Fp4Format format = Fp4Format::nvfp4;
  ScaleLayout scale_layout = ScaleLayout::linear;
  DType out_dtype = DType::f32;

  std::int64_t experts() const { return std::int64_t(tokens.size()); }
  std::int64_t total_tokens() const;  // T_total
  std::int64_t max_tokens() const;    // the largest M_e
  std::int64_t active_experts() const;  // experts with M_e >= 1
  std::vector<std::int64_t> offsets() const;  // E + 1 prefix sums, offsets[0] = 0
  // Expert e's GEMM (M = M_e, possibly 0: validate_shape refuses it; nothing to compute).
  GemmProblem expert_problem(std::int64_t e) const;
  // The dense GEMM of the same total size: T_total x N x K (one weight).
  GemmProblem dense_problem() const;
  double flops() const { return dense_problem().shape.flops(); }
  // "nvfp4 w4a16 32 experts x 4096x6144, 128 tokens (1..16 per expert) -> bf16"
  std::string describe() const;
  // E >= 1, every M_e >= 0, N >= 1, K a multiple of the block size; InvalidArgument otherwise.
  void validate() const;
};

// Host operands: one GemmOperands per expert (its M_e x N x K problem, its weights, its A rows;
// an empty expert has weights and no A).
struct GroupedOperands {
  GroupedProblem problem;
  std::vector<GemmOperands> experts;
  void validate() const;  // InvalidArgument naming the expert and the field
};

// Seeded operands: weights drawn per expert (random_expert_weights), all T_total activations
// drawn and quantized as one tensor (one scale_2, like a real MoE input) and split by expert.
GroupedOperands random_grouped_operands(const GroupedProblem& problem, std::uint64_t seed);
// The experts' weights alone (E x N x K, the problem's format and layout; the counts and mode do
// not matter), and operands with given weights and fresh activations: a sweep over counts and
// modes draws the weights once. InvalidArgument if the weights do not fit the problem.
std::vector<Fp4Tensor> random_expert_weights(const GroupedProblem& problem, std::uint64_t seed);
GroupedOperands random_grouped_operands(const GroupedProblem& problem, std::uint64_t seed,
                                        const std::vector<Fp4Tensor>& weights);

// The CPU reference per expert (reference_gemm on each non-empty expert), rows stacked in A's
// order: exact, rounded and abs_sum are T_total x N.
ReferenceResult reference_grouped_gemm(const GroupedOperands& operands);

// A grouped GEMM implementation; its GemmRun's output() is D (T_total x N) decoded to fp32.
class GroupedBackend {
 public:
  virtual ~GroupedBackend() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  virtual Accuracy accuracy() const = 0;
  virtual OperandEncoding encoding() const = 0;  // what its byte count is made of
  virtual ComputePath compute_path() const { return ComputePath::bf16_tensor; }
  virtual Verdict availability() const = 0;
  virtual Verdict can_implement(const GroupedProblem& problem) const = 0;
  virtual std::unique_ptr<GemmRun> prepare(const GroupedOperands& operands) const = 0;
};

// Every grouped backend of this build (none without CUDA), in a stable order.
const std::vector<std::unique_ptr<GroupedBackend>>& all_grouped_backends();
const GroupedBackend& find_grouped_backend(std::string_view name);

}  // namespace fp4gemm
