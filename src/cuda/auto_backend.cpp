// The auto Backend: the table's choice for the current GPU (dispatch_table.hpp), each candidate
// asked for availability and can_implement in fallback order; prepare() is the chosen backend's.
#include "cuda/auto_backend.hpp"

#include <fmt/format.h>

#include "cuda/dispatch_table.hpp"
#include "cuda/gpu_requirement.hpp"
#include "cuda/mma_backend.hpp"
#include "fp4gemm/error.hpp"

namespace fp4gemm::cuda {
namespace {

Verdict candidate_verdict(const Backend& candidate, const GemmProblem& problem) {
  if (const Verdict available = candidate.availability(); !available)
    return Verdict::no(fmt::format("not available: {}", available.reason));
  return candidate.can_implement(problem);
}

// Yes when a candidate took the problem, else why none did.
Verdict verdict_of(const Dispatch& choice) {
  if (!choice.chosen.empty()) return Verdict::yes();
  return Verdict::no(fmt::format("no kernel takes it ({})",
                                 choice.refused.empty() ? choice.rule : choice.describe_refusals()));
}

class AutoBackend final : public Backend {
 public:
  std::string_view name() const override { return "auto"; }
  std::string_view summary() const override {
    return "picks cuda-decode, cuda-dequant-cublas, cuda-wgmma or cuda-mma per problem from a "
           "per-architecture table of measurements (src/cuda/dispatch_table.cpp); when the pick "
           "refuses, the first of the others in that order that takes the problem; `bench "
           "--explain` prints the choice";
  }
  DeviceKind device() const override { return DeviceKind::cuda; }
  // Every candidate rebuilds FP4 exactly in bf16 and accumulates in fp32 on tensor cores
  // (dispatch_table_test checks that each candidate declares this accuracy).
  Accuracy accuracy() const override { return bf16_mma_accuracy(); }
  Verdict availability() const override {
    if (const Verdict sm = require_sm(80, "needs sm_80+ (its kernels use bf16 mma.sync)"); !sm) return sm;
    std::string reasons;
    for (std::string_view name : kFallbackOrder) {
      const Verdict available = find_backend(name).availability();
      if (available) return available;
      reasons += fmt::format("{}{}: {}", reasons.empty() ? "" : "; ", name, available.reason);
    }
    return Verdict::no(fmt::format("none of its kernels is available ({})", reasons));
  }
  Verdict can_implement(const GemmProblem& problem) const override {
    return verdict_of(choose(problem));
  }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    operands.validate();
    const Dispatch choice = choose(operands.problem);
    if (const Verdict taken = verdict_of(choice); !taken)
      throw InvalidArgument(fmt::format("auto: {}: {}", operands.problem.describe(), taken.reason));
    return find_backend(choice.chosen).prepare(operands);
  }
  std::optional<Dispatch> dispatch(const GemmProblem& problem) const override { return choose(problem); }

 private:
  // Without a usable GPU the rule says why and no candidate is asked.
  Dispatch choose(const GemmProblem& problem) const {
    if (const Verdict available = availability(); !available)
      return {fmt::format("auto is not available: {}", available.reason), {}, ""};
    return resolve_dispatch(dispatch_table(), current_device_sm(), problem.shape,
                            [&](std::string_view name) { return candidate_verdict(find_backend(name), problem); });
  }
};

}  // namespace

std::unique_ptr<Backend> make_auto_backend() { return std::make_unique<AutoBackend>(); }

}  // namespace fp4gemm::cuda
