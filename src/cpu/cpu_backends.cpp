// The CPU backends: cpu-reference (the oracle itself, for `gemm` and as a last resort) and
// cpu-fast (fast_gemm.hpp).
#include "cpu/cpu_backends.hpp"

#include "cpu/fast_gemm.hpp"
#include "cpu/host_gemm_run.hpp"

namespace fp4gemm {
namespace {

class CpuReferenceBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu-reference"; }
  std::string_view summary() const override {
    return "CPU reference: exact products, double accumulation, single pass (the oracle)";
  }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Accuracy accuracy() const override { return {true, 0.0, 0x1p-53, "exact: double accumulation"}; }
  Verdict availability() const override { return Verdict::yes(); }
  Verdict can_implement(const GemmProblem&) const override { return Verdict::yes(); }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    operands.validate();
    return std::make_unique<cpu::HostGemmRun>(
        operands, [](const GemmOperands& ops, std::vector<float>& out) {
          out = reference_gemm(ops).rounded;
        });
  }
};

}  // namespace

void add_cpu_backends(std::vector<std::unique_ptr<Backend>>& list) {
  list.push_back(std::make_unique<CpuReferenceBackend>());
  list.push_back(cpu::make_fast_backend());
}

}  // namespace fp4gemm
