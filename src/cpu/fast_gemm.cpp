// PLACEHOLDER (being replaced by the fast CPU backend work): reference loops.
#include "cpu/fast_gemm.hpp"
#include "cpu/host_gemm_run.hpp"
namespace fp4gemm::cpu {
namespace {
class FastBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu-fast"; }
  std::string_view summary() const override { return "placeholder"; }
  DeviceKind device() const override { return DeviceKind::cpu; }
  Accuracy accuracy() const override { return {true, 0.0, 0x1p-24, "placeholder"}; }
  Verdict availability() const override { return Verdict::yes(); }
  Verdict can_implement(const GemmProblem&) const override { return Verdict::yes(); }
  std::unique_ptr<GemmRun> prepare(const GemmOperands& operands) const override {
    return std::make_unique<HostGemmRun>(operands, [](const GemmOperands& ops, std::vector<float>& out) { out = reference_gemm(ops).rounded; });
  }
};
}  // namespace
std::unique_ptr<Backend> make_fast_backend() { return std::make_unique<FastBackend>(); }
}  // namespace fp4gemm::cpu
