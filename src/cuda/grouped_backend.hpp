#pragma once
// cuda-grouped: the MoE grouped GEMM of all experts in one launch (kernel grouped_gemm.cuh,
// launcher grouped_gemm.cu). The GroupedBackend uploads the operands once in prepare() (each
// expert's weights re-laid as the decode CTA's code and scale tiles, stacked; device offsets, per-expert alphas, workspace for the worst case), so
// run() only enqueues; prepare_grouped_kernel exposes the run's options to tests.
#include <cstdint>
#include <memory>
#include <optional>

#include "fp4gemm/grouped.hpp"

namespace fp4gemm::cuda {

struct GroupedRunOptions {
  bool offsets_int64 = false;  // the device offsets' type (int32 by default)
  // The host's bound on any expert's tokens; default: the problem's largest count. A smaller
  // bound makes output() throw, naming the expert the kernel could not finish.
  std::optional<std::int64_t> max_tokens_per_expert;
};

std::unique_ptr<GemmRun> prepare_grouped_kernel(const GroupedOperands& operands,
                                                const GroupedRunOptions& options = {});
std::unique_ptr<GroupedBackend> make_grouped_backend();

}  // namespace fp4gemm::cuda
