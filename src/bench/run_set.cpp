// Rotation count and preparation of the runs of a cold or hot measurement (run_set.hpp).
#include "bench/run_set.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "fp4gemm/device.hpp"

namespace fp4gemm {
namespace {

std::string megabytes(double bytes) { return fmt::format("{:.1f} MB", bytes * 1e-6); }

}  // namespace

RotationPlan rotation_count(double l2_bytes, double operand_bytes, double footprint_bytes,
                            double free_bytes) {
  RotationPlan plan;
  if (l2_bytes <= 0 || operand_bytes <= 0) return plan;
  const double wanted = std::ceil(kColdL2Multiple * l2_bytes / operand_bytes);
  const double fit = 1 + std::floor(kFreeMemoryShare * free_bytes / std::max(footprint_bytes, operand_bytes));
  plan.count = int(std::max(1.0, std::min({wanted, fit, double(kMaxRotations)})));
  if (plan.count < wanted) {
    const char* why = plan.count == kMaxRotations && fit > kMaxRotations
                          ? "the cap on operand sets"
                          : "what fits in the share of free device memory they may take";
    plan.note = fmt::format("cold: {} operand set(s) ({}) hold {}, {:.1f}x the {} L2, not {:.0f}x",
                            plan.count, why, megabytes(plan.count * operand_bytes),
                            plan.count * operand_bytes / l2_bytes, megabytes(l2_bytes), kColdL2Multiple);
  }
  return plan;
}

RunSet prepare_runs(const Backend& backend, const GemmOperands& operands, CacheState cache,
                    double operand_bytes) {
  RunSet set;
  const bool cold = cache == CacheState::cold && backend.device() == DeviceKind::cuda;
  const GpuMemory before = cold ? current_gpu_memory() : GpuMemory{};
  set.runs.push_back(backend.prepare(operands));
  if (cold) {
    const GpuMemory after = current_gpu_memory();
    const RotationPlan plan = rotation_count(before.l2_bytes, operand_bytes,
                                             before.free_bytes - after.free_bytes, after.free_bytes);
    for (int r = 1; r < plan.count; ++r) set.runs.push_back(backend.prepare(operands));
    set.cache = CacheState::cold;
    set.note = plan.note;
  }
  set.working_set_bytes = operand_bytes * double(set.runs.size());
  return set;
}

RunSet single_run(std::unique_ptr<GemmRun> run, double operand_bytes, CacheState cache) {
  RunSet set;
  set.runs.push_back(std::move(run));
  set.working_set_bytes = operand_bytes;
  if (cache == CacheState::cold) {
    const double l2 = double(current_gpu_memory().l2_bytes);
    if (operand_bytes >= kColdL2Multiple * l2)
      set.cache = CacheState::cold;
    else
      set.note = fmt::format("one operand set: its {:.1f} MB are under {} x the L2 ({:.1f} MB), timed hot",
                             operand_bytes * 1e-6, kColdL2Multiple, l2 * 1e-6);
  }
  return set;
}

}  // namespace fp4gemm
